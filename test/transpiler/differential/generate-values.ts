/**
 * Second property-based generator (fast-check): programs over the value
 * semantics models rely on, where a VM is most tempted to differ from
 * JavaScript: -0, NaN, huge and tiny floats, overflow past 2^53, bit
 * operations on large numbers, mixed-type `+` and comparisons, key order of
 * integer-like keys, holes, sort stability, astral characters, template
 * conversions of arrays and objects. Control flow is in generate-flow.ts.
 *
 * Every program is valid JavaScript and valid AJS and avoids the documented
 * differences (docs/language.md): no `==` except against null/undefined, no
 * member access on null/undefined except through `?.`, no functions as values.
 * Results are pushed onto `out` through `show`, which keeps -0 visible
 * (the result boundary turns it into 0).
 */
import fc from 'fast-check'
import type { Program } from './harness.ts'
import { flowScenario, resetFlowIds, type Scenario } from './generate-flow.ts'

const pick = <T>(...xs: T[]) => fc.constantFrom(...xs)

// --- numbers -------------------------------------------------------------------

/** Number literals that hit the edges: -0, NaN, the infinities, 2^53 and past it, 2^31/2^32, tiny and huge floats. */
const NUM_LITERALS = [
  '0', '(-0)', '1', '(-1)', '3', '(-7)', '0.1', '2.5', '(-2.5)', '123.456', '1e21', '(-1e21)', '1e-7', '5e-324',
  'NaN', 'Infinity', '(-Infinity)', '(2 ** 53)', '9007199254740993', '(2 ** 31)', '4294967296', '(2 ** 32 + 5)',
  '255', '1.005', '(-1.5e-7)', '1.7976931348623157e308', '0.000001',
]

/** Numbers that come from the arguments (so nothing can be folded at compile time). */
const NUM_VARS = ['n', 'f', 'big', '(n * 0 * -1)', 'xs.length']

export const num: fc.Arbitrary<string> = fc.letrec<{ num: string }>((tie) => ({
  num: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    pick(...NUM_LITERALS),
    pick(...NUM_VARS),
    fc.tuple(tie('num'), pick('+', '-', '*', '/', '%', '**'), tie('num')).map(([l, o, r]) => `(${l} ${o} ${r})`),
    fc.tuple(tie('num'), pick('&', '|', '^', '<<', '>>', '>>>'), tie('num')).map(([l, o, r]) => `(${l} ${o} ${r})`),
    tie('num').map((x) => `(-(${x}))`),
    tie('num').map((x) => `(~(${x}))`),
    fc.tuple(pick('round', 'trunc', 'sign', 'floor', 'ceil', 'abs'), tie('num')).map(([m, x]) => `Math.${m}(${x})`),
    fc.tuple(pick('min', 'max'), tie('num'), tie('num')).map(([m, x, y]) => `Math.${m}(${x}, ${y})`),
  ),
})).num

/** Values of other types that JS lets `+` and the comparisons take. */
const OTHER = ["'7'", "'abc'", "''", "' 12 '", "'1e3'", 'null', 'undefined', 'true', 'false', '[1, 2]', '[]', '[5]', '{ a: 1 }', 's']

const numToText = fc.oneof(
  num.map((x) => `String(${x})`),
  num.map((x) => `\`\${${x}}\``),
  num.map((x) => `JSON.stringify(${x})`),
  num.map((x) => `(${x} + '')`),
  fc.tuple(num, fc.integer({ min: 0, max: 20 })).map(([x, d]) => `(${x}).toFixed(${d})`),
  fc.tuple(num, fc.integer({ min: 1, max: 21 })).map(([x, d]) => `(${x}).toPrecision(${d})`),
  fc.tuple(num, pick(2, 8, 16, 36)).map(([x, r]) => `(${x}).toString(${r})`),
  fc.tuple(num, fc.integer({ min: 0, max: 8 })).map(([x, d]) => `(${x}).toExponential(${d})`),
)

