/**
 * Property-based program generator (fast-check): random AJS programs made
 * only of constructs whose behaviour AJS shares with JavaScript (no `==`
 * between different types, no member access on null/undefined, bounded
 * loops), so VM and native results must be identical.
 *
 * Variables: integers `a`, `b`, `c`, string `t`, array `arr`; arguments
 * `n` (integer), `s` (string), `xs` (integer array), `flag` (boolean).
 */
import fc from 'fast-check'
import type { Program } from './harness.ts'

const INT_VARS = ['a', 'b', 'c', 'n'] as const

const { int, bool, str } = fc.letrec<{ int: string; bool: string; str: string }>((tie) => ({
  int: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.integer({ min: -20, max: 50 }).map((k) => (k < 0 ? `(${k})` : String(k))),
    fc.constantFrom(...INT_VARS, 'xs.length', 't.length', 'arr.length'),
    fc.tuple(tie('int'), fc.constantFrom('+', '-', '*'), tie('int')).map(([l, o, r]) => `(${l} ${o} ${r})`),
    fc.tuple(tie('int'), fc.integer({ min: 1, max: 9 })).map(([l, k]) => `(${l} % ${k})`),
    fc.tuple(tie('int'), fc.constantFrom('&', '|', '^', '>>', '<<'), fc.integer({ min: 0, max: 5 })).map(([l, o, k]) => `(${l} ${o} ${k})`),
    fc.tuple(tie('bool'), tie('int'), tie('int')).map(([t, x, y]) => `(${t} ? ${x} : ${y})`),
    fc.tuple(tie('int'), tie('int')).map(([x, y]) => `Math.max(${x}, ${y})`),
    tie('int').map((x) => `Math.abs(${x})`),
    tie('int').map((x) => `Math.floor(${x} / 3)`),
    fc.integer({ min: -2, max: 6 }).map((k) => `xs.filter((x) => x > ${k}).length`),
    fc.integer({ min: 1, max: 4 }).map((k) => `xs.reduce((acc, x) => acc + x * ${k}, 0)`),
    fc.integer({ min: 0, max: 9 }).map((k) => `(xs.find((x) => x > ${k}) ?? -1)`),
    fc.integer({ min: 0, max: 9 }).map((k) => `xs.indexOf(${k})`),
    tie('str').map((x) => `${x}.length`),
    tie('int').map((x) => `(-(${x}))`),
    fc.tuple(tie('int'), tie('int')).map(([x, y]) => `[${x}, ${y}].length`),
  ),
  bool: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.constantFrom('true', 'false', 'flag', '(arr.length > 2)'),
    fc.tuple(tie('int'), fc.constantFrom('<', '<=', '>', '>=', '===', '!=='), tie('int')).map(([l, o, r]) => `(${l} ${o} ${r})`),
    fc.tuple(tie('bool'), fc.constantFrom('&&', '||'), tie('bool')).map(([l, o, r]) => `(${l} ${o} ${r})`),
    tie('bool').map((x) => `!${x}`),
    fc.integer({ min: 0, max: 9 }).map((k) => `xs.includes(${k})`),
    fc.integer({ min: 0, max: 9 }).map((k) => `xs.some((x) => x === ${k})`),
    fc.tuple(tie('str'), tie('str')).map(([x, y]) => `(${x} === ${y})`),
  ),
  str: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.constantFrom("'x'", "'ab'", 's', 't', "''"),
    fc.tuple(tie('str'), tie('int')).map(([x, i]) => `\`\${${x}}-\${${i}}\``),
    fc.tuple(tie('str'), tie('str')).map(([x, y]) => `(${x} + ${y})`),
    tie('str').map((x) => `${x}.toUpperCase()`),
    tie('int').map((x) => `String(${x})`),
    fc.tuple(tie('str'), fc.integer({ min: 0, max: 3 })).map(([x, k]) => `${x}.slice(${k})`),
    fc.tuple(tie('bool'), tie('str'), tie('str')).map(([b, x, y]) => `(${b} ? ${x} : ${y})`),
  ),
}))

