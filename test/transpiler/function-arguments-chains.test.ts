/**
 * Helpers passing a function they are given on to other helpers (src/transpiler/function-arguments.ts's
 * rounds, function-argument-candidates.ts's fixed point): side by side with JavaScript, several helpers
 * deep, recursion through them, shadowed names, sync and async mixes; and the chains that cannot be
 * copied, refused at the call that would need it (AJS2069, AJS2070).
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import type { Program } from './differential/harness.ts'
import { refusal, testAsyncSideBySide } from './local-functions-helpers.ts'

const TREE = { v: 1, kids: [{ v: 2 }, { v: 3, kids: [{ v: 4 }] }] }

const PROGRAMS: Program[] = [
  {
    name: 'a-helper-passing-its-function-on',
    source: 'async function twice(f, x) { return f(f(x)) }\nasync function apply2(g, x) { return await twice(g, x) }\nasync function main({ n }) { return await apply2((v) => v + 1, n) }\n',
    args: { n: 5 },
  },
  {
    // Sync and async, a module-level arrow helper, a function passed on and one written around it, three deep.
    name: 'three-helpers-deep-sync-and-async',
    source: [
      'function one(f, x) { return f(x) }',
      'const two = (f, x) => one(f, x) * 2',
      'async function three(f, x) { return two(f, x) + one((v) => f(v) + 1, x) }',
      'async function main({ n }) { return [await three((v) => v + n, 1), await three((v) => v * 2, n)] }',
    ].join('\n'),
    args: { n: 3 },
  },
  {
    // Mutual recursion passing the visitor on: the call inside the copy of walkKids calls the copy of walk around it.
    name: 'a-tree-walk-through-two-helpers-passing-the-visitor-to-each-other',
    source: [
      'function walk(node, visit) { visit(node); walkKids(node.kids ?? [], visit) }',
      'function walkKids(kids, visit) { for (const k of kids) walk(k, visit) }',
      'function double(n) { return n.v * 2 }',
      'function main({ tree, k }) {',
      '  const out = []',
      '  walk(tree, (n) => out.push(n.v * k))',
      '  const seen = []',
      '  const note = (n) => seen.push(-n.v)',
      '  walkKids(tree.kids, note)',
      '  walk(tree, double)',
      '  return [out, seen]',
      '}',
    ].join('\n'),
    args: { tree: TREE, k: 10 },
  },
  {
    // The helpers' own names shadow each other's parameters and the caller's variables: `f`, `g`, `x` everywhere.
    name: 'shadowed-names-along-the-chain',
    source: [
      'function inner(f, x) { const g = 100; return f(x) + g }',
      'function middle(g, x) { const f = 10; return inner(g, x + f) + inner((x) => g(x) * 2, x) }',
      'function outer(x, f) { return middle(f, x) }',
      'function main({ xs }) {',
      '  const g = 1',
      '  const f = (v) => v + g',
      '  return xs.map((x) => outer(x, (y) => y - x)).concat([outer(g, f), middle(f, 2)])',
      '}',
    ].join('\n'),
    args: { xs: [1, 2] },
  },
  {
    // A helper recursing with its function passed on, and passing it to another; a local function passing one on.
    name: 'recursion-and-a-local-function-passing-on',
    source: [
      'function each(xs, f) { return xs.map(f) }',
      'function deep(f, n) { return n <= 0 ? [] : [...each([n], f), ...deep(f, n - 1)] }',
      'function main({ n }) {',
      '  const k = 3',
      '  const go = (h, m) => deep(h, m).length + each([m], h)[0]',
      '  return [deep((v) => v * k, n), go((v) => v + k, n), go((v) => -v, 1)]',
      '}',
    ].join('\n'),
    args: { n: 3 },
  },
  {
    // Passed on to a local function of the helper's own, and from a local function of the caller to one of its own, that passes it to a helper.
    name: 'passed-on-to-local-functions',
    source: [
      'function one(f, x) { return f(x) }',
      'function twice(f, x) { return f(f(x)) }',
      'function three(f, x) { const loc = (h) => one(h, x); return loc(f) + f(0) }',
      'function neg(v) { return -v }',
      'function main({ n }) {',
      '  const go = (g) => { const r = (h) => twice(h, n); return r(g) + g(1) }',
      '  return [three((v) => v + n, 2), go((v) => v * 3), three(neg, -4)]',
      '}',
    ].join('\n'),
    args: { n: 2 },
  },
  {
    // Handed only to a local function of the helper's own, which calls it (in a loop, with the helper's other
    // parameter; a declaration and an arrow), and on through it to a helper: each gets a copy given the function.
    name: 'handed-only-to-a-local-function',
    source: [
      'function withRetry(fn, n) {',
      '  const attempt = (g, k) => g() + k',
      '  let total = 0',
      '  for (let i = 0; i < n; i++) total += attempt(fn, i)',
      '  return total',
      '}',
      'function apply2(g, x) { function run(h) { return h(h(x)) } return run(g) }',
      'function twice(f, x) { return f(f(x)) }',
      'function viaTwice(f, x) { const go = (h) => twice(h, x); return go(f) }',
      'function main({ n }) {',
      '  return [withRetry(() => n * 2, 3), apply2((v) => v + 1, n), viaTwice((v) => v * 3, n), apply2((s) => s + "!", "hi")]',
      '}',
    ].join('\n'),
    args: { n: 2 },
  },
  {
    // The copy is declared outside the callback and passed its `x`; inside, two loops' `x` hide it where the recursion calls the copy around it (directly, and through kids).
    name: 'recursion-passing-the-callback-variable-past-variables-of-its-name',
    source: [
      'function walk(node, visit) { visit(node); for (const x of node.kids ?? []) { const y = x; for (const x of [y]) kids(x, visit) } }',
      'function kids(x, visit) { walk(x, visit) }',
      'function rec(node, visit) { visit(node); for (const x of node.kids ?? []) { const y = x; for (const x of [y]) rec(x, visit) } }',
      'function main({ xs, tree }) {',
      '  const out = []',
      '  const a = xs.map((x) => walk(tree, (n) => out.push(n.v + x)))',
      '  const b = xs.map((x) => rec(tree, (n) => out.push(n.v * x)))',
      '  return [a, b, out]',
      '}',
    ].join('\n'),
    args: { xs: [1, 2], tree: TREE },
  },
  {
    name: 'promise-all-of-helpers-recursing-into-each-other-async',
    source: [
      'async function get(v) { return v * 10 }',
      'async function walk(node, visit) { const here = await visit(node); return [here, ...(await kids(node.kids ?? [], visit))] }',
      'async function kids(list, visit) { const out = []; for (const k of list) out.push(...(await walk(k, visit))); return out }',
      'async function main({ xs, tree }) {',
      '  return await Promise.all(xs.map((x) => walk(tree, (n) => get(n.v + x))))',
      '}',
    ].join('\n'),
    args: { xs: [1, 2], tree: TREE },
  },
  {
    // Copies made in Promise.all's callback, the function passed on reading the callback's parameter; the retry awaiting an async call.
    name: 'promise-all-of-helpers-passing-a-function-on',
    source: [
      'async function get(x, i) { if (i < 1) throw new Error(`busy ${x}`); return x * 10 + i }',
      'async function withRetry(f, n) { for (let i = 0; i < n; i++) { try { return await f(i) } catch (e) { if (i === n - 1) throw e } } }',
      'async function fetchAll(xs, f) { const out = []; for (const x of xs) out.push(await withRetry((i) => f(x, i), 3)); return out }',
      'async function twiceEach(g, xs) { return [await fetchAll(xs, g), await withRetry((i) => g(0, i), 2)] }',
      'async function main({ xs }) {',
      '  const a = await Promise.all(xs.map((x) => withRetry((i) => get(x, i), 2)))',
      '  const b = await twiceEach((x, i) => get(x + 1, i), xs)',
      '  return [a, b]',
      '}',
    ].join('\n'),
    args: { xs: [1, 2] },
  },
]

describe('helpers passing a function on', () => {
  testAsyncSideBySide(PROGRAMS)

  test('the helpers are gone once every use of them is a copy', () => {
    const { ast } = transpile(PROGRAMS[1]!.source)
    const names = Object.keys(ast.functions ?? {})
    expect(names.filter((n) => n === 'one' || n === 'two' || n === 'three')).toEqual([])
  })

  test('a helper passing its function on and also called with data stays, and the one it passes to: AJS3004 where JavaScript would throw', () => {
    const e = refusal('function twice(f, x) { return f(f(x)) }\nfunction apply2(g, x) { return twice(g, x) }\nfunction main({ n }) {\n  return [apply2((v) => v + 1, n), apply2(n, n)]\n}')
    expect([e.code, e.line]).toEqual(['AJS3004', 1])
  })

  test('a helper given a function it stores: AJS3004 where the helper is lowered first', () => {
    const stored = refusal('function apply2(g, x) {\n  const h = g\n  return h(x)\n}\nfunction main({ n }) {\n  return apply2((v) => v + 1, n)\n}')
    // The helper is lowered before its caller: its call of the variable is refused first, where it is.
    expect([stored.code, stored.line]).toEqual(['AJS3004', 3])
  })

  test('a helper given a function that it also returns: AJS2071 at the function', () => {
    const e = refusal('function apply2(g, x) {\n  const run = (h) => h(x)\n  return x > 0 ? run(g) : g\n}\nfunction main({ n }) {\n  return apply2((v) => v + 1, n)\n}')
    expect([e.code, e.line, e.column]).toEqual(['AJS2071', 6, 16])
    expect(e.message).toBe('`apply2` is given a function here, but does more with that parameter than call it')
  })

  test('recursion through helpers with a new function each level: AJS2069 at that call, naming the helper', () => {
    // `a` hands `b` a new function made of its own; `b` hands it back to `a`: a copy per level.
    const e = refusal('function a(f, n) { return n > 0 ? b((v) => f(v) + 1, n - 1) : f(0) }\nfunction b(g, n) {\n  return a(g, n)\n}\nfunction main({ n }) { return a((v) => v * 10, n) }')
    // Located where the recursion closes: `a` called with the function made in the copy of `a` around it.
    expect([e.code, e.line]).toEqual(['AJS2069', 3])
    expect(e.message).toContain('`a`')
    // Directly: it was an unknown function at run time before.
    const direct = refusal('function a(f, n) {\n  return n > 0 ? a((v) => f(v) + 1, n - 1) : f(0)\n}\nfunction main({ n }) { return a((v) => v * 10, n) }')
    expect([direct.code, direct.line, direct.message]).toEqual(['AJS2069', 2, '`a` is called here, inside a call of itself, with a new function'])
  })

  test('a function passed on through more than 16 helpers: AJS2070, located', () => {
    const helpers = Array.from({ length: 20 }, (_, i) => i === 19 ? `function h${i}(f, x) { return f(x) }` : `function h${i}(f, x) { return h${i + 1}(f, x + 1) }`)
    const e = refusal(`${helpers.join('\n')}\nfunction main({ n }) { return h0((v) => v * 2, n) }`)
    expect(e.code).toBe('AJS2070')
    expect(e.line).toBeGreaterThan(1)
    expect(e.message).toContain('more than 16 helpers')
    // 12 deep is fine.
    const twelve = Array.from({ length: 12 }, (_, i) => i === 11 ? `function h${i}(f, x) { return f(x) }` : `function h${i}(f, x) { return h${i + 1}(f, x + 1) }`)
    expect(() => transpile(`${twelve.join('\n')}\nfunction main({ n }) { return h0((v) => v * 2, n) }`)).not.toThrow()
  })
})