const numTest = fc.oneof(
  fc.tuple(num, pick('<', '<=', '>', '>=', '===', '!=='), num).map(([l, o, r]) => `(${l} ${o} ${r})`),
  fc.tuple(num, pick('== null', '!= null', '== undefined', '!= undefined')).map(([x, t]) => `(${x} ${t})`),
  fc.tuple(pick(...OTHER), pick('== null', '!= null', '== undefined', '!= undefined')).map(([x, t]) => `(${x} ${t})`),
  num.map((x) => `[${x}].includes(NaN)`),
  num.map((x) => `[${x}].indexOf(${x})`),
  num.map((x) => `Number.isInteger(${x})`),
  num.map((x) => `Number.isSafeInteger(${x})`),
  num.map((x) => `isNaN(${x})`),
  fc.tuple(num, num).map(([x, y]) => `Object.is(${x}, ${y})`),
)

const mixed = fc.oneof(
  fc.tuple(num, pick('+', '-', '*', '<', '>=', '>'), pick(...OTHER)).map(([l, o, r]) => `(${l} ${o} ${r})`),
  fc.tuple(pick(...OTHER), pick('+', '-', '<', '<=', '>'), num).map(([l, o, r]) => `(${l} ${o} ${r})`),
  fc.tuple(pick(...OTHER), pick('+', '<', '>='), pick(...OTHER)).map(([l, o, r]) => `(${l} ${o} ${r})`),
  pick(...OTHER).map((x) => `(+${x})`),
  pick(...OTHER).map((x) => `Number(${x})`),
)

const numbers = fc.array(fc.oneof(num, numToText, numTest, mixed), { minLength: 1, maxLength: 6 })
  .map((es) => es.map((e) => `out.push(show(${e}))`).join('\n'))

// --- strings -------------------------------------------------------------------

const STRINGS = ["'abc'", "'a😀b'", "'😀𝒳'", "''", "'ßx'", "'Ab'", "'aB'", "'10'", "'9'", "'é'", "'e\\u0301'", 's']
const str = pick(...STRINGS)
const idx = fc.integer({ min: -6, max: 6 })

/** Values a template literal or String() converts: arrays (nested, with null/undefined), objects, null, -0. */
const TEMPLATE_VALUES = ['[1, [2, 3]]', '[null, undefined, 0]', '[]', '{}', '{ a: 1 }', 'null', 'undefined', '(-0)', 'xs', 'true', '[[], [[]]]', "['a', ['b']]"]

const strings = fc.array(fc.oneof(
  str.map((x) => `out.push([...${x}])`),
  str.map((x) => `for (const ch of ${x}) {\nout.push(ch)\n}`),
  fc.tuple(str, idx, idx).map(([x, i, j]) => `out.push(${x}.slice(${i}, ${j}), ${x}.substring(${i}, ${j}), ${x}.slice(${i}))`),
  fc.tuple(str, idx).map(([x, i]) => `out.push(${x}.at(${i}), ${x}.charAt(${i}), ${x}.length, ${x}.split(''))`),
  fc.tuple(str, pick('<', '<=', '>', '>=', '===', '!=='), str).map(([l, o, r]) => `out.push(${l} ${o} ${r})`),
  fc.tuple(str, str).map(([x, y]) => `out.push(${x}.indexOf(${y}), ${x}.includes(${y}), ${x} + ${y})`),
  fc.array(pick(...TEMPLATE_VALUES), { minLength: 1, maxLength: 3 }).map((vs) => `out.push(\`<${vs.map((v) => `\${${v}}`).join('|')}>\`)`),
  pick(...TEMPLATE_VALUES).map((v) => `out.push(String(${v}), '' + ${v})`),
  fc.tuple(str, fc.integer({ min: 0, max: 8 }), str).map(([x, k, p]) => `out.push(${x}.padStart(${k}, ${p} || '*'), ${x}.padEnd(${k}))`),
), { minLength: 1, maxLength: 5 }).map((ss) => ss.join('\n'))

// --- objects -------------------------------------------------------------------

/** Keys whose order JS defines: integer-like ones first, ascending; the rest in insertion order. */
const KEYS = ["'b'", "'a'", "'1'", "'0'", "'10'", "'2'", "'-1'", "'01'", "'1.5'", "'z'", "'4294967295'", "'length'"]
const key = pick(...KEYS)
const VALUES = ['1', "'v'", 'null', 'undefined', '0', '(-0)', 'NaN', '[1]', '{ q: 1 }', 'false', "''"]
const value = pick(...VALUES)

