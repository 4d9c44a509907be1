/** `ajsc serve` and `ajsc worker` as processes: start, answer, stop on SIGTERM; bad configs and flags are usage errors. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { tokenSha256 } from '../../src/server/index.ts'
import { ajsc } from '../cli/run-cli.ts'

const MAIN = resolve(import.meta.dir, '../../src/cli/main.ts')
let dir: string
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'ajsc-serve-')) })
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Start `ajsc serve`; resolves with its URL once it listens. */
export function startServe(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0', ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (c) => { stderr += c })
  const url = new Promise<string>((ok, fail) => {
    child.stdout.on('data', (c) => {
      stdout += c
      const m = /listening on (http:\/\/\S+)/.exec(stdout)
      if (m) ok(m[1]!)
    })
    child.once('exit', (code) => fail(new Error(`ajsc serve exited (${code}): ${stderr}`)))
  })
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)))
  return { child, url, exited, output: () => ({ stdout, stderr }) }
}

describe('ajsc serve', () => {
  test('with --config: listens, runs a program for a tenant, stops on SIGTERM with exit 0', async () => {
    const config = join(dir, 'ajs-serve.json')
    writeFileSync(config, JSON.stringify({ tenants: [{ id: 'team', tokenSha256: tokenSha256('s3cret'), limits: { fuelPerRun: 100 } }] }))
    const s = startServe(['--config', config, '--pool-size', '1'])
    const url = await s.url
    expect(s.output().stdout).toContain('(1 tenant, 1 worker threads, in memory)')
    const r = await fetch(`${url}/v1/runs`, { method: 'POST', headers: { authorization: 'Bearer s3cret', 'content-type': 'application/json' }, body: JSON.stringify({ source: 'function f({ a }) { return { a2: a * a } }', args: { a: 7 } }) })
    expect(await r.json()).toEqual({ result: { a2: 49 }, fuelUsed: expect.any(Number) })
    s.child.kill('SIGTERM')
    expect(await s.exited).toBe(0)
  })

  test('without --config: one tenant whose token is $AJS_SERVE_TOKEN (never printed)', async () => {
    const s = startServe([], { AJS_SERVE_TOKEN: 'from-env-token' })
    const url = await s.url
    const ok = await fetch(`${url}/v1/runs/run_x`, { headers: { authorization: 'Bearer from-env-token' } })
    expect(ok.status).toBe(404)
    expect(s.output().stderr).not.toContain('from-env-token')
    s.child.kill('SIGTERM')
    expect(await s.exited).toBe(0)
  })

  test('a bad config is a usage error (exit 2) naming the JSON path; worker needs --database and --config', () => {
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, JSON.stringify({ tenants: [{ id: 'x', tokenSha256: 'abc' }] }))
    const r = ajsc(['serve', '--config', bad, '--port', '0'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('config.tenants[0].tokenSha256')
    const unknown = join(dir, 'unknown.json')
    writeFileSync(unknown, JSON.stringify({ tenants: [{ id: 'x', tokenSha256: tokenSha256('t'), limits: { fuel: 1 } }] }))
    expect(ajsc(['serve', '--config', unknown]).stderr).toContain('config.tenants[0].limits.fuel: unknown key')
    const w = ajsc(['worker', '--config', unknown])
    expect(w.code).toBe(2)
    expect(w.stderr).toContain('--database')
    expect(ajsc(['serve', '--port', 'x']).code).toBe(2)
  })
})
