/**
 * Local functions inside local functions, and captured names shadowed where a call passes them
 * (src/transpiler/local-functions.ts): side by side with JavaScript, and what stays refused
 * (AJS2050–AJS2054, AJS2064), located.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { type Program, testSideBySide } from './differential/harness.ts'
import { refusal, testAsyncSideBySide } from './local-functions-helpers.ts'

const ARGS = {
  xs: [3, 1, 2],
  rate: 0.5,
  names: ['ada', 'bob', 'cy'],
  tree: [{ v: 1 }, { kids: [{ v: 2 }, { kids: [{ v: 5 }, { v: 0 }] }] }],
}
const P = (name: string, body: string, before = ''): Program => ({ name, source: `${before}\nfunction main({ xs, rate, names, tree }) {\n${body}\n}\n`, args: ARGS })

const NESTED: Program[] = [
  {
    name: 'a-visitor-with-a-leaf-function-inside-it',
    source: 'function outer({ tree }) {\n  function visit(n) {\n    function leaf(v) { return v * 2 }\n    return n.kids ? n.kids.map(visit) : leaf(n.v)\n  }\n  return tree.map(visit)\n}\n',
    args: ARGS,
  },
  P('an-arrow-helper-inside-a-callback-of-a-local-function',
    'const sep = "|"\nconst table = (rows) => rows.map((r) => {\n  const cell = (v) => `${v}${sep}`\n  return r.map(cell).join("")\n})\nreturn table([names, xs])'),
  P('captures-from-every-level',
    'const a = 100\nfunction f(b) {\n  function g(c) {\n    const h = (d) => a + b * 10 + c + d\n    return h(0.5)\n  }\n  return [g(1), g(2)]\n}\nreturn xs.map(f)'),
  P('nested-siblings-hoisted-and-mutually-recursive',
    'const stop = 0\nfunction parity(n) {\n  const r = even(n)\n  function even(k) { return k === stop ? "even" : odd(k - 1) }\n  function odd(k) { return k === stop ? "odd" : even(k - 1) }\n  return r\n}\nreturn xs.map(parity)'),
  P('a-nested-function-passed-as-a-callback-with-captures',
    'const k = 3\nfunction scaleAll(list, by) {\n  const one = (v, i) => v * by * k + i\n  return list.map(one)\n}\nreturn [scaleAll(xs, 2), scaleAll([1], 10)]'),
  P('a-set-and-a-map-of-the-entry-read-two-levels-down',
    'const seen = new Set()\nconst firstAt = new Map()\nfunction walk(list) {\n  function mark(x, i) {\n    if (seen.has(x)) return false\n    seen.add(x)\n    firstAt.set(x, i)\n    return true\n  }\n  return list.filter(mark)\n}\nreturn [walk([...xs, 3, 1]), walk([2, 9]), [...seen], Object.fromEntries(firstAt)]'),
  P('reads-the-variables-around-it-as-they-are-when-it-runs',
    'let n = 1\nfunction report() {\n  let m = 10\n  const show = () => `${n}/${m}`\n  const a = show()\n  m = 20\n  return [a, show()]\n}\nconst first = report()\nn = 2\nreturn [first, report()]'),
  P('an-object-of-functions-inside-a-local-function',
    'const k = 4\nfunction run(step) {\n  const ops = { twice: (v) => v * 2 * k, neg: (v) => -v }\n  return ops[step.op](step.v)\n}\nreturn [run({ op: "twice", v: 1 }), run({ op: "neg", v: 5 })]'),
  P('the-same-name-in-two-local-functions',
    'function a(v) { const h = (x) => x + 1; return h(v) }\nfunction b(v) { const h = (x) => x * rate; return h(v) }\nreturn [a(1), b(4), xs.map(a)]'),
  P('a-date-and-a-map-of-the-level-between-read-by-the-inner-one',
    'function stamp(days) {\n  const start = new Date(Date.UTC(2024, 0, 31))\n  const byDay = new Map()\n  const label = (n) => {\n    const d = new Date(start)\n    d.setUTCDate(d.getUTCDate() + n)\n    byDay.set(n, d.toISOString().slice(0, 10))\n    return byDay.get(n)\n  }\n  return [days.map((n) => label(n)), byDay.size, start.getUTCMonth()]\n}\nreturn stamp(xs)'),
  P('three-levels-of-recursion-through-a-tree',
    'const depthOf = (nodes) => {\n  const deepest = (n, d) => {\n    const down = (k) => deepest(k, d + 1)\n    return n.kids ? Math.max(...n.kids.map(down)) : d\n  }\n  return nodes.map((n) => deepest(n, 1))\n}\nreturn depthOf(tree)'),
]

/** A captured name that means another variable where the call is: the captured one is renamed, as JavaScript's closure reads it. */
const SHADOWED: Program[] = [
  P('a-callback-parameter-of-the-same-name-as-a-capture',
    'const k = 1\nconst f = (v) => v + k\nreturn xs.map((k) => f(k))'),
  P('a-parameter-of-the-entry-shadowed-by-a-callback-parameter',
    'const f = (v) => v * rate\nreturn [xs.map((rate) => f(rate)), rate]'),
  P('a-parameter-of-the-entry-shadowed-by-a-parameter-of-a-local-function',
    'const g = () => rate\nconst f = (rate) => g() + rate\nreturn [f(1), xs.map(f)]'),
  P('a-nested-call-where-the-outer-function-has-its-own',
    'const a = "top"\nfunction g(a) {\n  const h = () => `${a}`\n  return [h(), inner()]\n  function inner() { const a = "inner"; return h() + a }\n}\nreturn g("g")'),
  P('a-module-constant-the-entry-declares-again',
    'const K = 2\nreturn [xs.map((x) => scale(x) * K), fmt(1), K, { K }]',
    'const K = 10\nconst fmt = (v) => `${v}/${K}`\nfunction scale(x) { return x * K }'),
  P('a-module-let-the-entry-changes-read-where-a-block-shadows-it',
    'for (const x of xs) total += x\n{\n  const total = -1\n  return [report(), total]\n}',
    'let total = 0\nfunction report() { return `total ${total}` }'),
  P('module-constants-destructured-with-shorthands-and-defaults',
    'const LIMIT = "mine"\nconst RATE = 1\nreturn [cap(7), LIMIT, RATE, { LIMIT }]',
    'const CONF = { LIMIT: 5 }\nconst { LIMIT, RATE = 0.5 } = CONF\nfunction cap(v) { return Math.min(v, LIMIT) * RATE }'),
  P('a-renamed-constant-written-as-a-shorthand-property',
    'const K = 2\nreturn [info(), K]',
    'const K = 10\nfunction info() { const { K: k2 = 0 } = {}; return { K, k2, all: [K].map((K) => K + 1) } }'),
]