const literalEntry = fc.oneof(
  fc.tuple(key, value).map(([k, v]) => `[${k}]: ${v}`),
  fc.tuple(pick('a', 'b', 'z', '3', '0', '7'), value).map(([k, v]) => `${k}: ${v}`),
  pick('n', 's'),
  fc.tuple(key, value).map(([k, v]) => `...{ [${k}]: ${v} }`),
  pick('...xs', "...'hi'", '...null', '...undefined'),
)

const objectOp = fc.oneof(
  fc.tuple(key, value).map(([k, v]) => `o[${k}] = ${v}`),
  key.map((k) => `out.push(delete o[${k}])`),
  key.map((k) => `out.push(${k} in o)`),
  fc.tuple(key, key).map(([k, j]) => `for (const k in o) {\ndelete o[${k}]\nout.push(k)\no[${j}] = k\n}`),
  fc.constantFrom(
    'out.push(Object.keys(o))', 'out.push(JSON.stringify(o))', 'out.push(Object.entries(o).map(([k, v]) => k + \'=\' + show(v)))',
    'out.push(Object.values(o).map((v) => show(v)))', 'for (const k in o) {\nout.push(k)\n}',
    'out.push(Object.keys(Object.fromEntries(Object.entries(o).reverse())))', "out.push('toString' in o, 'valueOf' in o)",
    'out.push(Object.keys({ ...o, z: 0, 0: 0 }))', 'out.push(JSON.stringify(o, null, 1))',
  ),
  fc.tuple(key, value, pick('a', 'b', 'z')).map(([k, d, m]) =>
    `{\nconst { [${k}]: d1 = ${d}, ${m}: d2 = 'dflt', ...rest } = o\nout.push(show(d1), show(d2), Object.keys(rest))\n}`),
)

const NESTED = '{ p: null, u: undefined, q: { r: 0, s: \'\', t: [null, { w: false }] } }'
const OPTIONAL = [
  'm.p?.x', 'm.u?.[0]', "m.q?.r ?? 'd'", "m.p ?? 'd'", "m.q.s ?? 'd'", "m.q.s || 'd'", 'm.missing?.deep.deeper', '(m.p?.x ?? 1) + 1',
  'm.q?.t?.[1]?.w', 'm.q.t[0]?.w', "m.q.t?.[2]?.w ?? 'none'", 'm.u?.a.b.c', "'q' in m", "'u' in m", "'missing' in m",
  '(m.q.r ?? 5) + (m.u ?? 5)', 'm.q?.t?.length',
]
const optional = fc.array(pick(...OPTIONAL), { minLength: 1, maxLength: 4 })
  .map((es) => `{\nconst m = ${NESTED}\nout.push(${es.map((e) => `show(${e})`).join(', ')})\n}`)

const destructure = fc.tuple(value, value, fc.boolean()).map(([d1, d2, arr]) => arr
  ? `{\nconst [p1, [p2 = ${d1}] = [], ...pr] = [xs[0], xs.slice(1), ...xs]\nout.push(show(p1), show(p2), pr)\n}`
  : `{\nconst { a: { b: p1 = ${d1}, ...pr } = {}, c: [p2 = ${d2}] = [], ...top } = { a: { b: undefined, x: 1, 2: 2 }, c: [null], d: 4, 1: 1 }\nout.push(show(p1), show(p2), Object.keys(pr), Object.keys(top))\n}`)

const objects = fc.tuple(fc.array(literalEntry, { maxLength: 5 }), fc.array(objectOp, { minLength: 1, maxLength: 6 }), fc.option(optional), fc.option(destructure))
  .map(([entries, ops, opt, des]) => [`const o = { ${entries.join(', ')} }`, ...ops, opt ?? '', des ?? ''].join('\n'))

// --- arrays --------------------------------------------------------------------

const ELEMENTS = ['3', '1', '10', '2', '(-0)', 'NaN', 'undefined', 'null', "'b'", "'a'", "'10'", "'B'", '[1, [2, [3]]]', '[]', '0.5', '(-1)']
const element = pick(...ELEMENTS)

