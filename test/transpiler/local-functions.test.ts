/**
 * Local functions (src/transpiler/local-functions.ts): `function f() {}` and `const f = (x) => ...`
 * inside a function become helpers whose first parameters are the variables they read from the
 * function around them; side by side with JavaScript, and the refusals (AJS2050–AJS2054). Nesting and
 * shadowed captures: local-functions-nested.test.ts.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { type Program, testSideBySide } from './differential/harness.ts'
import { refusal, testAsyncSideBySide } from './local-functions-helpers.ts'

const ARGS = { xs: [3, 1, 2], rate: 0.5, names: ['ada', 'bob', 'cy'] }
const P = (name: string, body: string, before = ''): Program => ({ name, source: `${before}\nfunction main({ xs, rate, names }) {\n${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('const-arrow-reads-a-parameter', 'const scale = (v) => v * rate\nreturn xs.map((x) => scale(x))'),
  P('function-declaration-called-before-it-is-declared', 'const k = 10\nconst a = twice(2)\nfunction twice(v) { return v * 2 + k }\nreturn [a, twice(xs[0])]'),
  P('passed-as-a-callback', 'const k = 2\nfunction times(v, i) { return v * k + (i ?? 0) }\nreturn [xs.map(times), xs.map((v) => times(v)), xs.filter(isBig)]\nfunction isBig(v) { return v > k }'),
  P('reads-the-current-value-at-call-time', 'let total = 0\nconst show = () => `total=${total}`\nconst a = show()\ntotal = 5\nconst b = show()\nfor (const x of xs) total += x\nreturn [a, b, show()]'),
  P('changes-objects-around-it', 'const seen = []\nconst note = (x) => { seen.push(x); return seen.length }\nxs.forEach((x) => note(x))\nreturn [note(9), seen]'),
  P('calls-another-local-function', 'const base = 100\nconst unit = 3\nconst add = (v) => v + base\nconst both = (v) => add(v) * unit\nreturn xs.map((x) => both(x))'),
  P('recursion', 'const step = 2\nfunction down(n) { return n <= 0 ? [] : [n, ...down(n - step)] }\nreturn down(7)'),
  P('mutual-recursion', 'const stop = 0\nfunction even(n) { return n === stop ? true : odd(n - 1) }\nfunction odd(n) { return n === stop ? false : even(n - 1) }\nreturn [even(4), odd(4), even(7)]'),
  P('inside-a-block-and-a-loop', 'const out = []\nfor (const n of names) {\n  const pad = n.length + 1\n  const fmt = (s) => s.padEnd(pad, ".")\n  out.push(fmt(n))\n}\nreturn out'),
  P('inside-a-callback', 'return names.map((n, i) => {\n  const tag = (s) => `${i}:${s}`\n  return tag(n.toUpperCase())\n})'),
  P('default-and-destructured-parameters', 'const sep = "/"\nconst join = ({ a, b }, c = "z") => [a, b, c].join(sep)\nreturn [join({ a: 1, b: 2 }), join({ a: "x" }, "y")]'),
  P('block-body-with-its-own-locals', 'const limit = 2\nconst clamp = (v) => {\n  const top = limit * 2\n  if (v > top) return top\n  return v < limit ? limit : v\n}\nreturn [9, 1, 3].map(clamp)'),
  P('same-name-as-a-helper-elsewhere', 'const fmt = (v) => "#" + v\nreturn [fmt(1), other()]', 'function other() { const fmt = (v) => "@" + v; return fmt(2) }'),
  P('a-name-used-twice-in-one-function', 'const a = []\n{ const f = (v) => v + 1; a.push(f(1)) }\n{ const f = (v) => v * 10; a.push(f(1)) }\nreturn a'),
  P('sort-comparator', 'const dir = -1\nconst byValue = (a, b) => (a - b) * dir\nreturn [...xs].sort(byValue)'),
  P('a-set-and-a-map-from-around-it', 'const seen = new Set()\nconst first = new Map()\nfunction visit(x, i) {\n  if (seen.has(x)) return false\n  seen.add(x)\n  first.set(x, i)\n  return true\n}\nconst kept = [...xs, 1, 3].filter((x, i) => visit(x, i))\nreturn [kept, seen.size, [...seen], Object.fromEntries(first)]'),
  P('a-date-from-around-it', 'const start = new Date(Date.UTC(2024, 0, 31))\nconst label = (days) => {\n  const d = new Date(start)\n  d.setUTCDate(d.getUTCDate() + days)\n  return d.toISOString().slice(0, 10)\n}\nreturn xs.map((n) => label(n)).concat(start.getUTCMonth())'),
  P('throws-like-javascript', 'const fail = (m) => { throw new Error(m + rate) }\ntry { fail("bad ") } catch (e) { return e.message }'),
]

/** Top-level `const` / `let` (src/transpiler/module-declarations.ts): declared before the entry runs, read by every function. */
const MODULE: Program[] = [
  P('module-constants-read-by-helpers-and-the-entry', 'return [url("a"), price(10), names.map(shout), LIMIT]',
    "const BASE = 'https://api.test'\nconst RATE = 0.25\nconst LIMIT = RATE * 8\nconst shout = (s) => s.toUpperCase() + '!'\nfunction url(p) { return `${BASE}/${p}` }\nfunction price(n) { return (n * (1 + RATE)).toFixed(2) }"),
  P('a-module-let-the-entry-changes-and-a-helper-reads', 'for (const x of xs) total += x\nreturn [report(), seen.size]',
    "let total = 0\nconst seen = new Set(['a'])\nfunction report() { seen.add('b'); return `total ${total}` }"),
  P('the-entry-may-shadow-a-module-constant', 'const k = "mine"\nreturn [k, K]', "const K = 1\nconst k = 2"),
]

