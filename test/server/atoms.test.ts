/**
 * Custom atoms on the server: the config's `atoms` modules (resolved from
 * the config file's directory) are imported by the host and by every pool
 * worker; sync and async runs, source and ASTs, stored procedures call them.
 * A tenant's `atoms` allowlist narrows them; atoms the server does not have
 * stay UNKNOWN_ATOM (AST) / AJS3002 (source). A broken module fails the start.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createServer, parseServeConfig, ServeConfigError, tokenSha256 } from '../../src/server/index.ts'
import { transpile } from '../../src/index.ts'
import { runFinished, startTestServer, type TestServer } from './helpers.ts'

const HERE = import.meta.dir
const CONFIG = {
  atoms: ['./fixtures/atoms.mjs'],
  tenants: [
    { id: 'all', tokenSha256: tokenSha256('all-token'), context: { team: 'ops' } },
    { id: 'limited', tokenSha256: tokenSha256('limited-token'), atoms: ['double'] },
  ],
}
const WEATHER = 'function f({ city }) { return { text: weather({ city }), twice: double({ n: 21 }) } }'
const weatherAst = transpile(WEATHER, { atoms: ['weather', 'double'] }).ast

let t: TestServer
let dir: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-serve-atoms-'))
  // The fixture path is relative: parseServeConfig resolves it from the config's directory (here, as a config file in test/server would).
  t = await startTestServer({ size: 2 }, parseServeConfig(CONFIG, { baseDir: HERE }))
})
afterAll(async () => {
  await t?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('a server with custom atoms', () => {
  test('the config resolves atom modules from its directory', () => {
    expect(parseServeConfig(CONFIG, { baseDir: HERE }).atoms).toEqual([resolve(HERE, 'fixtures/atoms.mjs')])
  })

  test('a sync run (source, and AST) calls them in a pool worker; the atom reads the tenant context', async () => {
    const bySource = await t.req('POST', '/v1/runs', { token: 'all-token', body: { source: WEATHER, args: { city: 'Oslo' } } })
    expect(bySource.status).toBe(200)
    expect(bySource.json.result).toEqual({ text: 'Oslo: sunny (for ops)', twice: 42 })
    const byAst = await t.req('POST', '/v1/runs', { token: 'all-token', body: { ast: weatherAst, args: { city: 'Rome' } } })
    expect(byAst.json.result).toEqual({ text: 'Rome: sunny (for ops)', twice: 42 })
  })

  test('an async run calls them too', async () => {
    const r = await t.req('POST', '/v1/runs?async=1', { token: 'all-token', body: { source: WEATHER, args: { city: 'Lima' } } })
    expect(r.status).toBe(202)
    const rec = await runFinished(t, r.json.id, 'all-token')
    expect(rec).toMatchObject({ state: 'done', result: { result: { text: 'Lima: sunny (for ops)', twice: 42 } } })
  })

  test('a procedure stored from source compiles against them and runs by token', async () => {
    const p = await t.req('POST', '/v1/procedures', { token: 'all-token', body: { source: WEATHER } })
    expect(p.status).toBe(201)
    const r = await t.req('POST', '/v1/runs', { token: 'all-token', body: { token: p.json.token, args: { city: 'Bern' } } })
    expect(r.json.result).toEqual({ text: 'Bern: sunny (for ops)', twice: 42 })
  })

  test('an atom the server does not have is still refused: UNKNOWN_ATOM for an AST, AJS3002 for source', async () => {
    const ast = await t.req('POST', '/v1/runs', { token: 'all-token', body: { ast: { ajs: 1, op: 'seq', steps: [{ op: 'geocode', city: 'Oslo' }] } } })
    expect([ast.status, ast.json.error.code]).toEqual([422, 'UNKNOWN_ATOM'])
    const source = await t.req('POST', '/v1/runs', { token: 'all-token', body: { source: 'function f() { return { at: geocode({ city: "Oslo" }) } }' } })
    expect([source.status, source.json.error.code]).toEqual([422, 'AJS3002'])
  })

  test('workflows call the tenant\'s custom atoms (results journaled; the atom reads the tenant context); the allowlist applies', async () => {
    const source = 'const w = await weather({ city: "Oslo" })\nconst d = double({ n: 4 })\nexport default { w, d }\n'
    const r = await t.req('POST', '/v1/workflows', { token: 'all-token', body: { source } })
    expect(r.status).toBe(201)
    let wf = r.json
    for (let i = 0; i < 200 && wf.state !== 'done' && wf.state !== 'failed'; i++) {
      await Bun.sleep(25)
      wf = (await t.req('GET', `/v1/workflows/${r.json.id}`, { token: 'all-token' })).json
    }
    expect(wf).toMatchObject({ state: 'done', result: { w: 'Oslo: sunny (for ops)', d: 8 } })
    const limited = await t.req('POST', '/v1/workflows', { token: 'limited-token', body: { source } })
    expect([limited.status, limited.json.error.code]).toEqual([422, 'AJS3002'])
  })

  test('a tenant\'s "atoms" allowlist: the others are unknown to its programs (runs and procedures)', async () => {
    const ok = await t.req('POST', '/v1/runs', { token: 'limited-token', body: { source: 'function f() { return { n: double({ n: 4 }) } }' } })
    expect(ok.json.result).toEqual({ n: 8 })
    const ast = await t.req('POST', '/v1/runs', { token: 'limited-token', body: { ast: weatherAst, args: { city: 'Oslo' } } })
    expect([ast.status, ast.json.error.code]).toEqual([422, 'UNKNOWN_ATOM'])
    const source = await t.req('POST', '/v1/runs', { token: 'limited-token', body: { source: WEATHER, args: { city: 'Oslo' } } })
    expect(source.json.error.code).toBe('AJS3002')
    const proc = await t.req('POST', '/v1/procedures', { token: 'limited-token', body: { source: WEATHER } })
    expect([proc.status, proc.json.error.code]).toEqual([422, 'AJS3002'])
  })
})

describe('atoms in the config are checked at start-up', () => {
  const start = (config: object, baseDir = HERE) => createServer({ config: parseServeConfig(config, { baseDir }), pool: { size: 1 } })
  const tenant = { id: 'x', tokenSha256: tokenSha256('x') }

  test('"atoms" holds module paths, not names', () => {
    expect(() => parseServeConfig({ atoms: ['weather'], tenants: [tenant] })).toThrow('config.atoms[0]: "weather" is not a module path')
    expect(() => parseServeConfig({ atoms: './atoms.mjs', tenants: [tenant] })).toThrow('config.atoms: must be an array of non-empty strings')
  })

  test('a module that fails to load fails the start with the CLI\'s error (code, hint)', async () => {
    writeFileSync(join(dir, 'throws.mjs'), 'export const ready = true\nthrow new Error("no API key configured")\n')
    const err = await start({ atoms: ['./throws.mjs'], tenants: [tenant] }, dir).then(() => null, (e: unknown) => e as { code: string; message: string; hint: string })
    expect(err).toMatchObject({ code: 'CLI_ATOMS_LOAD', message: 'the module failed to load: no API key configured' })
    expect(err!.hint).toContain('Fix the module')
    const missing = await start({ atoms: ['./nope.mjs'], tenants: [tenant] }, dir).then(() => null, (e: unknown) => e as { code: string })
    expect(missing?.code).toBe('CLI_ATOMS_NOT_FOUND')
  })

  test('a tenant allowlist naming an atom no module exports is a config error', async () => {
    const err = await start({ ...CONFIG, tenants: [{ ...tenant, atoms: ['double', 'wether'] }] }).then(() => null, (e: unknown) => e)
    expect(err).toBeInstanceOf(ServeConfigError)
    expect((err as Error).message).toBe('config.tenants[0].atoms[1]: no custom atom "wether" (the loaded ones: double, weather)')
  })
})
