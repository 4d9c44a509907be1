/**
 * `Promise.all` and async/await: each program runs as JavaScript (its atoms
 * as async JS functions, through `new Function`, in tests only) and on the
 * VM (the same atoms made by defineAtom), and the results must agree. The
 * atoms record when each call starts and ends, so concurrency is compared
 * too: every call of one Promise.all starts before any of them ends.
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM, defineAtom, s } from '../../src/index.ts'
import { transpile } from '../../src/transpiler/index.ts'
import { normalize } from './differential/harness.ts'

interface Log { events: string[] }

/** `slow({ n, ms })`: n * 2 after ms milliseconds; n === 99 fails. */
function slowImpl(log: Log) {
  return async ({ n, ms = 5 }: { n: number; ms?: number }) => {
    log.events.push(`start ${n}`)
    await new Promise((r) => setTimeout(r, ms))
    log.events.push(`end ${n}`)
    if (n === 99) throw new Error('boom')
    return n * 2
  }
}

async function runNative(source: string, args: Record<string, unknown>): Promise<{ outcome: unknown; events: string[] }> {
  const log: Log = { events: [] }
  const { signature } = transpile(source)
  const body = source.replace(/^export default /m, '')
  const entry = new Function('slow', `"use strict";\n${body}\nreturn ${signature.name}`)(slowImpl(log)) as (a: unknown) => Promise<unknown>
  try {
    return { outcome: { ok: true, value: normalize(await entry(structuredClone(args))) }, events: log.events }
  } catch (e) {
    return { outcome: { ok: false, message: (e as Error).message }, events: log.events }
  }
}

async function runAjs(source: string, args: Record<string, unknown>): Promise<{ outcome: unknown; events: string[] }> {
  const log: Log = { events: [] }
  const slow = defineAtom('slow', s.object({ n: s.number, ms: s.number.optional }), s.number, slowImpl(log) as never)
  const vm = new AgentVM({ slow })
  const r = await vm.run(transpile(source).ast, args, { fuel: 1000 })
  // A failing atom's error says which atom failed ("slow: boom"); JS says "boom".
  const outcome = r.error ? { ok: false, message: r.error.message.replace(/^slow: /, '') } : { ok: true, value: normalize(r.result) }
  return { outcome, events: log.events }
}

const CASES: Array<{ name: string; source: string; args?: Record<string, unknown> }> = [
  {
    name: 'an array of calls, destructured',
    source: `async function twice(n) { return (await slow({ n, ms: 10 })) * 10 }
async function main() {
  const [a, b, c, d] = await Promise.all([slow({ n: 1, ms: 20 }), twice(2), 7, slow({ n: 3, ms: 1 })])
  return { a, b, c, d }
}`,
  },
  {
    name: 'items.map with the index and an outer constant',
    args: { xs: [3, 1, 2] },
    source: `async function main({ xs }) {
  const bonus = 100
  const out = await Promise.all(xs.map(async (x, i) => {
    const v = await slow({ n: x, ms: x * 5 })
    return v + i * bonus
  }))
  return out
}`,
  },
  {
    name: 'items.map of a helper, and an expression callback',
    args: { xs: [4, 5] },
    source: `async function grow(x, i) { return (await slow({ n: x })) + i }
async function main({ xs }) {
  const a = await Promise.all(xs.map(grow))
  const b = await Promise.all(xs.map((x) => slow({ n: x + 1 })))
  return { a, b }
}`,
  },
  {
    name: 'destructured items, a default, and an object the calls share',
    args: { jobs: [{ id: 'p', n: 1 }, { id: 'q' }] },
    source: `async function main({ jobs }) {
  const seen = []
  const out = await Promise.all(jobs.map(async ({ id, n = 9 }) => {
    seen.push(id)
    return id + ':' + (await slow({ n }))
  }))
  return { out, seen: seen.sort() }
}`,
  },
  {
    name: 'nested Promise.all, and Promise.all in a loop',
    args: { rows: [[1, 2], [3]] },
    source: `async function main({ rows }) {
  const sums = []
  for (const row of rows) {
    const vs = await Promise.all(row.map((n) => slow({ n })))
    sums.push(vs.reduce((a, b) => a + b, 0))
  }
  const grid = await Promise.all(rows.map(async (row) => {
    const inner = await Promise.all(row.map((n) => slow({ n, ms: 1 })))
    return inner.length
  }))
  return { sums, grid }
}`,
  },
  {
    name: 'assignment, return and statement positions; several declarators',
    args: { xs: [1, 2] },
    source: `async function main({ xs }) {
  let r = null
  r = await Promise.all(xs.map((x) => slow({ n: x })))
  let first = 1, [p, q] = await Promise.all([slow({ n: 5 }), slow({ n: 6 })]), total = p + q + first
  await Promise.all([slow({ n: 7 })])
  return await Promise.all([r, total])
}`,
  },
  {
    name: 'the first error wins and is caught',
    source: `async function main() {
  try {
    await Promise.all([slow({ n: 1, ms: 30 }), slow({ n: 99, ms: 1 })])
    return 'no error'
  } catch (error) {
    // The VM names the failing atom in its message ("slow: boom"); the text of the error is the same.
    return 'caught ' + error.message.endsWith('boom')
  }
}`,
  },
  {
    name: 'an uncaught error ends the run',
    args: { xs: [1, 99] },
    source: `async function main({ xs }) {
  return Promise.all(xs.map((x) => slow({ n: x })))
}`,
  },
  {
    name: 'for await over values, await of a plain value',
    args: { xs: [1, 2] },
    source: `async function main({ xs }) {
  let total = await 0
  for await (const x of xs) total += await slow({ n: x })
  return total
}`,
  },
]

