/** `ajsc` as a child process for the distributed tests: started, awaited until ready, killed by the test (killChildren). */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { tokenSha256 } from '../../src/server/index.ts'
import { startPostgres } from './postgres.ts'

const MAIN = resolve(import.meta.dir, '../../src/cli/main.ts')

export interface AjscProcess {
  child: ChildProcess
  match: RegExpExecArray
  stderr: () => string
}

/** Start `ajsc <args>` (tracked in `children`); resolves once its stdout matches `ready`, rejects if it exits first. */
export function startAjsc(args: string[], ready: RegExp, children: ChildProcess[]): Promise<AjscProcess> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let out = ''
  let err = ''
  child.stderr!.on('data', (c) => { err += c })
  return new Promise((ok, fail) => {
    child.stdout!.on('data', (c) => {
      out += c
      const m = ready.exec(out)
      if (m) ok({ child, match: m, stderr: () => err })
    })
    child.once('exit', (code) => fail(new Error(`ajsc ${args[0]} exited (${code}): ${err}`)))
  })
}

/** Kill every child still running (SIGKILL: the tests' servers hold nothing to flush) and wait for each to exit. */
export async function killChildren(children: ChildProcess[]): Promise<void> {
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null)
  const exited = running.map((c) => new Promise((r) => c.once('exit', r)))
  for (const c of running) c.kill('SIGKILL')
  await Promise.all(exited)
}

/**
 * A PostgreSQL-backed `ajsc serve` (one pool thread) for one test: a temporary database, a config with
 * tenant `ops` (token `ops-token`), the server's base URL; `stop()` kills it and removes both.
 */
export async function servePostgres(dirPrefix: string): Promise<{ url: string; stop(): Promise<void> }> {
  const children: ChildProcess[] = []
  const db = await startPostgres()
  const dir = mkdtempSync(join(tmpdir(), dirPrefix))
  const stop = async () => {
    await killChildren(children)
    await db.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    const config = join(dir, 'ajs-serve.json')
    writeFileSync(config, JSON.stringify({ tenants: [{ id: 'ops', tokenSha256: tokenSha256('ops-token') }] }))
    const { match } = await startAjsc(['serve', '--database', db.url, '--config', config, '--port', '0', '--pool-size', '1'], /listening on (http:\/\/\S+)/, children)
    return { url: match[1]!, stop }
  } catch (e) {
    await stop()
    throw e
  }
}
