/**
 * Aborts reach pure loops (issue 11, point 4): a synchronous run that held
 * the thread for a time slice lets the event loop turn, so a host timer can
 * abort it; the `interrupt` option stops a run from another thread. Pausing
 * never changes results or fuel.
 */
import { describe, expect, test } from 'bun:test'
import { Worker } from 'node:worker_threads'
import { AgentVM, defineAtom, s, transpile } from '../../src/index.ts'

const vm = new AgentVM()
const compile = (src: string) => transpile(src).ast

describe('AbortSignal reaches pure loops (the seed\'s example)', () => {
  const spins: Array<[string, string]> = [
    ['while (true) in the entry', 'function main() { while (true) {} }'],
    ['for (;;) with a body', 'function main() { let i = 0; for (;;) { i = i + 1 } }'],
    ['counting loop that never ends', 'function main() { let n = 0; for (let i = 0; i >= 0; i++) { n += 1 } return n }'],
    ['do...while (true)', 'function main() { let i = 0; do { i++ } while (true) }'],
    ['nested loops', 'function main() { let t = 0; while (true) { for (let i = 0; i < 100; i++) { t += i } } }'],
    ['loop inside try/catch and if', 'function main({ go }) { try { if (go) { while (true) {} } } catch (e) { return "caught" } }'],
  ]
  for (const [name, src] of spins) {
    test(`${name}: ABORTED soon after a host timer aborts`, async () => {
      const ast = compile(src)
      const controller = new AbortController()
      let abortedAt = 0
      setTimeout(() => { abortedAt = performance.now(); controller.abort() }, 30)
      const r = await vm.run(ast, { go: true }, { fuel: 1e12, signal: controller.signal })
      const latency = performance.now() - abortedAt
      expect(r.error?.code).toBe('ABORTED')
      expect(abortedAt).toBeGreaterThan(0)
      // Functional bound only (timing figures live in bench/abort-latency.mjs): well under the 10 s timeout.
      expect(latency).toBeLessThan(1000)
    })
  }

  test('a loop in a helper that waits for atoms pauses too', async () => {
    const ping = defineAtom('ping', s.object({}), s.number, async () => 1)
    const ast = transpile('function spin() { let i = ping({}); while (true) { i = i + 1 } }\nfunction main() { spin(); return 1 }', { atoms: ['ping'] }).ast
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 20)
    const r = await new AgentVM({ ping }).run(ast, {}, { fuel: 1e12, signal: controller.signal })
    expect(r.error?.code).toBe('ABORTED')
  })

  const helperSpins: Array<[string, string]> = [
    ['a loop in a helper that waits for nothing', 'function spin() { let i = 0; while (true) { i = i + 1 } }\nfunction main() { spin(); return 1 }'],
    ['a loop two helpers down, its value used in an expression', 'function inner(n) { let i = 0; while (true) { i = i + n } }\nfunction outer() { return inner(1) + 1 }\nfunction main() { const v = outer(); return { v } }'],
    ['a for...of loop in a helper called from a loop', 'function walk(xs) { let t = 0; for (const x of xs) { while (x > 0) { t += x } } return t }\nfunction main() { for (let k = 0; k < 3; k++) { walk([k, 1]) } return 1 }'],
  ]
  for (const [name, src] of helperSpins) {
    test(`${name}: ABORTED soon after a host timer aborts`, async () => {
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 20)
      const r = await vm.run(compile(src), {}, { fuel: 1e12, signal: controller.signal })
      expect(r.error?.code).toBe('ABORTED')
    })
  }

  test('a looping helper gives the same results from the entry and from a callback, and the same fuel on every run', async () => {
    const ast = compile('function count(n) { let t = 0; for (let i = 0; i < n; i++) { t += i } return t }\nfunction main({ xs }) { return { direct: xs.map((x) => 0).concat([count(4), count(5)]), viaCallback: xs.map((x) => count(x)) } }')
    const r = await vm.run(ast, { xs: [4, 5] })
    expect(r.result).toEqual({ direct: [0, 0, 6, 10], viaCallback: [6, 10] })
    const again = await vm.run(ast, { xs: [4, 5] })
    expect(again.fuelUsed).toBe(r.fuelUsed)
  })

  test('helpers that wait for no atom answer at once: a sort comparator may call them, looping or not', async () => {
    for (const body of ['return a - b', 'let i = 0; while (i < 3) { i++ } return a - b']) {
      const r = await vm.run(compile(`function cmp(a, b) { ${body} }\nfunction main({ xs }) { return xs.sort((a, b) => cmp(a, b)) }`), { xs: [3, 1, 2] })
      expect(r.result).toEqual([1, 2, 3])
    }
    const waits = await vm.run(compile('function cmp(a, b) { return storeGet({ key: "k" }) ?? a - b }\nfunction main({ xs }) { return xs.sort((a, b) => cmp(a, b)) }'), { xs: [3, 1, 2] })
    expect(waits.error?.message).toContain('cannot call atoms, or helpers that call them')
  })

  const callbackSpins: Array<[string, string]> = [
    ['a loop in a map callback', 'function main({ xs }) { return xs.map((x) => { while (true) {} }) }'],
    ['a looping helper called from a map callback', 'function spin() { let i = 0; while (true) { i = i + 1 } }\nfunction main({ xs }) { return xs.map((x) => spin()) }'],
    ['a loop in a forEach callback inside a filter callback', 'function main({ xs }) { return xs.filter((y) => { xs.forEach((x) => { for (;;) {} }); return true }) }'],
  ]
  for (const [name, src] of callbackSpins) {
    test(`${name}: ABORTED soon after a host timer aborts`, async () => {
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 20)
      const r = await vm.run(compile(src), { xs: [1, 2] }, { fuel: 1e12, signal: controller.signal })
      expect(r.error?.code).toBe('ABORTED')
    })
  }

  test('callbacks that loop give the same results and fuel on every run', async () => {
    const ast = compile('function main({ xs }) { const sums = xs.map((x) => { let t = 0; for (let i = 0; i < x; i++) { t += i } return t })\n return { sums, big: xs.filter((x) => { let i = 0; while (i < x) { i++ } return i > 2 }) } }')
    const a = await vm.run(ast, { xs: [1, 3, 5] }), b = await vm.run(ast, { xs: [1, 3, 5] })
    expect(a.result).toEqual({ sums: [0, 3, 10], big: [3, 5] })
    expect(b.fuelUsed).toBe(a.fuelUsed)
  })

  test('a loop in a sort comparator cannot pause (sort needs its answer at once): the deadline still stops it', async () => {
    const ast = compile('function main({ xs }) { return xs.sort((a, b) => { while (true) {} }) }')
    const r = await vm.run(ast, { xs: [2, 1] }, { fuel: 1e12, timeoutMs: 50 })
    expect(r.error?.code).toBe('TIMEOUT')
  })

  test('other work of the host gets turns while a long synchronous run goes on', async () => {
    const ast = compile('function main({ n }) { let t = 0; for (let i = 0; i < n; i++) { t = (t + i) % 1000003 } return t }')
    let turns = 0
    const timer = setInterval(() => { turns++ }, 1)
    const t0 = performance.now()
    const r = await vm.run(ast, { n: 3_000_000 }, { fuel: 1e9 })
    const ms = performance.now() - t0
    clearInterval(timer)
    expect(r.error).toBeUndefined()
    // Only meaningful when the run held the thread for several slices.
    if (ms > 60) expect(turns).toBeGreaterThan(1)
  })
})

