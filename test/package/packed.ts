/**
 * Test helper: the package as a user gets it. `npm pack` once per test
 * process (its `prepack` script builds dist/ with the declarations), install the tarball into an empty project (offline, from the npm
 * cache the repo's own install filled), and hand the project directory to
 * every test file that asks (pack, consumer types, Bun runtime, browser).
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './built.ts'

export interface Packed {
  /** The consumer project, with ajs-lang installed from the tarball. */
  app: string
  /** The tarball. */
  tarball: string
}

let packed: Packed | undefined

export const sh = (cmd: string, args: string[], cwd: string, input?: string, env?: Record<string, string>) => {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', input, timeout: 180_000, env: { ...process.env, ...env } })
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' }
}

export function packedApp(): Packed {
  if (packed) return packed
  // Under the repo's git-ignored .tmp/ with this process's id: bun's test runner fires no exit
  // event to clean up in, so each run removes what earlier runs left instead.
  const base = join(ROOT, '.tmp')
  mkdirSync(base, { recursive: true })
  for (const old of readdirSync(base)) if (old.startsWith('packed-')) rmSync(join(base, old), { recursive: true, force: true })
  const dir = join(base, `packed-${process.pid}`)
  mkdirSync(dir)
  // With its scripts: `prepack` builds dist/ (declarations included), as on `npm publish`.
  const pack = sh('npm', ['pack', '--json', '--pack-destination', dir], ROOT)
  if (pack.code !== 0) throw new Error(`npm pack failed: ${pack.stderr}`)
  const tarball = join(dir, JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[/m)))[0].filename)
  const app = join(dir, 'app')
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
  const args = ['install', '--no-audit', '--no-fund', '--ignore-scripts', tarball]
  let installed = sh('npm', [...args, '--offline'], app)
  if (installed.code !== 0) installed = sh('npm', [...args, '--prefer-offline'], app)
  if (installed.code !== 0) throw new Error(`npm install failed: ${installed.stderr}`)
  packed = { app, tarball }
  return packed
}
