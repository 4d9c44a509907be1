/**
 * Test helper: make sure dist/ is built from the current sources (builds
 * once per test process when dist/ is missing or older than src/).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

export const ROOT = resolve(import.meta.dir, '../..')
let done = false

function newest(dir: string): number {
  let t = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs)
  }
  return t
}

export function ensureBuilt(): void {
  if (done) return
  const marker = join(ROOT, 'dist', 'types', 'index.d.ts')
  const fresh = existsSync(marker) && existsSync(join(ROOT, 'dist/cli.js'))
    && statSync(join(ROOT, 'dist/cli.js')).mtimeMs >= newest(join(ROOT, 'src'))
    && statSync(marker).mtimeMs >= statSync(join(ROOT, 'dist/cli.js')).mtimeMs - 60_000
  if (!fresh) {
    const r = spawnSync('node', [join(ROOT, 'scripts/build.mjs'), '--quiet'], { cwd: ROOT, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`build failed (status ${r.status}, signal ${r.signal}, ${r.error ?? ""}):\n${r.stdout}${r.stderr}`)
  }
  done = true
}