const arrayMake = fc.oneof(
  fc.array(element, { maxLength: 6 }).map((es) => `[${es.join(', ')}]`),
  fc.array(element, { maxLength: 3 }).map((es) => `[...xs, ${es.join(', ')}]`),
  fc.array(element, { maxLength: 3 }).map((es) => `[${es.map((e) => `${e}, `).join('')}...'a😀']`),
)

const arrayChange = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 9 }), element).map(([i, v]) => `a[${i}] = ${v}`),
  fc.integer({ min: 0, max: 8 }).map((k) => `a.length = ${k}`),
  fc.integer({ min: 0, max: 5 }).map((i) => `delete a[${i}]`),
  element.map((v) => `a.push(${v})`),
)

const arrayLook = fc.oneof(
  pick(
    'a.length', 'Object.keys(a)', 'a.map((x) => show(x))', 'Object.keys(a.map((x) => 0))', 'a.filter(() => true).length',
    'a.reduce((acc, x) => acc + 1, 0)', 'a.includes(NaN)', 'a.indexOf(NaN)', 'a.includes(undefined)', 'a.indexOf(undefined)',
    'a.lastIndexOf(undefined)', 'a.join(\'-\')', 'JSON.stringify(a)', '[...a].length', 'String(a)', 'a.slice().sort()',
    'a.slice().reverse().length', 'a.some((x) => x === undefined)', 'a.every((x) => x !== undefined)', 'a.findIndex((x) => x === undefined)',
    'a.flat().length', 'a.flat(Infinity)', 'a.concat([7]).length', 'Object.entries(a).length', 'a.toSorted().length',
    'a.findLast((x) => x !== undefined)', 'a.flatMap((x) => [x, x]).length', 'a.includes(0)', 'a.indexOf(0)',
    // Callbacks with a loop inside take the VM's pausing path (they may wait between time slices).
    'a.map((x) => {\nlet c = 0\nfor (let k = 0; k < 2; k++) c++\nreturn show(x) + c\n})',
    'a.reduce((acc, x) => {\nfor (let k = 0; k < 1; k++) acc++\nreturn acc\n}, 0)', 'a.filter((x) => {\nlet k = 0\nwhile (k < 1) k++\nreturn x !== null\n}).length',
  ).map((e) => `show(${e})`),
  fc.integer({ min: -4, max: 4 }).map((i) => `show(a.at(${i}))`),
  fc.integer({ min: 0, max: 3 }).map((d) => `a.flat(${d})`),
)

const sorts = fc.oneof(
  fc.array(fc.integer({ min: -20, max: 20 }), { maxLength: 8 }).map((xs) =>
    `out.push([${xs.join(', ')}].sort(), [${xs.join(', ')}].sort((p, q) => p - q), [${xs.join(', ')}].sort((p, q) => q - p))`),
  // Comparators whose result JS converts with ToNumber (not booleans: engines sort with those differently).
  fc.tuple(fc.array(fc.integer({ min: -20, max: 20 }), { maxLength: 8 }), pick('String(p - q)', '[q - p]', "p < q ? '-1' : p > q ? '1' : null", 'p === q ? undefined : p - q'))
    .map(([xs, c]) => `out.push([${xs.join(', ')}].sort((p, q) => ${c}), [${xs.join(', ')}].toSorted((p, q) => ${c}))`),
  fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom('a', 'b', 'c', 'd', 'e')), { maxLength: 8 }).map((rs) =>
    `out.push([${rs.map(([k, id]) => `{ k: ${k}, id: '${id}' }`).join(', ')}].sort((p, q) => p.k - q.k).map((r) => r.id + r.k))`),
  fc.array(pick("'b'", "'a'", "'B'", "'10'", "'9'", "'é'", "'😀'", "'ｚ'", 'undefined', '1', '2'), { maxLength: 7 }).map((xs) =>
    `out.push([${xs.join(', ')}].sort().map((x) => show(x)))`),
)

const arrays = fc.tuple(arrayMake, fc.array(arrayChange, { maxLength: 3 }), fc.array(arrayLook, { minLength: 1, maxLength: 5 }), fc.option(sorts))
  .map(([make, changes, looks, sort]) => [`{\nconst a = ${make}`, ...changes, `out.push(${looks.join(', ')})`, sort ?? '', '}'].join('\n'))

