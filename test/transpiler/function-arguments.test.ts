/**
 * Functions passed to helpers and local functions (src/transpiler/function-arguments.ts): retry
 * wrappers, `apply(xs, double)`, `twice(f, x)`, tree walks with a visitor; side by side with
 * JavaScript, and the refusals (AJS2051 from the copy's local function, AJS2065, AJS2066).
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, runNativeAsync, runVm, testSideBySide } from './differential/harness.ts'
import { testAsyncSideBySide } from './local-functions-helpers.ts'

const TREE = { v: 1, kids: [{ v: 2 }, { v: 3, kids: [{ v: 4 }] }] }

const PROGRAMS: Program[] = [
  {
    name: 'a-helper-named-as-the-function',
    source: 'function apply(xs, f) { return xs.map(f) }\nfunction double(x) { return x * 2 }\nfunction main({ xs }) { return [apply(xs, double), apply(xs, (x) => -x)] }\n',
    args: { xs: [1, 2, 3] },
  },
  {
    name: 'twice-with-an-arrow-reading-the-callback-parameter',
    // The copy's own `x` (twice's second parameter) is renamed: the arrow's `x` is the callback's.
    source: 'function twice(f, x) { return f(f(x)) }\nfunction main({ xs, k }) { return xs.map((x) => twice((y) => y + x + k, 1)) }\n',
    args: { xs: [1, 2], k: 100 },
  },
  {
    name: 'two-calls-in-one-expression-body-and-in-bare-statements',
    source: 'function twice(f, x) { return f(f(x)) }\nfunction main({ xs, k }) {\n  const out = xs.map((x) => twice((y) => y + x, 1) + twice((y) => y * x, 2))\n  if (k) out.push(twice((y) => y - k, 0))\n  for (const x of xs) out.push(twice((y) => `${y}${x}`, \'\'))\n  return out\n}\n',
    args: { xs: [2, 3], k: 5 },
  },
  {
    name: 'a-recursive-walk-with-a-visitor-that-changes-an-array',
    source: 'function walk(node, visit) { visit(node); for (const c of node.kids ?? []) walk(c, visit) }\nfunction main({ tree }) {\n  const out = []\n  walk(tree, (n) => out.push(n.v))\n  walk(tree, (n) => { if (n.v % 2 === 0) out.push(-n.v) })\n  return out\n}\n',
    args: { tree: TREE },
  },
  {
    name: 'module-level-arrow-and-local-function-helpers',
    source: 'const BASE = 5\nconst applyTwice = (f, v) => f(f(v))\nfunction main({ xs, n }) {\n  const inc = (x) => x + BASE + n\n  const each = (f) => xs.map((x) => f(x) * 10)\n  const pick = function (test, ys) { return ys.filter(test) }\n  return [applyTwice(inc, 1), each(inc), each((x) => x), pick((y) => y > 1, xs)]\n}\n',
    args: { xs: [1, 2, 3], n: 1 },
  },
  {
    name: 'a-name-the-helper-also-declares-is-renamed-in-the-copy',
    source: 'function apply(xs, f) { const double = 3; return xs.map((x) => f(x) + double) }\nfunction double(x) { return x * 2 }\nfunction main({ xs }) { return apply(xs, double) }\n',
    args: { xs: [1, 2] },
  },
  {
    name: 'a-helper-calling-another-with-its-own-arrow',
    source: 'function mapTwice(xs, f) { return xs.map(f).map(f) }\nfunction scaled(xs, k) { return mapTwice(xs, (x) => x * k) }\nfunction main({ xs }) { return [scaled(xs, 2), scaled(xs, 3), mapTwice(xs, (x) => x + 1)] }\n',
    args: { xs: [1, 2] },
  },
]

const RETRY: Program = {
  name: 'an-async-retry-wrapper',
  source: [
    'async function withRetry(fn, tries) {',
    '  let last = null',
    '  for (let i = 0; i < tries; i++) {',
    '    try { return await fn(i) } catch (e) { last = e.message }',
    '  }',
    "  return 'failed: ' + last",
    '}',
    'const lookup = async (key, attempt) => { if (attempt < 2) throw new Error(`busy ${key}`); return `${key}@${attempt}` }',
    'async function main({ keys }) {',
    '  const out = []',
    '  for (const key of keys) out.push(await withRetry((i) => lookup(key, i), 3))',
    "  out.push(await withRetry(async () => { throw new Error('down') }, 2))",
    '  const retry = async (f) => { try { return await f() } catch (e) { return null } }',
    '  out.push(await retry(() => lookup(keys[0], 5)), await retry(() => lookup(keys[0], 0)))',
    '  return out',
    '}',
  ].join('\n'),
  args: { keys: ['a', 'b'] },
}

/** Async helpers given functions, side by side with JavaScript (async entries). */
const ASYNC: Program[] = [
  {
    // A block body's `return lookup(n)` is awaited in the copy as JavaScript's helper awaits the promise returned; one in a `try` would not be (see the refusal below).
    name: 'block-bodied-functions-returning-an-async-call',
    source: [
      'async function lookup(id) { if (id < 0) throw new Error(`bad ${id}`); return { id } }',
      'async function withRetry(f, n) { for (let i = 0; i < n; i++) { try { return await f(i) } catch (e) { if (i === n - 1) return e.message } } }',
      'async function main({ n }) {',
      '  const a = await withRetry(() => { return lookup(n) }, 3)',
      '  const b = await withRetry((i) => { if (i < 1) return lookup(-1); const k = i * 10; return lookup(k) }, 3)',
      '  const c = await withRetry(function (i) { for (const x of [1, 2]) { if (x > i) return lookup(x) } return lookup(-i) }, 2)',
      '  const d = await withRetry(() => { const lookup = (v) => v * 2; return lookup(n) }, 1)',
      '  const e = await withRetry(() => { return lookup(-n) }, 2)',
      '  return [a, b, c, d, e]',
      '}',
    ].join('\n'),
    args: { n: 4 },
  },
  {
    // The copy is called where `total` is assigned and awaited there: it reads `total` as the closure would when it runs.
    name: 'an-awaited-copy-reading-a-let-the-caller-reassigns',
    source: [
      'async function lookup(id) { return id * 2 }',
      'async function withRetry(f, n) { for (let i = 0; i < n; i++) { try { return await f() } catch (e) { n = n } } return null }',
      'async function apply(f, x) { const a = await f(x); return a + (await f(a)) }',
      'async function main({ xs }) {',
      '  let total = 0',
      '  for (const x of xs) {',
      '    total += await withRetry(() => lookup(x + total), 3)',
      '    if (total > 5) total = total + (await apply(async (v) => (await lookup(v)) - total, x))',
      '  }',
      '  let last = 1',
      '  const step = async (x) => x + (await withRetry(() => lookup(last), 1))',
      '  for (const x of xs) last = await step(x)',
      '  return [total, last]',
      '}',
    ].join('\n'),
    args: { xs: [1, 2, 3] },
  },
]