describe('pausing changes neither results nor fuel', () => {
  // Long enough to pause many times (each run takes far more than one 10 ms slice).
  const cases: Array<[string, string, Record<string, unknown>]> = [
    ['counting for', 'function main({ n }) { let t = 0; for (let i = 0; i < n; i++) { t = (t + i * 7) % 1000003 } return t }', { n: 1_500_000 }],
    ['while with break and continue', 'function main({ n }) { let i = 0; let t = 0; while (true) { i++; if (i % 3 === 0) continue; if (i > n) break; t = (t + i) % 99991 } return [i, t] }', { n: 1_000_000 }],
    ['do...while', 'function main({ n }) { let i = 0; let t = 0; do { t = (t + i) % 7919; i++ } while (i < n); return [i, t] }', { n: 1_000_000 }],
    ['for...of over a built array', 'function main({ n }) { let xs = []; for (let i = 0; i < n; i++) { xs.push(i % 13) } let t = 0; for (const x of xs) { t = (t + x) % 65521 } return t }', { n: 400_000 }],
    ['nested', 'function main({ n }) { let t = 0; for (let i = 0; i < n; i++) { let j = 0; while (j < 50) { t = (t + j) % 4099; j++ } } return t }', { n: 30_000 }],
  ]
  for (const [name, src, args] of cases) {
    test(`${name}: same result as JavaScript, same fuel on every run`, async () => {
      const ast = compile(src)
      let turns = 0
      const timer = setInterval(() => { turns++ }, 1)
      const t0 = performance.now()
      const a = await vm.run(ast, args, { fuel: 1e9 })
      const ms = performance.now() - t0
      clearInterval(timer)
      if (ms > 60) expect(turns).toBeGreaterThan(0) // the run did pause
      const b = await vm.run(ast, args, { fuel: 1e9 })
      expect(a.error).toBeUndefined()
      const entry = src.replace(/^function main/, 'return function main')
      // eslint-disable-next-line no-new-func -- test oracle only: the same source as native JS
      const native = new Function(entry)() as (a: unknown) => unknown
      expect(a.result).toEqual(native(args) as any)
      expect(b.result).toEqual(a.result)
      expect(b.fuelUsed).toBe(a.fuelUsed)
    })
  }
})

