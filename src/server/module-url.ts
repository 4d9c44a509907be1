/**
 * This module's URL in every build: `import.meta.url` in ESM (source, dist/*.js),
 * `__filename` in the CommonJS bundle (dist/*.cjs), where import.meta is empty.
 */
import { pathToFileURL } from 'node:url'

declare const __filename: string | undefined

export function moduleUrl(metaUrl: string | undefined): string {
  if (metaUrl) return metaUrl
  if (typeof __filename === 'string') return pathToFileURL(__filename).href
  throw new Error('ajs-lang server: cannot tell where this module is loaded from')
}
