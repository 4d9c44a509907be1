/** `parallel`: concurrent branches, joined results, first error wins and cancels the rest. */
import { describe, expect, test } from 'bun:test'
import { arr, assign, bin, call, const_, ex, id, let_, lit, mcall, obj, prog, ret, run, set, value } from './ast.ts'

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

/** The items form: `{ op: 'parallel', items, as, index?, steps }` runs `steps` once per item, concurrently. */
const each = (items: unknown, steps: any[], extra: Record<string, unknown> = {}) => ({ op: 'parallel', items, as: 'x', steps, result: 'out', ...extra })

describe('parallel over items', () => {
  test('one run per item, results in item order whatever order they finish in', async () => {
    const store = timedStore({ a: 20, b: 1, c: 8 })
    const ast = prog([each(arr(lit('a'), lit('b'), lit('c')), [ret(call('storeGet', obj({ key: id('x') })))]), ret(id('out'))])
    expect(await value(ast, {}, { capabilities: { store } })).toEqual(['A', 'B', 'C'])
    expect(store.events.slice(0, 3)).toEqual(['start a', 'start b', 'start c'])
    expect(store.events.slice(3)).toEqual(['end b', 'end c', 'end a'])
  })
  test('the index, and outer variables read as they were when the step started', async () => {
    const ast = prog([
      let_({ k: lit(10) }),
      each(arr(lit(1), lit(2), lit(3)), [let_({ y: bin('*', id('x'), id('k')) }), ret(bin('+', id('y'), id('i')))], { index: 'i' }),
      ret(id('out')),
    ])
    expect(await value(ast)).toEqual([10, 21, 32])
  })
  test('each run has its own copy of the variables declared inside it', async () => {
    // Every run declares `y`, waits, then reads it: with shared slots the later runs would overwrite the earlier ones.
    const store = timedStore({ a: 15, b: 5, c: 1 })
    const ast = prog([
      each(arr(lit('a'), lit('b'), lit('c')), [const_('y', id('x')), ex(call('storeGet', obj({ key: id('x') }))), ret(id('y'))]),
      ret(id('out')),
    ])
    expect(await value(ast, {}, { capabilities: { store } })).toEqual(['a', 'b', 'c'])
  })
  test('objects are shared by reference, as JS closures share them', async () => {
    const ast = prog([
      let_({ seen: arr() }),
      each(arr(lit(1), lit(2)), [ex(mcall(id('seen'), 'push', id('x'))), ret(id('x'))]),
      ret(mcall(id('seen'), 'sort')),
    ])
    expect(await value(ast)).toEqual([1, 2])
  })
  test('assigning a variable declared outside the body is refused before anything runs', async () => {
    const store = timedStore({})
    for (const step of [set('k', lit(1)), ex(assign(id('k'), lit(1))), ex({ $expr: 'update', op: '++', prefix: false, argument: id('k') }), { op: 'destructure', kind: 'assign', pattern: { $pattern: 'array', elements: ['k'] }, value: arr(lit(1)) }, { op: 'storeGet', key: 'a', result: 'k' }]) {
      const r = await run(prog([let_({ k: lit(0) }), ex(call('storeGet', obj({ key: lit('first') }))), each(arr(lit(1)), [step])]), {}, { capabilities: { store } })
      expect(r.error?.code).toBe('PARALLEL_ASSIGN')
      expect(r.error?.message).toContain('"k"')
    }
    expect(store.events).toEqual([])
  })
  test('a result or varSet of a new name inside the body stays inside it', async () => {
    const ast = prog([each(arr(lit(1), lit(2)), [ex(bin('*', id('x'), lit(3)), 'tmp'), set('fresh', id('tmp')), ret(id('fresh'))]), ret(id('out'))])
    expect(await value(ast)).toEqual([3, 6])
  })
  test('first error wins and cancels the other runs\' in-flight calls', async () => {
    const signals: AbortSignal[] = []
    const llm = {
      predict: (prompt: string, opts: { signal: AbortSignal }) => new Promise((resolve, reject) => {
        signals.push(opts.signal)
        if (prompt === 'bad') setTimeout(() => reject(new Error('item failed')), 5)
        else opts.signal.addEventListener('abort', () => reject(new Error('cancelled')))
      }),
    }
    const ast = prog([each(arr(lit('slow1'), lit('bad'), lit('slow2')), [ret(call('llmPredict', obj({ prompt: id('x') })))])])
    const r = await run(ast, {}, { capabilities: { llm } })
    expect(r.error?.message).toContain('item failed')
    expect(signals.length).toBe(3)
    expect(signals.every((s) => s.aborted)).toBe(true)
  })
  test('a failing sibling branch cancels the runs of a nested items step', async () => {
    const signals: AbortSignal[] = []
    const llm = {
      predict: (_p: string, opts: { signal: AbortSignal }) => new Promise((_resolve, reject) => {
        signals.push(opts.signal)
        opts.signal.addEventListener('abort', () => reject(new Error('cancelled')))
      }),
    }
    const store = timedStore({ boom: 5 }, { boom: 'outer branch failed' })
    const nested = each(arr(lit('p'), lit('q')), [ret(call('llmPredict', obj({ prompt: id('x') })))])
    const ast = prog([par([[nested, ret(id('out'))], [ret(get('boom'))]])])
    const r = await run(ast, {}, { capabilities: { llm, store } })
    expect(r.error?.message).toContain('outer branch failed')
    expect(signals.length).toBe(2)
    expect(signals.every((s) => s.aborted)).toBe(true)
  })
  test('after a caught failure of the enclosing parallel, nested runs make no further calls', async () => {
    const store = timedStore({ slow: 20, boom: 5, wait: 60 }, { boom: 'outer branch failed' })
    const nested = each(arr(lit('p'), lit('q')), [ex(get('slow')), ret(call('storeGet', obj({ key: bin('+', lit('after-'), id('x')) })))])
    const ast = prog([
      { op: 'try', try: [par([[nested, ret(id('out'))], [ret(get('boom'))]])], catchParam: 'e', catch: [] },
      ex(get('wait')),
      ret(lit('done')),
    ])
    expect(await value(ast, {}, { capabilities: { store } })).toBe('done')
    expect(store.events.filter((e) => e.startsWith('start after'))).toEqual([])
  })
  test('no items gives []; items that are not an array are a TYPE_ERROR', async () => {
    expect(await value(prog([each(arr(), [ret(lit(1))]), ret(id('out'))]))).toEqual([])
    const r = await run(prog([each(lit('abc'), [ret(id('x'))])]))
    expect(r.error?.code).toBe('TYPE_ERROR')
    expect(r.error?.message).toContain('parallel needs an array')
  })
  test('fuel is the same on every run and grows with the items', async () => {
    const ast = (n: number) => prog([each(arr(...Array.from({ length: n }, (_, i) => lit(i))), [ret(bin('+', id('x'), lit(1)))]), ret(id('out'))])
    const a = await run(ast(4)), b = await run(ast(4)), c = await run(ast(8))
    expect(a.fuelUsed).toBe(b.fuelUsed)
    expect(c.fuelUsed).toBeGreaterThan(a.fuelUsed)
    expect((await run(ast(50), {}, { fuel: 0.5 })).error?.code).toBe('FUEL_EXHAUSTED')
  })
  test('the two forms do not mix, and the items form needs its fields (validateAst)', async () => {
    const mixed = await run(prog([{ op: 'parallel', branches: [], items: arr(), as: 'x', steps: [] }]))
    expect(mixed.error?.code).toBe('AST_INVALID')
    expect(mixed.error?.details?.map((d) => d.path)).toEqual(['/steps/0/items', '/steps/0/as', '/steps/0/steps'])
    const partial = await run(prog([{ op: 'parallel', items: arr() }]))
    expect(partial.error?.details?.map((d) => d.message)).toEqual(['Op "parallel" needs field "as" with "items"', 'Op "parallel" needs field "steps" with "items"'])
    const none = await run(prog([{ op: 'parallel' }]))
    expect(none.error?.details?.[0]?.message).toBe('Op "parallel" needs "branches", or "items" + "as" + "steps"')
  })
})
