/**
 * Sets kept in a variable (src/transpiler/lower/set-vars.ts, src/vm/builtins/set-vars.ts): used through
 * their methods, `size`, spread, `Array.from` and `for...of`, side by side with JavaScript; handed on as an
 * object they are refused, located, with the rewrite.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { type Program, testRefusals, testSideBySide } from './differential/harness.ts'

const ARGS = {
  xs: [{ id: 3, n: 'c' }, { id: 1, n: 'a' }, { id: 3, n: 'C' }, { id: 2, n: 'b' }],
  items: [{ tags: ['x', 'b'] }, { tags: ['a', 'x'] }, { tags: [] }],
  nums: [3, 1, 3, NaN, 2, NaN, -0, 0, '3', 1],
  text: 'mississippi',
}
const P = (name: string, body: string): Program => ({ name, source: `function main({ xs, items, nums, text }) {\n${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('seen-dedupe', 'const seen = new Set()\nconst out = []\nfor (const x of xs) { if (seen.has(x.id)) continue; seen.add(x.id); out.push(x) }\nreturn [out, seen.size]'),
  P('tags-sorted', 'const tags = new Set(items.flatMap((i) => i.tags))\nreturn [...tags].sort()'),
  P('members-samevaluezero', 'const s = new Set(nums)\nreturn [[...s], s.size, s.has(NaN), s.has(0), s.has(-0), s.has("1"), [...s].map((x) => Object.is(x, -0))]'),
  P('add-minus-zero', 'const s = new Set()\ns.add(-0)\ns.add(0)\nreturn [s.size, Object.is([...s][0], -0), s.has(0)]'),
  P('delete-size-clear', "const s = new Set(['a', 'b', 'c'])\nconst gone = [s.delete('a'), s.delete('zz'), s.delete('a')]\nconst mid = [s.size, [...s]]\ns.add('a')\nconst after = [...s]\ns.clear()\nreturn [gone, mid, after, s.size, s.has('b'), [...s]]"),
  P('text-characters', 'const s = new Set(text)\nreturn [s.size, [...s].join("")]'),
  P('null-and-nothing', 'const a = new Set(null), b = new Set(undefined), c = new Set()\nreturn [a.size, b.size, c.size]'),
  P('array-from', 'const s = new Set([3, 1, 3])\nreturn [Array.from(s), Array.from(s, (x, i) => x * 10 + i), Math.max(...s)]'),
  P('values-keys-entries', "const s = new Set(['p', 'q'])\nconst e = [...s.entries()]\ne[0][0] = 'zz'\nreturn [[...s.values()], Array.from(s.keys()), [...s.entries()], [...s]]"),
  P('copies-are-copies', 'const s = new Set([1, 2])\nconst a = [...s]\na.push(3)\nconst v = Array.from(s)\nv.push(4)\nreturn [s.size, [...s]]'),
  P('chained-add', "const s = new Set().add('x').add('y').add('x')\ns.add(1).add(2)\nreturn [...s]"),
  P('new-set-of-set-and-map', "const s = new Set([1, 2])\nconst t = new Set(s)\nt.add(3)\nconst m = new Map([['k', 1]])\nconst u = new Set(m)\nreturn [[...s], [...t], u.size]"),
  P('for-of', 'const s = new Set(["a", "b"])\nconst out = []\nfor (const x of s) out.push(x.toUpperCase())\nreturn out'),
  P('for-each', "const s = new Set(['a', 'b'])\nconst out = []\ns.forEach((v, k) => { out.push(v + k) })\ns.forEach((v) => out.push(v))\nlet n = 0\ns.forEach(() => { n++ })\nconst r = s.forEach((v) => v)\nreturn [out, n, r === undefined]"),
  P('in-callbacks', 'const seen = new Set()\nconst firsts = xs.filter((x) => { if (seen.has(x.id)) return false; seen.add(x.id); return true })\nxs.forEach((x) => seen.add(x.n))\nreturn [firsts.map((x) => x.n), seen.size, xs.map((x) => seen.has(x.n))]'),
  P('reassign', 'let s = new Set([1])\nif (xs.length > 2) s = new Set([2, 2, 3])\nlet t = s\nt.add(4)\nreturn [[...s], s.size]'),
  P('alias-shares', 'const s = new Set()\nconst t = s\nt.add(1)\nreturn [s.has(1), s.size]'),
  P('objects-by-identity', 'const s = new Set()\nfor (const x of xs) s.add(x)\nconst copy = { ...xs[0] }\nreturn [s.size, s.has(xs[0]), s.has(copy)]'),
  P('difference-by-spread', 'const a = new Set([1, 2, 3, 4]), b = new Set([2, 4])\nreturn [...a].filter((x) => !b.has(x))'),
  P('delete-add-loop', 'const s = new Set()\nfor (let i = 0; i < 300; i++) { s.add(i); if (i % 3 !== 0) s.delete(i - 1) }\nreturn [s.size, [...s].slice(0, 8), s.has(299), s.has(298)]'),
  P('add-where-value-dropped', "const s = new Set()\nxs.forEach((x) => s.has(x.id) || s.add(x.id))\nfor (let i = 0; i < 2; i++, s.add('i' + i)) s.add(i)\nreturn [...s]"),
  P('walk-reaches-added', 'const s = new Set([1])\nconst out = []\nfor (const x of s) { out.push(x); if (x < 5) s.add(x + 1) }\nreturn out'),
  P('walk-skips-deleted-and-revisits-readded', "const s = new Set(['a', 'b', 'c', 'd'])\nconst out = []\nfor (const x of s) { out.push(x); if (x === 'a') { s.delete('c'); s.delete('a'); s.add('a') } if (out.length > 9) break }\nreturn out"),
  P('walk-across-clear', 'const s = new Set([1, 2, 3])\nconst out = []\nfor (const x of s) { out.push(x); if (x === 1 && out.length === 1) { s.clear(); s.add(7); s.add(1) } }\nreturn [out, [...s]]'),
  P('walk-across-compaction', 'const s = new Set()\nfor (let i = 0; i < 40; i++) s.add(i)\nconst out = []\nfor (const x of s) { if (x === 5) for (let i = 6; i < 38; i++) s.delete(i); out.push(x) }\nreturn out'),
  P('walk-leave-early', 'const s = new Set([1, 2, 3])\nconst out = []\nouter: for (const x of s) { for (const y of s) { if (y === 2) continue outer; if (x === 3) break outer; out.push(x * 10 + y) } }\nfor (const x of s) if (x === 2) { out.push(x); break }\nreturn out'),
  P('walk-worklist', "const graph = { a: ['b', 'c'], b: ['d'], c: ['d', 'a'], d: [] }\nconst reached = new Set(['a'])\nfor (const n of reached) for (const m of graph[n]) reached.add(m)\nreturn [...reached]"),
  P('walk-values-keys-entries', "const s = new Set(['a'])\nconst out = []\nfor (const x of s.values()) { out.push(x); if (x.length < 3) s.add(x + 'v') }\nfor (const x of s.keys()) out.push(x.toUpperCase())\nfor (const [k, v] of s.entries()) { out.push(k + v); s.delete(k) }\nreturn [out, s.size]"),
  P('for-each-live', 'const s = new Set([1])\nconst out = []\ns.forEach((x) => { out.push(x); if (x < 4) s.add(x * 2); if (x === 2) return; out.push(-x) })\nreturn out'),
  P('add-in-a-sequence', 'const seen = new Set()\nconst firsts = xs.filter((x) => !seen.has(x.id) && (seen.add(x.id), true))\nconst m = new Map()\nconst n = (m.set(1, 2), seen.add(9), m.size + seen.size)\nreturn [firsts.map((x) => x.n), n]'),
  P('add-tested-by-a-callback', "const seen = new Set()\nconst firsts = xs.filter((x) => !seen.has(x.id) && seen.add(x.id))\nconst more = [5, 1, 6].some((n) => seen.has(n) || seen.add(n) && n > 5)\nconst f = ['a', 'b'].find((t) => t === 'z' ? false : seen.add(t))\nreturn [firsts.map((x) => x.n), more, f, [...seen]]"),
  P('union-intersection-difference', 'const a = new Set([1, 2, 3, 4]), b = new Set([6, 4, 2])\nconst u = a.union(b), i = a.intersection(b), j = b.intersection(a), d = a.difference(b), x = a.symmetricDifference(b)\nu.add(7)\nreturn [[...u], [...i], [...j], [...d], [...x], u.size, a.size, [...a.union(new Set([0])).add(9)], b.difference(a).has(6)]'),
  P('subset-superset-disjoint', "const a = new Set([1, 2]), b = new Set([1, 2, 3]), m = new Map([[1, 'x'], [5, 'y']])\nreturn [a.isSubsetOf(b), b.isSubsetOf(a), b.isSupersetOf(a), a.isSupersetOf(b), a.isDisjointFrom(new Set([3])), a.isDisjointFrom(b), [...a.union(m)], a.intersection(m).size, a.isSubsetOf(m)]"),
  P('two-sets-of-texts-and-nan', "const a = new Set(['x', NaN, 0]), b = new Set([-0, 'y', NaN])\nconst c = a.intersection(b)\nfor (const v of a.symmetricDifference(b)) c.add(v + '!')\nreturn [[...c].map(String), a.union(b).size]"),
  P('size-of-chain', 'const s = new Set([1])\nreturn [s.add(2).size, s.add(2).has(2), [...s.add(3)]]'),
]

describe('a Set kept in a variable gives JavaScript\'s results', () => {
  testSideBySide(PROGRAMS, AgentVM)

  test('a Set variable is its members; its methods are Set statics of the maps part', () => {
    const text = JSON.stringify(transpile('function f({ x }) { const s = new Set(); s.add(x); return [s.has(x), s.size] }').ast)
    for (const method of ['create', 'insert', 'contains', 'count']) expect(text).toContain(`"object":{"$expr":"ident","name":"Set"},"method":"${method}"`)
  })

  test('has, add and delete are one lookup each: 2,000 of them cost about what 20 do, a hundred times over', async () => {
    const fuel = async (n: number) => (await new AgentVM().run(transpile(`function f() { const s = new Set(); for (let i = 0; i < ${n}; i++) s.add('k' + i); let t = 0; for (let i = 0; i < ${n}; i++) if (s.has('k' + i)) t++; for (let i = 0; i < ${n}; i++) s.delete('k' + i); return t }`).ast, {}, { fuel: 1e6 })).fuelUsed
    const small = await fuel(20)
    const large = await fuel(2000)
    expect(large / small).toBeLessThan(110)
    expect(large / small).toBeGreaterThan(90)
  })
})

describe('a Set handed on as an object is refused, with the rewrite', () => {
  const cases: Array<[string, string, string, string]> = [
    ['returned', 'const s = new Set()\nreturn s', 'AJS2055', '`[...s]`'],
    ['stored', 'const s = new Set()\nreturn { s }', 'AJS2055', '`[...s]`'],
    ['passed', 'const s = new Set()\nreturn JSON.stringify(s)', 'AJS2055', '`[...s]`'],
    ['passed to a helper that gets something else elsewhere', 'const s = new Set()\nreturn [show(s), show([1])]', 'AJS2075', '`[...s]`'],
    ['typeof', 'const s = new Set()\nreturn typeof s', 'AJS2055', '`[...s]`'],
    ['compared', 'const s = new Set(), t = new Set()\nreturn s === t', 'AJS2055', '`[...s]`'],
    ['written in place as a value', 'return new Set([1])', 'AJS2055', '`[...new Set([1])]`'],
    ['another value assigned', 'let s = new Set()\ns = [1]\nreturn 1', 'AJS2055', '`[...s]`'],
    ['a const reassigned', 'const s = new Set()\ns = new Set()\nreturn 1', 'AJS3003', ''],
    ['add returned', 'const s = new Set()\nreturn s.add(1)', 'AJS2055', '`[...s.add(1)]`'],
    ['add as a map callback\'s value', 'const s = new Set()\nreturn [1, 2].map((x) => s.add(x)).length', 'AJS2055', '[...'],
    ['add as a condition outside a testing callback', 'const s = new Set()\nreturn [1, 1].map((x) => !s.has(x) && s.add(x))', 'AJS2055', '(seen.add(x), true)'],
    ['add last in a sequence read as a value', 'const s = new Set()\nreturn (s.add(1), s.add(2))', 'AJS2055', '[...s.add(2)]'],
    ['an assignment read as a value', 'let s = new Set()\nreturn (s = new Set([3]))', 'AJS2055', '[...'],
    ['forEach with the Set as a third parameter', 'const s = new Set()\ns.forEach((v, k, set) => set)\nreturn 1', 'AJS2055', '`[...set]`'],
    ['forEach of a helper', 'const s = new Set()\ns.forEach(show)\nreturn 1', 'AJS2031', 'forEach'],
    ['a property read', 'const s = new Set()\nreturn s.length', 'AJS2055', '`[...s]`'],
    ['an unknown method', 'const s = new Set()\nreturn s.hass(1)', 'AJS2056', 'has'],
    ['a method of two Sets given an array', 'const s = new Set()\nreturn s.union([1]).size', 'AJS2057', 'new Set(xs)'],
    ['union returned', 'const s = new Set()\nreturn s.union(new Set())', 'AJS2055', '[...'],
    ['a method of a Set AJS has not', 'const s = new Set()\nreturn s.toJSON()', 'AJS2056', 'union'],
    ['a WeakSet', 'const s = new WeakSet()\nreturn 1', 'AJS2034', 'Set'],
  ]
  testRefusals(cases)
})