describe('interrupt option', () => {
  const spin = compile('function main() { let i = 0; while (true) { i = i + 1 } }')

  test('must be a non-empty Int32Array', async () => {
    for (const bad of [{}, new Int32Array(0), new Uint8Array(4), [0]]) {
      const r = await vm.run(spin, {}, { interrupt: bad as any })
      expect(r.error?.code).toBe('OPTIONS_INVALID')
    }
  })

  test('a flag already set runs nothing', async () => {
    const flag = new Int32Array(new SharedArrayBuffer(4))
    flag[0] = 1
    const r = await vm.run(spin, {}, { fuel: 1e9, interrupt: flag })
    expect(r.error?.code).toBe('ABORTED')
    expect(r.fuelUsed).toBe(0)
  })

  test('a flag left at 0 changes nothing', async () => {
    const flag = new Int32Array(new SharedArrayBuffer(4))
    const r = await vm.run(compile('function main() { let t = 0; for (let i = 0; i < 5000; i++) { t += i } return t }'), {}, { fuel: 1e6, interrupt: flag })
    expect(r.result).toBe(12497500)
  })

  test('set on the same thread by a timer: stops a pure loop', async () => {
    const flag = new Int32Array(new SharedArrayBuffer(4))
    setTimeout(() => Atomics.store(flag, 0, 1), 20)
    const r = await vm.run(spin, {}, { fuel: 1e12, interrupt: flag })
    expect(r.error?.code).toBe('ABORTED')
    expect(r.error?.message).toContain('interrupt')
  })

  test('stops a run that is waiting for an atom', async () => {
    const flag = new Int32Array(new SharedArrayBuffer(4))
    setTimeout(() => Atomics.store(flag, 0, 1), 20)
    const never = { get: () => new Promise(() => {}) }
    const r = await vm.run(compile('function main() { return storeGet({ key: "k" }) }'), {}, { fuel: 1e6, interrupt: flag, capabilities: { store: never } })
    expect(r.error?.code).toBe('ABORTED')
  })

  test('set by another thread: stops a run that holds a worker thread (loop in a sync helper, no pause possible)', async () => {
    const worker = new Worker(new URL('./fixtures/interrupt-worker.ts', import.meta.url))
    try {
      const flag = new Int32Array(new SharedArrayBuffer(4))
      const answer = new Promise<{ code?: string }>((resolve, reject) => {
        worker.on('message', (m: { started?: boolean; code?: string }) => {
          if (m.started) setTimeout(() => Atomics.store(flag, 0, 1), 30)
          else resolve(m)
        })
        worker.on('error', reject)
      })
      worker.postMessage(flag)
      const m = await answer
      expect(m.code).toBe('ABORTED')
    } finally {
      await worker.terminate()
    }
  })
})