const MODULE_PARAM: Program = {
  name: 'a-module-constant-shadowed-by-a-parameter-of-the-entry',
  source: 'const K = 10\nfunction scale(x) { return x * K }\nfunction main({ K, xs }) {\n  return [K, xs.map(scale)]\n}\n',
  args: { K: 3, xs: [1, 2] },
}

const ASYNC: Program[] = [
  {
    name: 'async-local-functions-nested',
    source: 'async function main({ xs }) {\n  const k = 3\n  const run = async (x) => {\n    const sq = async (v) => v * v * k\n    return (await sq(x)) + 1\n  }\n  const out = []\n  for (const x of xs) out.push(await run(x))\n  return out\n}\n',
    args: ARGS,
  },
  {
    // Each call awaited at once where `total` is assigned, or in an async local function called so: the function reads the value it was called with, as the closure would (AJS2053 does not apply).
    name: 'async-local-functions-reading-a-let-that-changes-awaited-at-once',
    source: 'async function slow(v) { return v }\nasync function main({ xs }) {\n  let total = 0\n  const add = async (x) => (await slow(x)) + total\n  async function twice(x) {\n    const a = await add(x)\n    return a + (await add(x))\n  }\n  for (const x of xs) {\n    total += await add(x)\n    total = total + (await twice(x))\n  }\n  return total\n}\n',
    args: ARGS,
  },
]

