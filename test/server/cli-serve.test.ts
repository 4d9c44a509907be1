/** `ajsc serve` and `ajsc worker` as processes: start, answer, stop on SIGTERM; bad configs and flags are usage errors. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { tokenSha256 } from '../../src/server/index.ts'
import { ajsc, ROOT } from '../cli/run-cli.ts'

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

  test('a bad config is CLI_CONFIG (exit 1, a bad input file) naming the JSON path; worker needs --database and --config', () => {
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, JSON.stringify({ tenants: [{ id: 'x', tokenSha256: 'abc' }] }))
    const r = ajsc(['serve', '--config', bad, '--port', '0'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('error CLI_CONFIG')
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

describe('ajsc serve --atoms', () => {
  const SRC_INDEX = resolve(ROOT, 'src/index.ts')
  const post = (url: string, body: unknown, token = 'atoms-token') =>
    fetch(`${url}/v1/runs`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, json: await r.json() as any }))

  test('the flag (from the current directory) and the config\'s "atoms" (from the config\'s directory): runs call both', async () => {
    writeFileSync(join(dir, 'greet.mjs'), `import { defineAtom, s } from ${JSON.stringify(SRC_INDEX)}\nexport default [defineAtom('greet', s.object({ name: s.string }), s.string, ({ name }) => 'hi ' + name, { sync: true })]\n`)
    const config = join(dir, 'atoms-serve.json')
    writeFileSync(config, JSON.stringify({ atoms: ['./greet.mjs'], tenants: [{ id: 'team', tokenSha256: tokenSha256('atoms-token'), context: { team: 'ops' } }] }))
    const s = startServe(['--config', config, '--pool-size', '1', '--atoms', './test/server/fixtures/atoms.mjs'])
    const url = await s.url
    expect(s.output().stderr).toContain('ajsc serve: custom atoms greet, double, weather')
    const r = await post(url, { source: 'function f({ c }) { return { g: greet({ name: c }), w: weather({ city: c }) } }', args: { c: 'Oslo' } })
    expect(r.json).toEqual({ result: { g: 'hi Oslo', w: 'Oslo: sunny (for ops)' }, fuelUsed: expect.any(Number) })
    const unknown = await post(url, { ast: { ajs: 1, op: 'seq', steps: [{ op: 'geocode', city: 'Oslo' }] } })
    expect([unknown.status, unknown.json.error.code]).toEqual([422, 'UNKNOWN_ATOM'])
    s.child.kill('SIGTERM')
    expect(await s.exited).toBe(0)
  })

  test('a module that fails to load stops serve and worker with the CLI\'s error, before anything listens or connects', () => {
    writeFileSync(join(dir, 'throws.mjs'), 'export const ready = true\nthrow new Error("no API key configured")\n')
    const r = ajsc(['serve', '--atoms', './throws.mjs', '--port', '0'], { cwd: dir, env: { AJS_SERVE_TOKEN: 't' } })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^\.\/throws\.mjs:2:\d+: error CLI_ATOMS_LOAD: the module failed to load: no API key configured$/m)
    expect(r.stderr).toContain('hint: Fix the module')
    expect(r.stdout).not.toContain('listening')
    const config = join(dir, 'plain.json')
    writeFileSync(config, JSON.stringify({ tenants: [{ id: 'x', tokenSha256: tokenSha256('x') }] }))
    // The database URL points nowhere: the module fails first.
    const w = ajsc(['worker', '--database', 'postgres://nobody@127.0.0.1:1/none', '--config', config, '--atoms', './throws.mjs'], { cwd: dir })
    expect(w.code).toBe(1)
    expect(w.stderr).toContain('error CLI_ATOMS_LOAD')
  })

  test('names alone, a missing module in the config, an allowlist naming no loaded atom: refused at start', () => {
    const names = ajsc(['serve', '--atoms', 'weather', '--port', '0'], { env: { AJS_SERVE_TOKEN: 't' } })
    expect(names.code).toBe(2)
    expect(names.stderr).toContain('--atoms weather: a run needs the atoms themselves, not only their names')
    const missing = join(dir, 'missing.json')
    writeFileSync(missing, JSON.stringify({ atoms: ['./nope.mjs'], tenants: [{ id: 'x', tokenSha256: tokenSha256('x') }] }))
    const m = ajsc(['serve', '--config', missing, '--port', '0'])
    expect(m.code).toBe(1)
    expect(m.stderr).toContain('error CLI_ATOMS_NOT_FOUND: --config')
    expect(m.stderr).toContain(`hint: Paths in the config's "atoms" are resolved from the config file's directory (${dir})`)
    const typo = join(dir, 'typo.json')
    writeFileSync(typo, JSON.stringify({ tenants: [{ id: 'x', tokenSha256: tokenSha256('x'), atoms: ['wether'] }] }))
    const t = ajsc(['serve', '--config', typo, '--port', '0', '--atoms', './test/server/fixtures/atoms.mjs'])
    expect(t.code).toBe(1)
    expect(t.stderr).toContain('error CLI_CONFIG')
    expect(t.stderr).toContain('config.tenants[0].atoms[0]: no custom atom "wether" (the loaded ones: double, weather)')
  })
})