// --- variables updated in loops (the VM's fused `slot op slot` / `(x op y) op z` steps) ------

/** Starting values of every type: the fused steps take only numbers, the rest must fall back with JS's coercions. */
const START = ['0', '(-0)', '1', '(-1)', '7', '0.5', 'NaN', "'3'", "'a'", "''", 'null', 'undefined', 'true', '[2]', 'n', 'f', 'big', '2147483647']
const OPS = ['+', '-', '*', '/', '%', '**', '&', '|', '^', '<<', '>>', '>>>']
const slotVar = pick('v0', 'v1', 'v2')
const slotOperand = fc.oneof(slotVar, pick('1', '2', '(-1)', '0', '0.5', '3'))
const slotStep = fc.oneof(
  fc.tuple(slotVar, slotVar, pick(...OPS), slotOperand).map(([t, x, o, y]) => `${t} = ${x} ${o} ${y}`),
  fc.tuple(slotVar, pick(...OPS), slotOperand).map(([t, o, y]) => `${t} ${o}= ${y}`),
  fc.tuple(slotVar, slotVar, pick('+', '-', '*', '%'), slotOperand, pick('+', '-', '*', '%', '<', '<=', '===', '!=='), slotOperand)
    .map(([t, x, o1, y, o2, z]) => `${t} = (${x} ${o1} ${y}) ${o2} ${z}`),
  fc.tuple(slotVar, pick('++', '--')).map(([t, o]) => `${t}${o}`),
  fc.tuple(slotVar, slotVar).map(([t, x]) => `if (typeof ${t} === 'number' && ${t} > 1e6) ${t} = ${x} === ${x} ? 1 : 2`),
)
const slots = fc.tuple(fc.array(pick(...START), { minLength: 3, maxLength: 3 }), fc.integer({ min: 1, max: 6 }), fc.array(slotStep, { minLength: 1, maxLength: 4 }))
  .map(([starts, k, steps]) => `let v0 = ${starts[0]}, v1 = ${starts[1]}, v2 = ${starts[2]}
for (let i = 0; i < ${k}; i++) {
${steps.join('\n')}
out.push(show(v0), show(v1), show(v2))
}`)

/** One statement group of the value scenarios. */
export const valueScenario: fc.Arbitrary<string> = fc.oneof(numbers, strings, objects, arrays, slots)

// --- programs ------------------------------------------------------------------


/**
 * `show(v)`: -0 and undefined as texts (the result boundary would make them 0 and null), an
 * array item by item; every other value as it is.
 */
const SHOW = `function show(v) {
  if (typeof v === 'number' && v === 0 && 1 / v < 0) return '-0'
  if (v === undefined) return '<undefined>'
  if (Array.isArray(v)) return v.map((x) => show(x))
  return v
}`

const scenario: fc.Arbitrary<Scenario> = fc.oneof(
  { arbitrary: valueScenario.map((body) => ({ body: `{\n${body}\n}`, helpers: [] })), weight: 3 },
  { arbitrary: flowScenario, weight: 2 },
)

const program = fc.record({
  scenarios: fc.array(scenario, { minLength: 1, maxLength: 4 }),
  args: fc.record({
    n: fc.integer({ min: -10, max: 30 }),
    f: fc.constantFrom(0.5, -1.25, 1e-7, 3.14159, 1e21, -2.5, 0.1),
    big: fc.integer({ min: -5, max: 5 }).map((k) => 2 ** 40 + k),
    s: fc.constantFrom('abc', 'a😀b', '', 'Zz', '10'),
    xs: fc.array(fc.integer({ min: -5, max: 12 }), { maxLength: 5 }),
  }),
})

/** `count` generated programs, deterministic (fixed seed). */
export function generatedValuePrograms(count: number, seed = 20261127): Program[] {
  resetFlowIds()
  return fc.sample(program, { seed, numRuns: count }).map((g, i) => {
    const helpers = g.scenarios.flatMap((x) => x.helpers)
    const source = `${SHOW}\n\n${helpers.map((h) => `${h}\n\n`).join('')}function main({ n, f, big, s, xs }) {
  const out = []
  ${g.scenarios.map((x) => x.body).join('\n')}
  return { out }
}
`
    return { name: `values-${i}`, source, args: g.args }
  })
}
