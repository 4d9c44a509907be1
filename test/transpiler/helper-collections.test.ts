/**
 * A Map or a Set passed to a helper (src/transpiler/collection-params.ts, lower/helper-collections.ts): a
 * parameter every call passes one holds it, shared with the caller, side by side with JavaScript (what the
 * helper changes the caller sees); the calls that differ, and the uses still refused, located with the fix.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { type Program, testSideBySide } from './differential/harness.ts'

const ARGS = {
  edges: [['a', 'b'], ['a', 'c'], ['b', 'd'], ['c', 'd'], ['d', 'a'], ['e', 'f']],
  xs: [3, 1, 3, NaN, 2, NaN, -0, 0, '3'],
  words: ['to', 'be', 'or', 'not', 'to', 'be'],
}
const P = (name: string, helpers: string, body: string): Program => ({ name, source: `${helpers}\nfunction main({ edges, xs, words }) {\n${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('dfs-over-a-map-graph-with-a-visited-set',
    'function addEdge(graph, a, b) {\n  if (!graph.has(a)) graph.set(a, [])\n  graph.get(a).push(b)\n}\n' +
    'function dfs(graph, node, seen, order) {\n  if (seen.has(node)) return\n  seen.add(node)\n  order.push(node)\n  for (const next of graph.get(node) ?? []) dfs(graph, next, seen, order)\n}',
    'const graph = new Map()\nfor (const [a, b] of edges) addEdge(graph, a, b)\nconst seen = new Set()\nconst order = []\ndfs(graph, "a", seen, order)\nreturn { order, seen: [...seen], size: graph.size, graph: Object.fromEntries(graph) }'),
  P('mutation-seen-by-the-caller',
    'function count(m, w) { m.set(w, (m.get(w) ?? 0) + 1) }\nfunction forget(m, s, w) { m.delete(w); s.delete(w) }\nfunction wipe(s) { s.clear() }',
    'const m = new Map(), s = new Set(words), t = new Set([1])\nfor (const w of words) count(m, w)\nforget(m, s, "or")\nwipe(t)\nreturn [[...m], [...s], t.size, m.has("or"), s.has("to")]'),
  P('reads-size-spread-for-of-forEach',
    'function describe(m, s) {\n  const out = []\n  for (const [k, v] of m) out.push(k + v)\n  m.forEach((v, k) => out.push(k))\n  s.forEach((x) => out.push(String(x)))\n  return [out, m.size, s.size, [...s], Array.from(m.keys()), [...m.values()], Math.max(...s)]\n}',
    'return describe(new Map([["x", 1], ["y", 2]]), new Set([4, 5, 4]))'),
  P('set-members-compare-as-javascript',
    'function has(s, x) { return s.has(x) }\nfunction size(s) { return s.size }',
    'const s = new Set(xs)\nreturn [size(s), has(s, NaN), has(s, 0), has(s, -0), has(s, "3"), has(s, 4)]'),
  P('passed-on-through-helpers',
    'function add(s, x) { s.add(x) }\nfunction addTwice(s, x) { add(s, x); add(s, x + "!") }\nfunction fill(s, xs) { for (const x of xs) addTwice(s, x) }',
    'const s = new Set()\nfill(s, words)\nreturn [...s]'),
  P('a-walk-in-the-helper-reaches-what-it-adds',
    'function reach(links, reached) { for (const n of reached) for (const m of links.get(n) ?? []) reached.add(m) }',
    'const links = new Map()\nfor (const [a, b] of edges) links.set(a, [...(links.get(a) ?? []), b])\nconst reached = new Set(["b"])\nreach(links, reached)\nreturn [...reached]'),
  P('new-map-and-new-set-written-in-the-call',
    'function total(m) { let t = 0; for (const v of m.values()) t += v; return t }\nfunction distinct(s) { return s.size }',
    'return [total(new Map([["a", 1], ["b", 2]])), total(new Map().set("z", 5)), distinct(new Set(words)), distinct(new Set("hello"))]'),
  P('a-chained-set-and-add-passed',
    'function keys(m) { return [...m.keys()] }\nfunction members(s) { return [...s] }',
    'const m = new Map(), s = new Set()\nreturn [keys(m.set(1, 1).set(2, 2)), members(s.add("a").add("b")), m.size, s.size]'),
  P('a-parameter-given-another-map-is-the-helpers-own',
    'function fresh(m) { m = new Map(m); m.set("new", 1); return m.size }',
    'const m = new Map([["old", 0]])\nreturn [fresh(m), [...m]]'),
  P('sets-of-two-in-a-helper',
    'function common(a, b) { return [...a.intersection(b)] }\nfunction both(a, b) { return [a.isSubsetOf(b), [...a.union(b)]] }',
    'const a = new Set([1, 2, 3]), b = new Set([2, 3, 4])\nreturn [common(a, b), both(a, b), common(b, a)]'),
  P('local-functions-reading-a-map-parameter',
    'function build(graph, pairs) {\n  const link = (a, b) => { if (!graph.has(a)) graph.set(a, []); graph.get(a).push(b) }\n  for (const [a, b] of pairs) link(a, b)\n}\nfunction count(m, w) { m.set(w, (m.get(w) ?? 0) + 1) }',
    'const g = new Map()\nbuild(g, edges)\nconst tally = new Map()\nconst bump = (w) => count(tally, w)\nwords.forEach(bump)\nreturn [[...g], [...tally]]'),
  P('an-arrow-parameter-of-the-same-name-is-another-variable',
    'function size(s) { return s.size }',
    'const s = new Set(words)\nconst doubled = xs.map((s) => s)\nreturn [size(s), doubled.length]'),
  P('a-variable-named-like-the-helper-is-not-a-use-of-it',
    'function size(s) { return s.size }\nfunction echo(x) { const size = x + 1; return { size: size } }',
    'const s = new Set(words)\nreturn [size(s), echo(2)]'),
  P('an-alias-of-the-set-passed',
    'function add(s, x) { s.add(x) }',
    'const $seen = new Set()\nconst also = $seen\nadd(also, 1)\nadd($seen, 2)\nreturn [...$seen]'),
  P('helper-calls-in-callbacks',
    'function mark(seen, w) { if (seen.has(w)) return false; seen.add(w); return true }',
    'const seen = new Set()\nconst firsts = words.filter((w) => mark(seen, w))\nreturn [firsts, seen.size]'),
  P('a-rest-parameter-after-the-set',
    'function addAll(s, ...more) { for (const x of more) s.add(x) }',
    'const s = new Set()\naddAll(s, 1, 2, 2)\naddAll(s)\naddAll(s, ...words)\nreturn [...s]'),
]

describe('a Map or Set passed to a helper gives JavaScript\'s results', () => {
  testSideBySide(PROGRAMS, AgentVM)

  test('async helpers, and helpers run by Promise.all, change the one Set', async () => {
    const run = async (source: string) => (await new AgentVM().run(transpile(source).ast, { xs: [1, 2, 3] }, { fuel: 1e6 })).result
    expect(await run('async function add(s, x) { s.add(x); return s.size }\nasync function f({ xs }) { const s = new Set(); const a = await add(s, 1); const b = await add(s, 2); return [a, b, [...s]] }')).toEqual([1, 2, [1, 2]])
    expect(await run('async function add(s, x) { s.add(x * 2) }\nasync function f({ xs }) { const s = new Set(); await Promise.all(xs.map(async (x) => add(s, x))); return [...s].sort() }')).toEqual([2, 4, 6])
  })

  test('the helper gets the caller\'s entries as they are: one array, no copy', () => {
    const { ast } = transpile('function add(s, x) { s.add(x) }\nfunction f({ x }) { const s = new Set(); add(s, x); return s.size }')
    const text = JSON.stringify(ast)
    expect(text).toContain('"call","callee":"add","args":[{"$expr":"ident","name":"s"}')
    expect(JSON.stringify(ast.functions!.add)).toContain('"method":"insert"')
  })
})

/** The refusal of `source`: its code, line and column, message and hint. */
function refusal(source: string): { code: string; line: number; column: number; message: string; hint: string } {
  try { transpile(source) } catch (e) {
    if (!(e instanceof TranspileError)) throw e
    return { code: e.code, line: e.line, column: e.column, message: e.message.split('\n')[0]!, hint: e.hint }
  }
  throw new Error(`accepted: ${source}`)
}

