/**
 * This module's URL in every build: `import.meta.url` in ESM (source, dist/*.js),
 * `__filename` in the CommonJS bundle (dist/*.cjs), where import.meta is empty.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

declare const __filename: string | undefined

export function moduleUrl(metaUrl: string | undefined): string {
  if (metaUrl) return metaUrl
  if (typeof __filename === 'string') return pathToFileURL(__filename).href
  throw new Error('ajs-lang server: cannot tell where this module is loaded from')
}

/**
 * The module of a server thread named `name` (worker, workflow-thread), as seen from the module at
 * `metaUrl` in src/server/pool: `<name>.ts` beside it in the source (Bun, tests), or the bundled
 * `server-<name>.js` beside the entry (dist/server.js, dist/cli.js) or one level up from a shared chunk.
 */
export function threadModule(metaUrl: string | undefined, name: string, what: string): string {
  const here = moduleUrl(metaUrl)
  const candidates = [new URL(`./${name}.ts`, here), new URL(`./server-${name}.js`, here), new URL(`../server-${name}.js`, here)]
  for (const u of candidates) if (u.protocol === 'file:' && existsSync(fileURLToPath(u))) return u.href
  throw new Error(`ajs-lang server: the ${what} module is missing (looked for ${candidates.map((u) => u.pathname).join(', ')}); run npm run build`)
}
