/** The workflow module format: shape checks, meta, globals, refusals with located AJS5xxx codes. */
import { expect, test } from 'bun:test'
import { compileWorkflow, readWorkflowMeta, startWorkflow, type WorkflowRequest } from '../../src/workflows/index.ts'
import { TranspileError } from '../../src/diagnostics/index.ts'
import { drive } from './helpers.ts'

function refusal(source: string): TranspileError {
  try {
    compileWorkflow(source, { sourceName: 'w.ajs' })
  } catch (e) {
    if (e instanceof TranspileError) return e
    throw e
  }
  throw new Error('expected a TranspileError')
}

test('meta is read without running anything; computed meta is refused where it is computed', () => {
  const src = `export const meta = { name: 'triage', version: 2, tags: ['a', 'b'], limits: { n: -1, on: true, none: null }, note: \`plain\` }\nwhile (true) {}`
  expect(readWorkflowMeta(src)).toEqual({ name: 'triage', version: 2, tags: ['a', 'b'], limits: { n: -1, on: true, none: null }, note: 'plain' })
  expect(compileWorkflow(src).meta).toEqual(readWorkflowMeta(src))
  expect(readWorkflowMeta('export default 1')).toEqual({})
  const e = refusal(`const v = 1\nexport const meta = { name: 'x', version: v }`)
  expect([e.code, e.line, e.column]).toEqual(['AJS5003', 2, 42])
  expect(() => readWorkflowMeta(`export const meta = { a: 1 + 1 }`)).toThrow(TranspileError)
})

test('shape refusals are located AJS5xxx errors with a hint', () => {
  const cases: Array<[string, string, number, number]> = [
    [`import { readFile } from 'fs'`, 'AJS5001', 1, 25],
    [`import { agent } from 'workflow:extra'`, 'AJS5001', 1, 9],
    [`export const x = 1`, 'AJS5002', 1, 0],
    [`export default 1\nlog('after')`, 'AJS5004', 2, 0],
    [`const x = await 5`, 'AJS5005', 1, 10],
    [`const t = Date.now()`, 'AJS5006', 1, 10],
    [`const t = new Date().toISOString()`, 'AJS5006', 1, 10],
    [`await sleep(10)`, 'AJS5007', 1, 6],
    [`await agent()`, 'AJS5007', 1, 6],
    [`await agent(...xs)`, 'AJS5007', 1, 6],
    [`const b = budget`, 'AJS5008', 1, 10],
    [`const agent = 1`, 'AJS5009', 1, 6],
    [`function log() {}`, 'AJS5009', 1, 9],
    [`const r = [1].concat(await parallel([() => agent('a')]))`, 'AJS5010', 1, 27],
    [`const r = await parallel(tasks)`, 'AJS5010', 1, 25],
    [`let n = 0\nconst r = await parallel([() => { n = 1; return agent('a') }])`, 'AJS5010', 2, 34],
    [`const x = undefinedThing + 1`, 'AJS3001', 1, 10],
  ]
  for (const [source, code, line, column] of cases) {
    const e = refusal(source)
    expect({ source, code: e.code, line: e.line, column: e.column }).toEqual({ source, code, line, column })
    expect(e.hint.length).toBeGreaterThan(0)
    expect(String(e)).toContain(`w.ajs:${line}:${column + 1}`)
  }
})

test('globals: args everywhere (also in helpers), budget readers, Math.random seeded, export default function', async () => {
  const src = `function label(x) { return args.prefix + x }
export default async function main(a) {
  const r = await agent(label('q'))
  return { r, same: a.prefix === args.prefix, total: budget.total, left: budget.remaining() }
}`
  const ex = startWorkflow(src, { args: { prefix: '>' } })
  const { result, seen } = await drive(ex, (r) => ({ Ok: (r as { prompt: string }).prompt }))
  expect(result).toEqual({ r: '>q', same: true, total: null, left: Infinity })
  expect(seen.some((p) => typeof p === 'object' && 'Request' in p && (p.Request as { prompt: string }).prompt === '>q')).toBe(true)
  const seeded = (seed: number) => drive(startWorkflow('export default [Math.random(), random({ min: 1, max: 6 })]', { seed }), () => 'OkUndefined')
  expect((await seeded(7)).result).toEqual((await seeded(7)).result)
  expect((await seeded(7)).result).not.toEqual((await seeded(8)).result)
})