/** `function f1(a1) { function f2(a2) { ... return f2(a1) } return f1(1) }`, `depth` levels, the innermost reading `k`. */
function chain(depth: number): string {
  let body = 'return k'
  for (let i = depth; i > 0; i--) body = `function f${i}(a${i}) { ${body}${i < depth ? ` return f${i + 1}(a${i})` : ''} }`
  return `function main({ k }) {\n${body}\nreturn f1(1)\n}`
}

describe('local functions inside local functions, and shadowed captures, run as JavaScript runs them', () => {
  testSideBySide([...NESTED, ...SHADOWED, MODULE_PARAM], AgentVM)

  testAsyncSideBySide(ASYNC)

  test('each level is a helper with the captures of every level around it first', () => {
    const { ast } = transpile('function main({ a }) {\n  function f(b) {\n    const g = (c) => a + b + c\n    return g(1)\n  }\n  return f(2)\n}')
    expect(JSON.stringify(Object.fromEntries(Object.entries(ast.functions!).map(([k, v]) => [k, v.params])))).toBe('{"f":["a","b"],"g":["a","b","c"]}')
  })

  test('a renamed capture gets a fresh internal name, the entry keeps its own', () => {
    const { ast } = transpile('const K = 10\nfunction scale(x) { return x * K }\nfunction main({ xs }) { const K = 2; return scale(K) }')
    const [first] = ast.functions!.scale!.params as string[]
    expect(first).not.toBe('K')
    expect(first!.startsWith('K')).toBe(true)
  })

  test('nested 32 deep transpiles; 2,000 deep is AJS2064 at the 33rd, not a stack overflow', () => {
    expect(Object.keys(transpile(chain(32)).ast.functions!)).toHaveLength(32)
    const e = refusal(chain(2000))
    expect(e.code).toBe('AJS2064')
    expect(e.message).toContain('`f33`')
    const at = chain(2000).indexOf('function f33') + 'function '.length
    expect([e.line, e.column]).toEqual([2, at - chain(2000).lastIndexOf('\n', at) - 1])
  })

  test('assigning a variable of a function around it: AJS2051, at the assignment', () => {
    const own = refusal('function main() {\n  function f() {\n    let n = 0\n    const bump = () => { n += 1 }\n    bump()\n    return n\n  }\n  return f()\n}')
    expect([own.code, own.line, own.column]).toEqual(["AJS2051", 4, 25])
    expect(own.message).toContain('`bump` assigns `n`')
    const top = refusal('function main() {\n  let t = 0\n  function f() {\n    const g = () => { t = 1 }\n    return g()\n  }\n  return f()\n}')
    expect([top.code, top.line, top.column]).toEqual(["AJS2051", 4, 22])
  })

  test('used as a value: AJS2050, located', () => {
    const e = refusal('function main({ xs }) {\n  function f() {\n    const g = (v) => v + xs.length\n    return { g }\n  }\n  return f()\n}')
    expect([e.code, e.line, e.column]).toEqual(["AJS2050", 4, 13])
  })

  test('an async one reading a variable that changes, called in a callback: AJS2053', () => {
    const e = refusal('async function main() {\n  let k = 1\n  async function f() {\n    const g = async (v) => v + k\n    return await Promise.all([1, 2].map(async (v) => await g(v)))\n  }\n  k = 2\n  return await f()\n}')
    expect(e.code).toBe('AJS2053')
    expect(e.message).toContain('`g`')
  })

  test('more than 64 captures gathered through the levels: AJS2054', () => {
    const names = Array.from({ length: 70 }, (_, i) => `v${i}`)
    const src = `function main() {\n${names.map((n) => `  const ${n} = 1`).join('\n')}\n  function f() {\n    const g = () => ${names.join(' + ')}\n    return g()\n  }\n  return f()\n}`
    const e = refusal(src)
    expect(e.code).toBe('AJS2054')
  })

  test('a capture shadowed by what cannot be renamed (a class): AJS2052, at the call, naming it', () => {
    const e = refusal('function main({ k }) {\n  const f = () => k\n  {\n    class k {}\n    return f()\n  }\n}')
    expect([e.code, e.line, e.column]).toEqual(["AJS2052", 5, 11])
    expect(e.message).toContain('a class')
  })
})
