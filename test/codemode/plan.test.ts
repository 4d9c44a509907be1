/** analyzeProgram: the plan of a corpus of programs, checked against hand-computed bounds. */
import { describe, expect, test } from 'bun:test'
import { defineAtom, s, transpile } from '../../src/index.ts'
import { analyzeProgram } from '../../src/codemode/index.ts'

const lookup = defineAtom('lookup', s.object({ id: s.string }), s.any, async () => null, { effects: 'pure' })
const notify = defineAtom('notify', s.object({ text: s.string }), s.any, async () => null)
const atoms = { lookup, notify }
const plan = (src: string) => analyzeProgram(transpile(src, { atoms }).ast, atoms)
const calls = (src: string) => Object.fromEntries(Object.entries(plan(src).atoms).map(([op, a]) => [op, a.calls]))

describe('analyzeProgram: bounds', () => {
  test('straight-line calls with static arguments', () => {
    const p = plan('function f({ id }) {\n  const a = lookup({ id: "x" })\n  notify({ text: id })\n  return { a }\n}')
    expect(p.calls).toEqual([
      { op: 'lookup', loc: '2:12', args: { id: 'x' }, dynamic: [], effects: 'pure', loops: [], inLoop: false, calls: 1 },
      { op: 'notify', loc: '3:2', args: {}, dynamic: ['text'], effects: 'io', loops: [], inLoop: false, calls: 1 },
    ])
    expect(p.io).toEqual(['notify'])
  })
  test('constant loops multiply', () => {
    expect(calls('function f() { for (let i = 0; i < 3; i++) { for (let j = 1; j <= 4; j++) { notify({ text: "a" }) } } notify({ text: "b" }); return {} }')).toEqual({ notify: 13 })
    expect(calls('function f() { for (const x of ["a", "b"]) { lookup({ id: x }) } return {} }')).toEqual({ lookup: 2 })
  })
  test('loops over inputs give formulas', () => {
    expect(calls('function f({ ids, tags }) { for (const id of ids) { lookup({ id }); for (const t of tags) { notify({ text: t }) } } return {} }'))
      .toEqual({ lookup: 'len(ids)', notify: 'len(ids) * len(tags)' })
    expect(calls('function f({ q }) { for (let i = 0; i < q.items.length; i++) { lookup({ id: "a" }) } return {} }')).toEqual({ lookup: 'len(q.items)' })
    expect(calls('function f({ ids }) { const r = ids.map(id => lookup({ id })); lookup({ id: "z" }); return { r } }')).toEqual({ lookup: 'len(ids) + 1' })
  })
  test('while loops, loops over results and recursion are unbounded, named', () => {
    const p = plan('function f({ n }) {\n  while (n > 0) {\n    notify({ text: "x" })\n    n -= 1\n  }\n  return {}\n}')
    expect(p.atoms.notify).toMatchObject({ calls: 'unbounded', unboundedBy: 'while at 2:2' })
    expect(plan('function f() { const r = lookup({ id: "a" }); for (const x of r) { notify({ text: x }) } return {} }').atoms.notify?.unboundedBy).toMatch(/^for\.\.\.of at /)
    const rec = plan('function walk(n) { if (n > 0) { lookup({ id: "a" }); walk(n - 1) } return 0 }\nfunction f() { walk(3); return {} }')
    expect(rec.atoms.lookup).toMatchObject({ calls: 'unbounded', unboundedBy: 'recursion of walk' })
  })
  test('helpers are followed; Promise.all over an input', async () => {
    const p = plan('function get(id) { return lookup({ id }) }\nasync function f({ ids }) {\n  get("a"); get("b")\n  const rs = await Promise.all(ids.map(async (id) => notify({ text: id })))\n  return { rs }\n}')
    expect(p.atoms).toEqual({
      lookup: { effects: 'pure', known: true, sites: 2, calls: 2 },
      notify: { effects: 'io', known: true, sites: 1, calls: 'len(ids)' },
    })
    expect(p.calls[0]!.helper).toBe('get')
  })
  test('reach: network, store, model, sub-agent', () => {
    const p = plan('function f() { storeSet({ key: "a", value: 1 }); const r = httpFetch({ url: "https://x.test" }); llmPredict({ prompt: "hi" }); return { r } }')
    expect(p.reaches).toEqual({ network: true, store: true, model: true, subAgent: false, procedures: false, mcp: [] })
    expect(p.calls.find((c) => c.op === 'httpFetch')?.args).toEqual({ url: 'https://x.test' })
  })
})

describe('ajsc check --plan', () => {
  test('the plan of a program against an MCP server, in the JSON report', async () => {
    const { ajsc } = await import('../cli/run-cli.ts')
    const { SERVER } = await import('./helpers.ts')
    const r = ajsc(['check', 'test/codemode/fixtures/plan.ajs', '--mcp', `${process.execPath} ${SERVER}`, '--plan', '--json'])
    expect(r.code).toBe(0)
    const { plan } = JSON.parse(r.stdout).files[0]
    expect(plan.atoms.get_weather_2).toEqual({ effects: 'io', known: true, sites: 1, calls: 'len(cities)', mcp: { server: 'codemode-test', tool: 'get-weather' } })
    expect(plan.calls[1]).toMatchObject({ op: 'delete_', args: { id: 'old' }, calls: 1 })
    expect(plan.reaches.mcp).toEqual(['codemode-test'])
  })
})
