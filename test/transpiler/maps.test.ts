/**
 * Maps (src/transpiler/lower/maps.ts, src/vm/builtins/maps.ts): a Map kept in a variable and used
 * through its methods, `size`, spread and `for...of` gives JavaScript's results; handed on as an
 * object it is refused, located, with the rewrite.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, refusal, testRefusals, testSideBySide } from './differential/harness.ts'

const ARGS = { words: 'the cat and the hat and the bat'.split(' '), items: [{ id: 3, n: 'c' }, { id: 1, n: 'a' }, { id: 3, n: 'C' }], o: { b: 2, a: 1, 10: 'ten', 2: 'two' } }
const P = (name: string, body: string): Program => ({ name, source: `function main({ words, items, o }) {\n${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('count-words', 'const counts = new Map()\nfor (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1)\nreturn [...counts]'),
  P('index-by-id', 'const byId = new Map(items.map((x) => [x.id, x]))\nreturn [byId.size, byId.get(3).n, byId.get(1).n, byId.has(2), [...byId.keys()]]'),
  P('key-types', "const m = new Map([[1, 'num'], ['1', 'text'], [NaN, 'nan'], [-0, 'zero'], [true, 'yes']])\nreturn [m.get(1), m.get('1'), m.get(NaN), m.get(0), m.get(-0), m.get(true), m.get('true'), m.size, [...m.keys()].map((k) => Object.is(k, -0))]"),
  P('insertion-order', "const m = new Map(Object.entries(o))\nm.set('z', 0)\nm.set('b', 20)\nreturn { keys: [...m.keys()], values: [...m.values()], entries: [...m.entries()] }"),
  P('integer-keys-keep-their-order', "const m = new Map([['10', 1], ['2', 2], ['b', 3]])\nreturn [...m.keys()]"),
  P('delete-and-readd', "const m = new Map([['a', 1], ['b', 2], ['c', 3]])\nconst gone = [m.delete('a'), m.delete('zz')]\nm.set('a', 4)\nreturn [gone, [...m], m.size]"),
  P('chained-set', "const m = new Map().set('x', 1).set('y', 2).set('x', 3)\nreturn [...m]"),
  P('for-of', 'const m = new Map([[1, "one"], [2, "two"]])\nlet out = []\nfor (const [k, v] of m) out.push(`${k}=${v}`)\nreturn out.join("&")'),
  P('object-keys', 'const m = new Map()\nm.set("a", 1)\nm.set("b", [2])\nreturn [Object.fromEntries(m), Array.from(m), new Map(m).size]'),
  P('entries-are-copies', "const m = new Map([['k', 1]])\nconst e = [...m]\ne[0][1] = 99\nconst f = [...m.entries()]\nf[0][1] = 98\nreturn [m.get('k'), e[0][1]]"),
  P('clear', "const m = new Map([['k', 1]])\nm.clear()\nreturn [m.size, m.get('k'), m.has('k')]"),
  P('reassign', "let m = new Map([['a', 1]])\nif (words.length > 2) m = new Map([['b', 2]])\nreturn [...m]"),
  P('group-by', 'const groups = new Map()\nfor (const it of items) {\n  if (!groups.has(it.id)) groups.set(it.id, [])\n  groups.get(it.id).push(it.n)\n}\nreturn [...groups]'),
  P('for-each', "const m = new Map([['a', 1], ['b', 2]])\nconst out = []\nm.forEach((v, k) => { out.push(k + '=' + v) })\nm.forEach((v) => out.push(v * 10))\nlet n = 0\nm.forEach(() => { n++ })\nreturn [out, n]"),
  P('in-callback', "const seen = new Map()\nconst firsts = words.filter((w) => { if (seen.has(w)) return false; seen.set(w, true); return true })\nreturn [firsts, seen.size]"),
  P('set-where-its-value-is-dropped', "const m = new Map()\nwords.forEach((w, i) => m.has(w) || m.set(w, i))\nfor (let i = 0, j = m.set('j', 0); i < 2; i++, m.set('i' + i, i)) m.set('x', i), m.delete('zz')\nfor (m.set('k', 1); m.size < 3;) m.set(m.size, 1)\nlet n = new Map()\nn = m.set('y', 1)\nreturn [[...m], n.size, m.set('z', 2).get('z'), m.set('z', 3).size, [...m.set('w', 4)].length]"),
  // A walk (for...of, forEach, keys(), values(), entries()) reads the entries as JavaScript's iterator does: live.
  P('walk-add-during', "const m = new Map([['a', 1], ['b', 2]])\nconst out = []\nfor (const [k, v] of m) { out.push(k); if (m.size < 6) m.set(k + k, v * 10) }\nm.forEach((v, k) => { out.push(v); if (v < 1000) m.set('x' + v, v * 10) })\nreturn [out, [...m]]"),
  P('walk-delete-ahead', "const m = new Map([[1, 'a'], [2, 'b'], [3, 'c'], [4, 'd']])\nconst out = []\nfor (const [k] of m) { out.push(k); if (k === 1) { m.delete(3); m.delete(4) } }\nconst n = new Map([[1, 'a'], [2, 'b'], [3, 'c']])\nn.forEach((v, k) => { out.push(v); n.delete(k + 1) })\nreturn [out, [...m], [...n]]"),
  P('walk-delete-current', "const m = new Map(words.map((w, i) => [w + i, i]))\nconst out = []\nfor (const [k, v] of m) { m.delete(k); out.push(v, m.size) }\nconst n = new Map([['x', 1], ['y', 2]])\nn.forEach((v, k) => { if (v < 4) { n.delete(k); n.set(k, v + 1); out.push(k + v) } })\nreturn [out, m.size, [...n]]"),
  P('walk-set-existing', "const m = new Map([['a', 1], ['b', 2], ['c', 3]])\nconst out = []\nfor (const [k, v] of m) { out.push(k + v); m.set('a', 10); m.set('c', 30) }\nm.forEach((v, k) => { out.push(v); m.set(k, v + 1) })\nreturn [out, [...m]]"),
  P('walk-clear', "const m = new Map([[1, 1], [2, 2], [3, 3]])\nconst out = []\nfor (const [k] of m) { out.push(k); if (k === 2) { m.clear(); m.set(7, 7); m.set(1, 1) } }\nconst n = new Map([[1, 1], [2, 2]])\nn.forEach((v, k) => { out.push(-k); n.clear() })\nfor (const [k] of n) out.push('never')\nreturn [out, [...m], n.size]"),
  P('walk-past-compaction', "const m = new Map()\nfor (let i = 0; i < 20; i++) m.set(i, i)\nconst out = []\nfor (const [k] of m) { out.push(k); if (k === 4) for (let j = 0; j < 18; j++) if (j !== 4 && j !== 11) m.delete(j); if (k === 11) m.set(4, 'again') }\nreturn [out, [...m]]"),
  P('walk-keys-values-entries', "const m = new Map([['a', 1], ['b', 2]])\nconst out = []\nfor (const k of m.keys()) { out.push(k); if (k.length < 3) m.set(k + 'a', 0) }\nfor (const v of m.values()) { out.push(v); m.delete('bb') }\nfor (const e of m.entries()) { out.push(e.length, e[0]); m.delete('aaa') }\nlet e\nfor (e of m.entries()) e[1] = 5\nreturn [out, [...m], e]"),
  P('walk-leave-early', "const m = new Map([[1, 'a'], [2, 'b'], [3, 'c']])\nconst out = []\nouter: for (const [k] of m) { for (const [j, w] of m) { if (j === 2) continue outer; if (k === 3) break outer; out.push(k * 10 + j) } }\nfor (const [k, v] of m) if (k === 2) { out.push(v); break }\nreturn [out, [0].map(() => { for (const [k, v] of m) if (v === 'c') return k })[0]]"),
  P('walk-forEach-return-and-nesting', "const m = new Map([[1, 'a'], [2, 'b'], [3, 'c']])\nconst out = []\nm.forEach((v, k) => { if (k === 2) { m.set(4, 'd'); return } out.push(v); m.forEach((w, j) => out.push(k * 10 + j)) })\nconst r = m.forEach((v) => v)\nwords.forEach((w) => m.forEach((v, k) => { k = w + k; v = k + v; if (v.length < 7) out.push(v) }))\nreturn [out, r === undefined, words.length > 1 && m.forEach(() => m.delete(1)), m.size]"),
  P('walk-same-map-twice', "const m = new Map([['a', 1]])\nconst out = []\nfor (const [k, v] of m) { if (v < 3) m.set(k + 'x', v + 1); for (const [k2] of m) out.push(k + '>' + k2) }\nreturn out"),
]

describe('a Map gives JavaScript\'s results', () => {
  testSideBySide(PROGRAMS, AgentVM)

  test('a Map variable is its entries; its methods are Map statics', () => {
    const text = JSON.stringify(transpile("function f() { const m = new Map(); m.set('a', 1); return m.get('a') }").ast)
    expect(text).toContain('"object":{"$expr":"ident","name":"Map"},"method":"from"')
    expect(text).toContain('"method":"set","args":[{"$expr":"ident","name":"m"}')
  })

  test('get, has and set are one lookup each: 2,000 sets and gets cost about what 20 do, a hundred times over', async () => {
    const fuel = async (n: number) => (await new AgentVM().run(transpile(`function f() { const m = new Map(); for (let i = 0; i < ${n}; i++) m.set('k' + i, i); let t = 0; for (let i = 0; i < ${n}; i++) t += m.get('k' + i); return t }`).ast, {}, { fuel: 1e6 })).fuelUsed
    const small = await fuel(20)
    const large = await fuel(2000)
    expect(large / small).toBeLessThan(110)
    expect(large / small).toBeGreaterThan(90)
  })
})

describe('a Map handed on as an object is refused, with the rewrite', () => {
  const cases: Array<[string, string, string, string]> = [
    ['returned', 'const m = new Map()\nreturn m', 'AJS2045', '`[...m]`'],
    ['stored', "const m = new Map()\nreturn { m }", 'AJS2045', 'Object.fromEntries(m)'],
    ['written in place as a value', 'return new Map()', 'AJS2045', '[...'],
    ['passed', 'const m = new Map()\nreturn JSON.stringify(m)', 'AJS2045', '`[...m]`'],
    ['compared', 'const m = new Map(), n = new Map()\nreturn m === n', 'AJS2045', '`[...m]`'],
    ['another value assigned', 'let m = new Map()\nm = {}\nreturn 1', 'AJS2045', '`[...m]`'],
    ['forEach with the Map as a third parameter', 'const m = new Map()\nm.forEach((v, k, map) => map)\nreturn 1', 'AJS2045', '`[...map]`'],
    ['forEach of a helper', 'const m = new Map()\nm.forEach(show)\nreturn 1', 'AJS2031', 'forEach'],
    ['an unknown method', 'const m = new Map()\nreturn m.gett(1)', 'AJS2046', 'get'],
    ['a property read', 'const m = new Map()\nreturn m.length', 'AJS2045', '`[...m]`'],
    // set gives the Map back, and an assignment its value: each is a Map wherever its value is read.
    ['set returned', 'const m = new Map()\nreturn m.set(1, 2)', 'AJS2045', '`[...m.set(1, 2)]`'],
    ['set in an array', "const m = new Map()\nreturn [m.set(1, 2)][0].length", 'AJS2045', '[...'],
    ['set in an object', "const m = new Map()\nreturn { a: m.set(1, 2) }", 'AJS2045', '[...'],
    ['set passed', 'const m = new Map()\nreturn JSON.stringify(new Map().set(1, 2))', 'AJS2045', '[...'],
    ['set assigned to another variable', 'const m = new Map()\nlet x = 0\nx = m.set(1, 2)\nreturn x', 'AJS2045', '[...'],
    ['set as a map callback\'s value', 'const m = new Map()\nreturn [1, 2].map((x) => m.set(x, x)).length', 'AJS2045', '[...'],
    ['an assignment read as a value', 'let m = new Map()\nreturn (m = new Map([[3, 4]]))', 'AJS2045', '[...'],
    ['an assignment in an array', 'let m = new Map()\nconst a = [m = new Map()]\nreturn a', 'AJS2045', '[...'],
  ]
  testRefusals(cases)
})

describe('a helper function named Map, Set or Date is not the global', () => {
  // JavaScript calls the helper (`new` of a function returning an object gives that object); AJS has no `new` of a
  // helper, so each is refused: before, new Map(5) was Map.from(5), new Set(xs) Set.from(xs), new Date(5) Date.time(5).
  for (const [name, use] of [['Map', 'const m = new Map([[1, 2]])\nreturn m.size'], ['Set', 'return [...new Set([1, 1])]'], ['Set', 'return new Set([1, 1]).size'], ['Date', 'return new Date(5).getTime()']]) {
    test(`${name}: ${use.split('\n').pop()}`, () => {
      const source = `function ${name}(x) { return { x } }\nfunction main() {\n${use}\n}`
      expect(() => transpile(source)).toThrow(TranspileError)
      expect(refusal(source).line).toBeGreaterThan(2)
    })
  }
})