/** Keep strings from growing without bound inside loops. */
const clampT = 'if (t.length > 40) { t = t.slice(0, 40) }'

let loopId = 0

/** A block's statements on their own lines (so no two statements share a line). */
const inner = (block: string): string => `\n${block.slice(1, -1)}\n`

const stmt: fc.Arbitrary<string> = fc.letrec<{ s: string; block: string }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.tuple(fc.constantFrom('a', 'b', 'c'), int).map(([v, e]) => `${v} = ${e}`),
    fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('+=', '-=', '*=', '|=', '^=', '%='), int).map(([v, o, e]) =>
      o === '%=' ? `${v} %= Math.abs(${e}) + 1` : `${v} ${o} ${e}`),
    fc.constantFrom('a++', 'b--', '++c', 'a = a % 1000', 'b = b % 1000'),
    str.map((e) => `t = ${e}\n${clampT}`),
    int.map((e) => `arr.push(${e})`),
    fc.tuple(bool, tie('block'), tie('block')).map(([b, x, y]) => `if (${b}) ${x} else ${y}`),
    fc.tuple(fc.integer({ min: 0, max: 4 }), tie('block')).map(([k, body]) => `for (let i = 0; i < ${k}; i++) { a += i\n${inner(body)} }`),
    fc.tuple(fc.integer({ min: 1, max: 3 }), tie('block')).map(([k, body]) => {
      const w = `w${loopId++}`
      return `let ${w} = 0\nwhile (${w} < ${k}) { ${w}++\n${inner(body)} }`
    }),
    tie('block').map((body) => `for (const x of xs) { b += x\n${inner(body)} }`),
    fc.tuple(int, tie('block'), tie('block')).map(([d, x, y]) =>
      `switch (Math.abs(${d}) % 3) { case 0: ${x} break; case 1: ${y} default: c += 1 }`),
    fc.tuple(bool, tie('block')).map(([b, body]) => `try { if (${b}) { throw new Error('e' + a) } ${inner(body)} } catch (err) { t = err.message }`),
    fc.tuple(bool, tie('block')).map(([b, body]) => `for (let j = 0; j < 3; j++) { if (${b}) { break } ${inner(body)} if (j > 0) { continue } c++ }`),
    fc.tuple(fc.constantFrom('a', 'b'), int).map(([v, e]) => `{ let ${v}Inner = ${e}; c += ${v}Inner }`),
    int.map((e) => `arr = arr.map((v) => v + ${e}).filter((v) => v % 2 === 0)`),
    fc.constant('arr.sort((p, q) => p - q)'),
  ),
  block: fc.array(tie('s'), { minLength: 0, maxLength: 3 }).map((ss) => `{ ${ss.join('\n')} }`),
})).s

const program = fc.record({
  helper: fc.boolean(),
  body: fc.array(stmt, { minLength: 1, maxLength: 6 }),
  ret: fc.tuple(int, str, bool),
  args: fc.record({
    n: fc.integer({ min: -10, max: 30 }),
    s: fc.string({ maxLength: 6 }),
    xs: fc.array(fc.integer({ min: -5, max: 12 }), { maxLength: 6 }),
    flag: fc.boolean(),
  }),
})

/** `count` generated programs, deterministic (fixed seed). */
export function generatedPrograms(count: number): Program[] {
  loopId = 0
  return fc.sample(program, { seed: 20260521, numRuns: count }).map((g, i) => {
    const helper = g.helper ? 'function twice(v) {\n  return v * 2\n}\n' : ''
    const extra = g.helper ? '\n  c = twice(c) % 100000' : ''
    const source = `${helper}function main({ n, s, xs, flag }) {
  let a = 1, b = 2, c = 3
  let t = ''
  let arr = []
  ${g.body.join('\n  ')}${extra}
  return { a, b, c, t, arr, r: [${g.ret.join(', ')}] }
}
`
    return { name: `generated-${i}`, source, args: g.args }
  })
}