function refusal(source: string): TranspileError {
  try { transpile(source) } catch (e) { if (e instanceof TranspileError) return e; throw e }
  throw new Error('transpiled')
}

describe('functions passed to helpers', () => {
  testSideBySide(PROGRAMS, AgentVM)

  test(RETRY.name, async () => {
    const native = await runNativeAsync(RETRY)
    expect(native).toEqual({ ok: true, value: ['a@2', 'b@2', 'failed: down', 'a@5', null] })
    expect(await runVm(RETRY, AgentVM)).toEqual(native)
  })

  testAsyncSideBySide(ASYNC)

  test('a block body returning an async call in a `try` is not awaited for it: AJS2039, as before', () => {
    // JavaScript's `catch` would not see the promise's rejection: awaiting it there would change what the program does.
    const e = refusal('async function lookup(id) { return id }\nasync function withRetry(f) { return await f() }\nasync function main({ n }) {\n  return await withRetry(() => { try { return lookup(n) } catch (e) { return 0 } })\n}')
    expect([e.code, e.line]).toEqual(['AJS2039', 4])
  })

  test('a function passed reading a let the caller reassigns, its copy not awaited at once: AJS2068 at the call, naming the helper', () => {
    const head = 'async function lookup(id) { return id }\nasync function withRetry(f, n) { return await f() }\n'
    // Side by side in Promise.all with the assignment after: JavaScript's closure may read the new value.
    const all = refusal(`${head}async function main({ n }) {\n  let total = n\n  const r = await Promise.all([withRetry(() => lookup(total), 3), lookup(1)])\n  total = 3\n  return [r, total]\n}`)
    expect([all.code, all.line]).toEqual(['AJS2068', 5])
    expect(all.message).toContain('`withRetry`')
    expect(all.message).toContain('`total`')
    // In a callback run beside the others, each assigning `total`.
    const each = refusal(`${head}async function main({ xs }) {\n  let total = 0\n  await Promise.all(xs.map(async (x) => { total += await withRetry(() => lookup(x + total), 3) }))\n  return total\n}`)
    expect([each.code, each.line]).toEqual(['AJS2068', 5])
  })

  test('the helper is gone once every call of it is a copy; kept when called otherwise', () => {
    const { ast } = transpile('function twice(f, x) { return f(f(x)) }\nfunction main({ k }) { return twice((y) => y + k, 1) }')
    expect(Object.keys(ast.functions ?? {}).some((n) => n === 'twice')).toBe(false)
    // Called with data too: JavaScript would throw when it calls it; the helper stays, and is refused as before.
    expect(refusal('function twice(f, x) { return f(f(x)) }\nfunction main({ k }) { return [twice((y) => y + k, 1), twice(k, 1)] }').code).toBe('AJS3004')
  })

  test('an arrow that assigns a variable of the caller is the local function rule: AJS2051, located in it', () => {
    const e = refusal('function each(xs, f) { for (const x of xs) f(x) }\nfunction main({ xs }) {\n  let total = 0\n  each(xs, (x) => { total += x })\n  return total\n}')
    expect([e.code, e.line]).toEqual(['AJS2051', 4])
  })

  test('a name the helper reads that the caller declares again: AJS2066 at the call', () => {
    const e = refusal('function scale(x) { return x * 2 }\nfunction apply(xs, f) { return xs.map((x) => scale(f(x))) }\nfunction main({ xs }) {\n  const scale = 3\n  return apply(xs, (x) => x + scale)\n}')
    expect([e.code, e.line]).toEqual(['AJS2066', 5])
    expect(e.message).toContain('`scale`')
  })

  test('what the copies write out is bounded by the source: AJS2065', () => {
    const body = Array.from({ length: 60 }, (_, i) => `  const v${i} = f(x + ${i}) * ${i} + String(x).length`).join('\n')
    const helper = `function big(f, x) {\n${body}\n  return v0 + v59\n}\n`
    const calls = Array.from({ length: 120 }, (_, i) => `big((y) => y + ${i}, k)`).join(' + ')
    const e = refusal(`${helper}function main({ k }) {\n  return ${calls}\n}`)
    expect(e.code).toBe('AJS2065')
    expect(e.line).toBe(65)
    // A few such calls are far below it.
    expect(() => transpile(`${helper}function main({ k }) {\n  return big((y) => y + 1, k) + big((y) => y * 2, k)\n}`)).not.toThrow()
  })
})