const ASYNC: Program[] = [
  {
    name: 'async-local-function-awaited',
    source: 'async function main({ xs }) {\n  const k = 3\n  const slow = async (v) => v * k\n  const out = []\n  for (const x of xs) out.push(await slow(x))\n  return out\n}\n',
    args: ARGS,
  },
]

describe('local functions run as JavaScript runs them', () => {
  testSideBySide([...PROGRAMS, ...MODULE], AgentVM)

  testAsyncSideBySide(ASYNC)

  test('a local function is a helper with its captures first', () => {
    const { ast } = transpile('function main({ rate }) {\n  const k = 2\n  const scale = (v) => v * rate * k\n  return scale(3)\n}')
    expect(Object.keys(ast.functions ?? {})).toEqual(['scale'])
    expect(JSON.stringify(ast.functions!.scale!.params)).toBe('["k","rate","v"]')
  })

  test('16,000 blocks declaring one name: each lifted name found where the last search stopped (16,000 took 93 s)', async () => {
    const n = 16_000
    const source = `function f({ x }) {\n  let s = 0\n${Array.from({ length: n }, (_, i) => `  { function g(y) { return y + ${i % 3} }\n  s = s + g(x) }`).join('\n')}\n  return { s }\n}`
    const { ast } = transpile(source)
    const names = Object.keys(ast.functions ?? {})
    expect(names.slice(0, 3)).toEqual(['f_g', 'f_g_2', 'f_g_3'])
    expect(names).toHaveLength(n)
    expect(names.at(-1)).toBe(`f_g_${n}`)
    expect((await new AgentVM().run(ast, { x: 1 }, { fuel: 1e6 })).result).toEqual({ s: n + (n - 1) })
  })

  test('no "never called" warning for a local function nothing calls', () => {
    const { warnings } = transpile('function main() {\n  const unused = () => 1\n  return 2\n}')
    expect(warnings.map((w) => w.code)).not.toContain('AJS4004')
  })

  test('used as a value: AJS2050, located', () => {
    const e = refusal('function main({ xs }) {\n  const f = (v) => v + xs.length\n  return { f }\n}')
    expect(e.code).toBe('AJS2050')
    expect([e.line, e.column]).toEqual([3, 11])
    // One that reads nothing around it is a helper: AJS3006 as for any function used as a value.
    expect(refusal('function main() {\n  const f = (v) => v\n  return { f }\n}').code).toBe('AJS3006')
  })

  test('assigning a variable of the function around it: AJS2051', () => {
    const e = refusal('function main({ xs }) {\n  let n = 0\n  const bump = () => { n++ }\n  bump()\n  return n\n}')
    expect(e.code).toBe('AJS2051')
    expect(e.message).toContain('`n`')
  })

  test("a Date setter on the Date around it: AJS2051 (it would set only the local function's copy)", () => {
    const e = refusal('function main() {\n  const d = new Date(0)\n  const later = () => { d.setUTCFullYear(2030) }\n  later()\n  return d.getTime()\n}')
    expect(e.code).toBe('AJS2051')
    expect([e.line, e.column]).toEqual([3, 24])
  })

  test('an async local function reading a variable that changes, not awaited at once: AJS2053', () => {
    // Passed as a callback, and called twice side by side: JavaScript's closure reads `k` when it runs.
    const e = refusal('async function main({ xs }) {\n  let k = 1\n  const f = async (v) => v + k\n  k = 2\n  return await Promise.all(xs.map(f))\n}')
    expect(e.code).toBe('AJS2053')
    expect(refusal('async function main({ xs }) {\n  let k = 1\n  const f = async (v) => v + k\n  k = 2\n  return await Promise.all([f(1), f(2)])\n}').code).toBe('AJS2053')
  })

  test('more than 64 captures: AJS2054', () => {
    const names = Array.from({ length: 70 }, (_, i) => `v${i}`)
    const src = `function main() {\n${names.map((n) => `  const ${n} = 1`).join('\n')}\n  const f = () => ${names.join(' + ')}\n  return f()\n}`
    expect(refusal(src).code).toBe('AJS2054')
  })

  test('a let reassigned to another function stays refused (AJS2013)', () => {
    expect(refusal('function main() {\n  let f = () => 1\n  f = () => 2\n  return f()\n}').code).toBe('AJS2013')
  })

  test('a helper assigning a module variable: AJS2051; storing as a procedure one that reads them: AJS2050', () => {
    expect(refusal('let n = 0\nfunction bump() { n++ }\nfunction main() { bump(); return n }').code).toBe('AJS2051')
    expect(refusal("const BASE = 'x'\nfunction sub() { return BASE }\nfunction main() { return storeProcedure({ ast: sub }) }").code).toBe('AJS2050')
    // One that reads none of them is stored as before.
    const { ast } = transpile("const BASE = 'x'\nfunction sub() { return 1 }\nfunction main() { return storeProcedure({ ast: sub }) }")
    expect(JSON.stringify(ast)).toContain('"storeProcedure"')
  })

  test('a top-level statement that is not a declaration stays AJS1003', () => {
    expect(refusal("const a = 1\nconsole.log(a)\nfunction main() { return a }").code).toBe('AJS1003')
  })
})