describe('Promise.all and async/await agree with JavaScript', () => {
  for (const c of CASES) {
    test(c.name, async () => {
      const args = c.args ?? {}
      const [js, ajs] = [await runNative(c.source, args), await runAjs(c.source, args)]
      expect(ajs.outcome).toEqual(js.outcome)
      expect(ajs.events.slice().sort()).toEqual(js.events.slice().sort())
    })
  }

  test('the calls of one Promise.all all start before any of them ends', async () => {
    const source = `async function main({ xs }) { return await Promise.all(xs.map((x) => slow({ n: x, ms: 10 }))) }`
    for (const side of [runNative, runAjs]) {
      const { events } = await side(source, { xs: [1, 2, 3] })
      expect(events.slice(0, 3)).toEqual(['start 1', 'start 2', 'start 3'])
    }
  })
})

describe('AJS style: no async, no await', () => {
  test('Promise.all without await gives the values (every call waits in AJS)', async () => {
    const source = `function main({ xs }) {
  const [a, b] = Promise.all([slow({ n: 1 }), slow({ n: 2 })])
  const rs = Promise.all(xs.map((x) => slow({ n: x })))
  return { a, b, rs }
}`
    expect((await runAjs(source, { xs: [3, 4] })).outcome).toEqual({ ok: true, value: { a: 2, b: 4, rs: [6, 8] } })
  })
})

describe('the lowered AST', () => {
  test('an array becomes the branches form, a map the items form, each before the statement that reads it', () => {
    const { ast } = transpile(`async function main({ xs }) {
  const [a, b] = await Promise.all([f({ n: 1 }), f({ n: 2 })])
  return Promise.all(xs.map(async (x, i) => f({ n: x + i })))
}`)
    const [branches, destructure, items, ret] = ast.steps as any[]
    expect(branches.op).toBe('parallel')
    expect(branches.branches.map((b: any[]) => b.map((s) => s.op))).toEqual([['return'], ['return']])
    expect(destructure).toMatchObject({ op: 'destructure', value: { $expr: 'ident', name: branches.result } })
    expect(items).toMatchObject({ op: 'parallel', items: { $expr: 'ident', name: 'xs' }, as: 'x', index: 'i' })
    expect(items.steps.map((s: any) => s.op)).toEqual(['return'])
    expect(ret).toMatchObject({ op: 'return', value: { $expr: 'ident', name: items.result } })
  })

  test('the names it keeps values in never clash with the source\'s', () => {
    const { ast } = transpile(`function main() {
  const all$1 = 'mine'
  const r = Promise.all([f({})])
  return { all$1, r }
}`)
    const step = (ast.steps as any[]).find((s) => s.op === 'parallel')
    expect(step.result).not.toBe('all$1')
  })

  test('an error inside a Promise.all callback points at its line', async () => {
    const source = `function main({ xs }) {
  return Promise.all(xs.map((x) =>
    JSON.parse(x)))
}`
    const r = await new AgentVM().run(transpile(source).ast, { xs: ['[1]', '{'] })
    expect(r.error?.code).toBe('JSON_ERROR')
    expect(r.error?.line).toBe(3)
  })
})
