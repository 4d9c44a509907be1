/**
 * Issue 29, item 4: compile warnings (AJS4003, `==` without coercion) are not only for the CLI:
 * `RunResult.diagnostics` of `vm.run(source)` and of an AST `ajs`/`transpile` made, the server's
 * response to POST /v1/runs with source, and `transpile`'s `warnings`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { AgentVM, ajs, compileDiagnosticsOf, transpile } from '../../src/index.ts'
import { startTestServer, type TestServer } from '../server/helpers.ts'

const SOURCE = 'function f({ a }) {\n  return { same: a == 1 }\n}'
const AJS4003 = { severity: 'warning', code: 'AJS4003', line: 2, column: 18, location: '<ajs>:2:18' }

describe('4. compile warnings reach the run', () => {
  test('new AgentVM().run(source): RunResult.diagnostics has AJS4003, with a 1-based column like its location', async () => {
    const r = await new AgentVM().run(SOURCE, { a: 1 })
    expect(r.result).toEqual({ same: true })
    expect(r.diagnostics).toEqual([expect.objectContaining({ ...AJS4003, message: '`==` does not coerce types in AJS' })])
    expect(r.diagnostics![0]!.hint).toContain('===')
    expect(r.warnings).toBeUndefined() // runtime warnings stay apart
    // Cached source: the second run says it again.
    expect((await new AgentVM().run(SOURCE, { a: 2 })).diagnostics?.[0]?.code).toBe('AJS4003')
  })
  test('ajs and transpile: the AST they return carries its warnings to every run; its JSON is unchanged', async () => {
    const ast = ajs`function f({ a }) {
  return { same: a == 1 }
}`
    expect(compileDiagnosticsOf(ast)).toEqual([expect.objectContaining(AJS4003)])
    expect(JSON.stringify(ast)).not.toContain('AJS4003')
    const vm = new AgentVM()
    expect((await vm.run(ast, { a: 1 })).diagnostics?.[0]).toMatchObject(AJS4003)
    // An AST that came as JSON has no warnings to report (they were the compiler's).
    expect((await vm.run(JSON.parse(JSON.stringify(ast)), { a: 1 })).diagnostics).toBeUndefined()
    const { warnings } = transpile(SOURCE, { filename: 'f.ajs' })
    expect(warnings.map((w) => w.code)).toEqual(['AJS4003'])
    // Strict equality: nothing to say.
    expect((await vm.run('function f({ a }) { return { same: a === 1 } }', { a: 1 })).diagnostics).toBeUndefined()
  })
})

describe('4. the server reports them', () => {
  let t: TestServer
  beforeAll(async () => { t = await startTestServer({ size: 1 }) })
  afterAll(() => t.close())
  test('POST /v1/runs with source: diagnostics in the response', async () => {
    const r = await t.req('POST', '/v1/runs', { body: { source: SOURCE, args: { a: 1 } } })
    expect(r.status).toBe(200)
    expect(r.json.result).toEqual({ same: true })
    expect(r.json.diagnostics).toEqual([expect.objectContaining({ code: 'AJS4003', line: 2, column: 18 })])
  })
})