test('parallel runs literal tasks and mapped tasks concurrently; a failed task gives null', async () => {
  const src = `const prefix = 'p:'
const [a, b] = await parallel([() => agent(prefix + 'a'), async () => { const x = await agent('b'); return x + '!' }])
const notes = await parallel(args.files.map((f, i) => () => agent(prefix + f + i)))
export default { a, b, notes }`
  const ex = startWorkflow(src, { args: { files: ['f1', 'f2', 'f3'] } })
  const first = await ex.poll()
  expect(typeof first === 'object' && 'Request' in first).toBe(true)
  const batch1 = ex.takePendingRequests()
  expect(batch1.map((r) => (r as { prompt: string }).prompt)).toEqual(['p:a', 'b'])
  for (const r of batch1) ex.resolveRequest(r.id, { Ok: (r as { prompt: string }).prompt.toUpperCase() })
  await ex.poll()
  const batch2 = ex.takePendingRequests() as Array<WorkflowRequest & { prompt: string }>
  expect(batch2.map((r) => r.prompt)).toEqual(['p:f10', 'p:f21', 'p:f32'])
  // Resolved out of order; the second one fails.
  ex.resolveRequest(batch2[2]!.id, { Ok: 'three' })
  ex.resolveRequest(batch2[1]!.id, { Err: { message: 'down' } })
  ex.resolveRequest(batch2[0]!.id, { Ok: 'one' })
  expect(await ex.poll()).toEqual({ Complete: { result: { a: 'P:A', b: 'B!', notes: ['one', null, 'three'] } } })
})

test('pipeline passes each item through the stages; items run concurrently', async () => {
  const src = `export default await pipeline(args.items, (v) => agent('draft ' + v), (d, i) => agent('polish ' + d + i))`
  const ex = startWorkflow(src, { args: { items: ['x', 'y'] } })
  const { result } = await drive(ex, (r) => ({ Ok: (r as { prompt: string }).prompt.toUpperCase() }))
  expect(result).toEqual(['POLISH DRAFT X0', 'POLISH DRAFT Y1'])
  const notArray = startWorkflow(`export default await pipeline(args.items, (v) => v)`, { args: { items: 3 } })
  await expect(notArray.poll()).rejects.toMatchObject({ code: 'WORKFLOW_FAILED', cause: { code: 'THROWN' } })
})

test('a parallel workflow replays and resumes to the same result', async () => {
  const { resumeWorkflow } = await import('../../src/workflows/index.ts')
  const src = `const out = await parallel(args.n.map((k) => () => agent('k' + k)))\nexport default out`
  const ex = startWorkflow(src, { args: { n: [1, 2, 3, 4] } })
  await ex.poll()
  const batch = ex.takePendingRequests()
  ex.resolveRequest(batch[3]!.id, { Ok: 4 })
  ex.resolveRequest(batch[1]!.id, { Ok: 2 })
  await ex.poll()
  const resumed = await resumeWorkflow(src, ex.journal())
  ex.dispose()
  await resumed.poll()
  const again = resumed.takePendingRequests().map((r) => r.id)
  expect(again.sort()).toEqual([batch[0]!.id, batch[2]!.id].sort())
  resumed.resolveRequest(batch[0]!.id, { Ok: 1 })
  resumed.resolveRequest(batch[2]!.id, { Ok: 3 })
  expect(await resumed.poll()).toEqual({ Complete: { result: [1, 2, 3, 4] } })
})
