/**
 * MCP tools as atoms of the hosts (issue 25): `ajsc run|build --mcp`, and
 * `ajsc serve` with the config's `mcp` (the host connects once; pool workers
 * proxy calls over the host bridge), per-tenant allowlists, closed on exit.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from '../cli/run-cli.ts'
import { parseServeConfig, ServeConfigError, tokenSha256 } from '../../src/server/index.ts'
import { startTestServer, type TestServer } from '../server/helpers.ts'
import { SERVER, startHttpServer } from './helpers.ts'

const MCP = `${process.execPath} ${SERVER}`
let dir: string
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'ajs-codemode-hosts-')) })
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const PROGRAM = `function agent({ city }) {
  const w = get_weather_2({ city })
  let removed
  try { removed = delete_({ id: 'draft-1' }) } catch (e) { removed = e.code + ': ' + e.message }
  let failed
  try { fail({ reason: 'no quota' }) } catch (e) { failed = e.message }
  return { temp: w.temp, removed, failed }
}`

describe('ajsc run --mcp', () => {
  test('the tools are atoms; a destructive tool waits for approval (--approve-all / --deny-all / no terminal)', () => {
    const file = join(dir, 'agent.ajs')
    writeFileSync(file, PROGRAM)
    const approved = ajsc(['run', file, '--mcp', MCP, '--args', '{"city":"Faro"}', '--approve-all'])
    expect(approved.code).toBe(0)
    expect(JSON.parse(approved.stdout)).toEqual({ temp: 24, removed: 'deleted draft-1', failed: 'fail: no quota' })
    expect(approved.stderr).toContain('approval: delete_ (MCP codemode-test/delete) {"id":"draft-1"}: approved (--approve-all)')

    const denied = ajsc(['run', file, '--mcp', MCP, '--args', '{"city":"Faro"}', '--deny-all'])
    expect(JSON.parse(denied.stdout).removed).toBe('APPROVAL_REJECTED: delete_: the call was not approved: denied by --deny-all')

    // stdin is not a terminal here: nobody to ask, so the call is denied and the run says why.
    const asked = ajsc(['run', file, '--mcp', MCP, '--args', '{"city":"Faro"}'])
    expect(JSON.parse(asked.stdout).removed).toBe('APPROVAL_REJECTED: delete_: the call was not approved: no terminal to ask for approval')
    expect(asked.stderr).toContain('pass --approve-all or --deny-all')
  }, 30_000)

  test('the program is type-checked against the tools before it runs', () => {
    const file = join(dir, 'typo.ajs')
    writeFileSync(file, 'function f() { return get_weather_2({ town: "Faro" }) }')
    const r = ajsc(['run', file, '--mcp', MCP, '--json'])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).diagnostics.map((d: { code: string }) => d.code)).toEqual(['AJS6001', 'AJS6003'])
  }, 30_000)
})

describe('ajsc build --mcp', () => {
  test('compiles against the tools (names and schemas)', () => {
    const file = join(dir, 'build.ajs')
    writeFileSync(file, PROGRAM)
    const ok = ajsc(['build', file, '--mcp', MCP])
    expect(ok.code).toBe(0)
    expect(readFileSync(join(dir, 'build.json'), 'utf8')).toContain('"delete_"')
    const without = ajsc(['build', file, '--json'])
    expect(without.code).toBe(1)
    writeFileSync(file, 'function f() { return search_docs({ query: 1 }) }')
    const bad = ajsc(['build', file, '--mcp', MCP, '--json'])
    expect(JSON.parse(bad.stdout).diagnostics[0].code).toBe('AJS6002')
  }, 30_000)
})

describe('ajsc serve with MCP servers', () => {
  let t: TestServer
  let http: Awaited<ReturnType<typeof startHttpServer>>
  beforeAll(async () => {
    http = await startHttpServer()
    t = await startTestServer({ size: 2 }, parseServeConfig({
      mcp: [{ command: process.execPath, args: [SERVER] }, { url: http.url, prefix: 'web_', include: ['search.docs'] }],
      tenants: [
        { id: 'all', tokenSha256: tokenSha256('all-token') },
        { id: 'readonly', tokenSha256: tokenSha256('ro-token'), atoms: ['get_weather_2', 'web_search_docs'] },
      ],
    }))
  }, 30_000)
  afterAll(async () => { await t?.close(); http?.stop() })

  test('a run in a pool worker calls the tools through the host; tool errors are catchable', async () => {
    const r = await t.req('POST', '/v1/runs', { token: 'all-token', body: { source: `function f({ city }) {
      const w = get_weather_2({ city })
      let failed
      try { fail({ reason: 'boom' }) } catch (e) { failed = e.message }
      return { temp: w.temp, hits: web_search_docs({ query: 'fuel' }).total, failed }
    }`, args: { city: 'Oslo' } } })
    expect(r.status).toBe(200)
    expect(r.json.result).toEqual({ temp: 3, hits: 1, failed: 'fail: boom' })
  })

  test('a tenant\'s allowlist narrows the tools (others are unknown atoms)', async () => {
    const ok = await t.req('POST', '/v1/runs', { token: 'ro-token', body: { source: 'function f() { return get_weather_2({ city: "Faro" }).temp }' } })
    expect(ok.json.result).toBe(24)
    const refused = await t.req('POST', '/v1/runs', { token: 'ro-token', body: { source: 'function f() { return delete_({ id: "x" }) }' } })
    expect(refused.status).toBe(422)
    expect(JSON.stringify(refused.json)).toContain('delete_')
  })

  test('an allowlist naming no tool fails the start', async () => {
    const config = parseServeConfig({ mcp: [{ command: process.execPath, args: [SERVER] }], tenants: [{ id: 'a', tokenSha256: tokenSha256('x'), atoms: ['get_wether'] }] })
    await expect(startTestServer({ size: 1 }, config)).rejects.toBeInstanceOf(ServeConfigError)
  }, 20_000)

  test('the config is checked', () => {
    expect(() => parseServeConfig({ mcp: [{ command: 'x', url: 'http://a' }], tenants: [{ id: 'a', tokenSha256: tokenSha256('x') }] })).toThrow('config.mcp[0]: needs exactly one of "command" (stdio) and "url" (streamable HTTP)')
    expect(() => parseServeConfig({ mcp: [{ command: 'x', approval: 'some' }], tenants: [{ id: 'a', tokenSha256: tokenSha256('x') }] })).toThrow('config.mcp[0].approval')
  })
})
