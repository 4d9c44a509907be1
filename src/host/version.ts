/**
 * The package version, read from package.json at run time (never a copy in
 * code, so it cannot drift). Works from src/ and from the bundled dist/.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export function packageVersion(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from))
  for (;;) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'ajs-lang' && typeof pkg.version === 'string') return pkg.version
    }
    const up = dirname(dir)
    if (up === dir) return '0.0.0-unknown'
    dir = up
  }
}