describe('what a helper cannot get as a Map or Set is refused, located, with the fix', () => {
  const cases: Array<[what: string, source: string, code: string, line: number, text: string, hint: string]> = [
    ['a Set at one call, an array at another', 'function count(s) { return s.length }\nfunction f({ xs }) {\n  const s = new Set(xs)\n  return count(s) + count(xs)\n}', 'AJS2075', 4, 's) + count(xs)', '`[...s]`'],
    ['the array first: the Set call is the one named', 'function count(s) { return s.length }\nfunction f({ xs }) {\n  const s = new Set(xs)\n  const n = count(xs)\n  return n + count(s)\n}', 'AJS2075', 5, 's)', 'new Set(xs)'],
    ['a Map at one call, a Set at another', 'function size(c) { return c.size }\nfunction f() {\n  const m = new Map(), s = new Set()\n  return size(m) + size(s)\n}', 'AJS2075', 4, 'm) + size(s)', 'new Map(entries)'],
    ['a call passing nothing', 'function size(s) { return 0 }\nfunction f() {\n  const s = new Set()\n  return size(s) + size()\n}', 'AJS2075', 4, 's) + size()', '`[...s]`'],
    ['a helper also passed as a callback', 'function size(s) { return 0 }\nfunction f({ xs }) {\n  const s = new Set()\n  size(s)\n  return xs.map(size)\n}', 'AJS2075', 4, 's)', 'callback'],
    ['a parameter given a default', 'function add(x, s = []) { return x }\nfunction f() {\n  const s = new Set()\n  return add(1, s)\n}', 'AJS2076', 4, 's)', 'plain parameter'],
    ['a destructured parameter', 'function first([a]) { return a }\nfunction f() {\n  const s = new Set([1])\n  return first(s)\n}', 'AJS2076', 4, 's)', 'plain parameter'],
    ['a rest parameter', 'function addAll(...sets) { return 1 }\nfunction f() {\n  const s = new Set()\n  return addAll(s)\n}', 'AJS2076', 4, 's)', 'rest parameter is an array'],
    ['a helper returning the Set it is given', 'function add(s, x) {\n  s.add(x)\n  return s\n}\nfunction f() {\n  const s = new Set()\n  add(s, 1)\n  return [...s]\n}', 'AJS2055', 3, 's', 'need not return it'],
    ['a helper storing the Map it is given', 'function keep(m) {\n  return { m }\n}\nfunction f() {\n  return keep(new Map())\n}', 'AJS2045', 2, 'm }', 'Object.fromEntries(m)'],
    ['a Map parameter assigned an array', 'function reset(m) {\n  m = []\n}\nfunction f() {\n  const m = new Map()\n  reset(m)\n  return m.size\n}', 'AJS2045', 2, 'm = []', '`[...m]`'],
    ['a Set passed to an atom from a helper', 'function send(s) {\n  return httpFetch({ url: "u", body: s })\n}\nfunction f() {\n  return send(new Set([1]))\n}', 'AJS2055', 2, 's })', '`[...s]`'],
  ]
  for (const [what, source, code, line, text, hint] of cases) {
    test(what, () => {
      const r = refusal(source)
      expect({ code: r.code, line: r.line }).toEqual({ code, line })
      // Located at the argument, the statement or the value the message is about.
      expect(source.split('\n')[line - 1]!.slice(r.column)).toStartWith(text)
      expect(r.hint).toContain(hint)
    })
  }

  test('the message names the helper, the parameter and the other call\'s line', () => {
    const r = refusal('function count(s) { return 1 }\nfunction f({ xs }) {\n  const s = new Set(xs)\n  count(xs)\n  return count(s)\n}')
    expect(r.message).toContain('`count` is called with a Set for its parameter `s` here, but at line 4 it gets something else (`xs`)')
  })
})
