/** `parallel`: concurrent branches, joined results, first error wins and cancels the rest. */
import { describe, expect, test } from 'bun:test'
import { arr, bin, call, ex, id, let_, lit, obj, prog, ret, run, value } from './ast.ts'

const par = (branches: any[][], result = 'out') => ({ op: 'parallel', branches, result })
const get = (key: string) => call('storeGet', obj({ key: lit(key) }))

/** A store whose `get` resolves after `ms`, or waits for the signal when ms < 0. Records aborts. */
function timedStore(delays: Record<string, number>, fail: Record<string, string> = {}) {
  const events: string[] = []
  const signals: Record<string, AbortSignal> = {}
  const get = (key: string) => new Promise((resolve, reject) => {
    events.push(`start ${key}`)
    const ms = delays[key] ?? 0
    const done = () => {
      if (fail[key]) { events.push(`fail ${key}`); reject(new Error(fail[key])) } else { events.push(`end ${key}`); resolve(key.toUpperCase()) }
    }
    if (ms >= 0) setTimeout(done, ms)
  })
  return { events, signals, get }
}

describe('parallel', () => {
  test('joins the branches\' return values in branch order', async () => {
    const store = timedStore({ a: 20, b: 1, c: 5 })
    const ast = prog([par([[ret(get('a'))], [ret(get('b'))], [ret(get('c'))]]), ret(id('out'))])
    expect(await value(ast, {}, { capabilities: { store } })).toEqual(['A', 'B', 'C'])
  })
  test('branches really run concurrently (all start before any ends)', async () => {
    const store = timedStore({ a: 15, b: 15 })
    await value(prog([par([[ret(get('a'))], [ret(get('b'))]])]), {}, { capabilities: { store } })
    expect(store.events.slice(0, 2).sort()).toEqual(['start a', 'start b'])
  })
  test('a branch without return gives undefined; branches share variables and fuel', async () => {
    const ast = prog([
      let_({ shared: lit(0) }),
      par([[ex({ $expr: 'assign', op: '+=', target: id('shared'), value: lit(1) })], [ex({ $expr: 'assign', op: '+=', target: id('shared'), value: lit(10) }), ret(lit('b'))]]),
      ret(arr(id('out'), id('shared'))),
    ])
    expect(await value(ast)).toEqual([[undefined, 'b'], 11])
  })
  test('a return in a branch gives that branch\'s value, not the program\'s', async () => {
    const ast = prog([par([[ret(lit(1))], [ret(lit(2))]]), ret(bin('+', { $expr: 'member', object: id('out'), property: lit(0), computed: true }, lit(100)))])
    expect(await value(ast)).toBe(101)
  })
  test('first error wins; the other branch\'s in-flight capability call is cancelled', async () => {
    const seen: { signal?: AbortSignal } = {}
    const store = {
      get: (key: string, ..._rest: unknown[]) => new Promise((resolve, reject) => {
        if (key === 'fast-fail') setTimeout(() => reject(new Error('branch failed')), 5)
        else setTimeout(() => resolve('late'), 2000)
      }),
    }
    // llm.predict receives the signal explicitly: use it as the slow branch to observe cancellation.
    const llm = {
      predict: (_p: string, opts: { signal: AbortSignal }) => new Promise((_resolve, reject) => {
        seen.signal = opts.signal
        opts.signal.addEventListener('abort', () => reject(new Error('cancelled')))
      }),
    }
    const ast = prog([par([[ret(call('llmPredict', obj({ prompt: lit('slow') })))], [ret(get('fast-fail'))]])])
    const r = await run(ast, {}, { capabilities: { store, llm } })
    expect(r.error?.code).toBe('CAPABILITY_ERROR')
    expect(r.error?.message).toContain('branch failed')
    expect(seen.signal?.aborted).toBe(true)
  })
  test('the error of a parallel step is catchable', async () => {
    const store = timedStore({ a: 1 }, { a: 'nope' })
    const ast = prog([{ op: 'try', try: [par([[ret(get('a'))], [ret(lit(2))]])], catchParam: 'e', catch: [ret({ $expr: 'member', object: id('e'), property: 'code' })] }])
    expect(await value(ast, {}, { capabilities: { store } })).toBe('CAPABILITY_ERROR')
  })
  test('a thrown guest error in one branch', async () => {
    const ast = prog([par([[{ op: 'throw', value: 'x' }], [ret(lit(1))]])])
    const r = await run(ast)
    expect(r.error?.code).toBe('THROWN')
    expect(r.error?.value).toBe('x')
  })
  test('empty parallel gives []', async () => {
    expect(await value(prog([par([]), ret(id('out'))]))).toEqual([])
  })
})
