/** Spawns the real `ajsc` (src/cli/main.ts under bun, or the built bin under node). */
import { spawn, spawnSync } from 'node:child_process'
import { resolve } from 'node:path'

export const ROOT = resolve(import.meta.dir, '../..')
const MAIN = resolve(ROOT, 'src/cli/main.ts')

export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

export function ajsc(args: string[], opts: { cwd?: string; input?: string; env?: Record<string, string>; node?: boolean } = {}): CliRun {
  const cmd = opts.node ? 'node' : process.execPath
  const script = opts.node ? resolve(ROOT, 'bin/ajsc.js') : MAIN
  const env: Record<string, string> = { ...(process.env as Record<string, string>), NO_COLOR: '', ...opts.env }
  const r = spawnSync(cmd, [script, ...args], { cwd: opts.cwd ?? ROOT, input: opts.input ?? '', encoding: 'utf8', env, timeout: 30_000 })
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }
}

/** Async spawn, for tests that serve HTTP from this process while ajsc runs. */
export function ajscAsync(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: opts.cwd ?? ROOT, env: { ...(process.env as Record<string, string>), ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => { stdout += c })
    child.stderr.on('data', (c) => { stderr += c })
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }))
  })
}
