/**
 * Fuzzing generators and invariants (fast-check). Two sources of programs:
 * random ASTs drawn from the ajs/1 vocabulary with hostile names, values
 * and garbage mixed in (validated, then run), and random AJS source built
 * from a grammar with unbounded loops, recursion, big strings, regexes and
 * forbidden names (transpiled, then run). Invariants for every program:
 * `vm.run` resolves (never rejects), the result is plain JSON data, fuel used
 * never exceeds the budget, the host realm is unchanged, and the run ends
 * within its deadline (plus slack for one native call).
 */
import fc from 'fast-check'
import { AgentVM, validateAst } from '../../src/index.ts'
import { diffHost, snapshotHost } from './helpers.ts'

export const FUEL = 200
export const TIMEOUT_MS = 200
/** Every fuzzed run gets a small heap ceiling, so memory bombs meet it quickly. */
export const MAX_HEAP_BYTES = 16 * 1024 * 1024
/** Resident memory a single run may add to the process (well above MAX_HEAP_BYTES plus GC slack). */
export const RSS_GROWTH_BOUND = 512 * 1024 * 1024
/** A run may overshoot its deadline by one uninterruptible native call; this bounds that. */
export const DEADLINE_SLACK_MS = 2_000

const NAMES = ['a', 'b', 'c', 'x', 's', 'arr', 'o', '__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'Math', 'JSON', 'args']
const PROPS = ['a', 'length', 'x', '0', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'push', 'map', 'call', 'apply', 'bind',
  're', 'maxInput', 'source', 'flags', 'linear', 'index', 'input', 'groups']
const METHODS = ['push', 'map', 'filter', 'join', 'slice', 'split', 'repeat', 'padStart', 'toUpperCase', 'includes', 'indexOf', 'concat', 'sort',
  'match', 'replace', 'test', 'toString', 'valueOf', 'hasOwnProperty', 'call', 'apply', 'bind', 'constructor', 'flat', 'at', 'fill', 'keys',
  'replaceAll', 'normalize', 'entries', 'matchAll', 'with', 'exec', 'lastIndexOf', 'toSorted']
const CALLEES = ['len', 'keys', 'jsonParse', 'jsonStringify', 'hash', 'template', 'regexMatch', 'pick', 'merge', 'parseInt', 'String', 'Number',
  'Error', 'storeProcedure', 'agentRun', 'httpFetch', 'uuid', 'random', 'nope', 'constructor', 'eval']
const NAMESPACE_CALLS = [['Math', 'max'], ['Math', 'floor'], ['JSON', 'parse'], ['JSON', 'stringify'], ['Object', 'keys'], ['Object', 'assign'],
  ['Object', 'fromEntries'], ['Array', 'from'], ['String', 'fromCharCode'], ['Number', 'parseInt'], ['Set', 'union'], ['console', 'log'],
  ['Object', 'entries'], ['Object', 'values'], ['Set', 'has'], ['Set', 'from'], ['String', 'fromCodePoint']]
const PATTERNS = ['a+', '(a+)+$', '\\d+\\d+$', '(a|aa)*', '^\\w+$', 'x*y', '[a-z]+@', '(?<=a)b', '(a)\\1', '.*', '']
const BINOPS = ['+', '-', '*', '/', '%', '**', '==', '!=', '===', '!==', '<', '>', '<=', '>=', '&', '|', '^', '<<', '>>', '>>>', 'in']

const jsonValue = fc.jsonValue({ maxDepth: 2 })
const hostileValue = fc.oneof(
  jsonValue,
  fc.constantFrom(1e308, -0, 2 ** 53, 'x'.repeat(1000), '__proto__', '{"__proto__":{"p":1}}', [], {}, [[[]]], null,
    2e8, 5e6, 1e7, '$`$`$&', '{{a}}{{a}}{{a}}', '\uFDFA\uFDFA', { length: 2e8 }, { length: 1e6, 0: 1 }, { maxInput: 1e9, re: 'x' }),
)

const { expr } = fc.letrec<{ expr: unknown }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', maxDepth: 5, withCrossShrink: true },
    hostileValue.map((value) => ({ $expr: 'literal', value })),
    fc.constantFrom(...NAMES).map((name) => ({ $expr: 'ident', name })),
    fc.tuple(fc.constantFrom(...BINOPS), tie('expr'), tie('expr')).map(([op, left, right]) => ({ $expr: 'binary', op, left, right })),
    fc.tuple(fc.constantFrom('&&', '||', '??'), tie('expr'), tie('expr')).map(([op, left, right]) => ({ $expr: 'logical', op, left, right })),
    fc.tuple(fc.constantFrom('-', '+', '!', '~', 'typeof', 'void'), tie('expr')).map(([op, argument]) => ({ $expr: 'unary', op, argument })),
    fc.tuple(tie('expr'), fc.constantFrom(...PROPS), fc.boolean()).map(([object, property, optional]) => ({ $expr: 'member', object, property, optional })),
    fc.tuple(tie('expr'), tie('expr')).map(([object, property]) => ({ $expr: 'member', object, property, computed: true })),
    fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([test, consequent, alternate]) => ({ $expr: 'conditional', test, consequent, alternate })),
    fc.array(tie('expr'), { maxLength: 3 }).map((elements) => ({ $expr: 'array', elements })),
    fc.array(fc.tuple(fc.constantFrom(...PROPS), tie('expr')), { maxLength: 3 }).map((ps) => ({ $expr: 'object', properties: ps.map(([key, value]) => ({ key, value })) })),
    fc.tuple(tie('expr'), fc.constantFrom(...METHODS), fc.array(tie('expr'), { maxLength: 2 })).map(([object, method, args]) => ({ $expr: 'methodCall', object, method, args })),
    fc.tuple(tie('expr'), fc.constantFrom('map', 'filter', 'some', 'reduce'), tie('expr')).map(([object, method, body]) => ({ $expr: 'methodCall', object, method, args: [{ $expr: 'lambda', params: ['x'], body }] })),
    fc.tuple(fc.constantFrom(...CALLEES), tie('expr')).map(([callee, a]) => ({ $expr: 'call', callee, args: [{ $expr: 'object', properties: [{ key: 'value', value: a }, { key: 'text', value: a }, { key: 'pattern', value: a }] }] })),
    fc.tuple(fc.constantFrom(...NAMESPACE_CALLS), fc.array(tie('expr'), { maxLength: 2 })).map(([[ns, method], args]) => ({ $expr: 'methodCall', object: { $expr: 'ident', name: ns }, method, args })),
    fc.tuple(tie('expr'), tie('expr')).map(([a, b]) => ({ $expr: 'template', quasis: ['', '-', ''], expressions: [a, b] })),
    fc.tuple(fc.constantFrom(...PATTERNS), fc.constantFrom('', 'g', 'i', 'gv')).map(([pattern, flags]) => ({ $expr: 'regex', pattern, flags })),
    fc.constantFrom({ $expr: 'eval' }, { $expr: 'spread', argument: 1 }, { $expr: 'lambda', params: [], body: 1 }, null, 42, 'str', []),
  ),
}))

const { step } = fc.letrec<{ step: unknown }>((tie) => ({
  step: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.tuple(fc.constantFrom(...NAMES), expr).map(([key, value]) => ({ op: 'varSet', key, value })),
    expr.map((value) => ({ op: 'expr', value })),
    expr.map((value) => ({ op: 'return', value })),
    expr.map((value) => ({ op: 'throw', value })),
    fc.tuple(expr, fc.array(tie('step'), { maxLength: 3 })).map(([condition, body]) => ({ op: 'while', condition, body })),
    fc.tuple(expr, fc.array(tie('step'), { maxLength: 2 }), fc.array(tie('step'), { maxLength: 2 })).map(([condition, then, els]) => ({ op: 'if', condition, then, else: els })),
    fc.tuple(fc.array(tie('step'), { maxLength: 2 }), fc.array(tie('step'), { maxLength: 2 })).map(([body, catchBody]) => ({ op: 'try', try: body, catchParam: 'e', catch: catchBody })),
    fc.tuple(fc.array(tie('step'), { maxLength: 2 }), fc.array(tie('step'), { maxLength: 2 })).map(([x, y]) => ({ op: 'parallel', branches: [x, y] })),
    fc.record({ op: fc.constantFrom('evil', 'constructor', 'seq', 'agentRun', 'storeProcedure'), value: hostileValue }),
  ),
}))

/** A random program AST, sometimes with a broken root. */
export const astArb = fc.oneof(
  { weight: 9, arbitrary: fc.array(step, { minLength: 1, maxLength: 6 }).map((steps) => ({ ajs: 1, op: 'seq', steps })) },
  { weight: 1, arbitrary: fc.record({ ajs: fc.constantFrom(1, 2, '1', undefined), op: fc.constantFrom('seq', 'if'), steps: fc.oneof(fc.constant('x'), fc.array(step, { maxLength: 2 })) }) },
)

// ---- AJS source ----------------------------------------------------------

const ID = fc.constantFrom('a', 'b', 's', 'arr', 'o')
const { sx } = fc.letrec<{ sx: string }>((tie) => ({
  sx: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.constantFrom('1', '0', '-1', '1e308', "'x'", "''", 'null', 'undefined', 'true', '[]', '{}', '[[1], [2]]', "'__proto__'", "'constructor'"),
    ID,
    fc.tuple(tie('sx'), fc.constantFrom('+', '-', '*', '/', '%', '<', '===', '&&', '||', '??'), tie('sx')).map(([l, o, r]) => `(${l} ${o} ${r})`),
    fc.tuple(tie('sx'), tie('sx')).map(([o, k]) => `${o}?.[${k}]`),
    fc.tuple(tie('sx'), fc.constantFrom('length', 'a', 'x')).map(([o, p]) => `${o}?.${p}`),
    tie('sx').map((x) => `[${x}, ${x}]`),
    tie('sx').map((x) => `({ k: ${x}, [${x}]: 1 })`),
    tie('sx').map((x) => `String(${x}).repeat(3)`),
    tie('sx').map((x) => `JSON.stringify(${x})`),
    tie('sx').map((x) => `JSON.parse(JSON.stringify(${x}) ?? 'null')`),
    tie('sx').map((x) => `\`<\${${x}}>\``),
    tie('sx').map((x) => `Object.keys(${x} ?? {})`),
    tie('sx').map((x) => `Math.max(${x}, 1)`),
    tie('sx').map((x) => `rec(${x})`),
    fc.tuple(tie('sx'), fc.constantFrom(...PATTERNS)).map(([x, p]) => `/${p || 'a'}/.test(String(${x}))`),
    tie('sx').map((x) => `[1, 2, 3].map((v) => v + ${x})`),
    tie('sx').map((x) => `String(${x}).split('').reverse().join('')`),
    // issue 12 shapes: huge lengths, shared references, long strings, regex-valued properties
    fc.constantFrom('Object.assign([], { length: 2e8 })', 'Object.assign([], { length: 5e6 }).includes(1)', "'x'.repeat(1e6)", "'ab'.repeat(3e6)",
      '[].concat(arr, arr, arr, arr, arr, arr, arr, arr)', 'Object.entries(arr)', 'arr.entries()', 'arr.flat(Infinity)', 'Set.from(arr)',
      "s.replaceAll('a', '$`')", "s.replace(/b/g, \"$'$&\")", 's.match(/a?/g)', "[...s.matchAll(/(?<x>b)/g)].map((m) => m.index)", "s.normalize('NFKC')",
      "s.toUpperCase()", '({ ...s })', '[...s]', 'o.r', 'o.r?.test(s)', 'Object.keys(o.r ?? {})', '({ ...(o.r ?? {}) })', 'JSON.stringify(o)',
      "template({ template: '{{s}}'.repeat(2000), vars: { s } })", "String.fromCodePoint(...Array.from({ length: 100 }).map(() => 65))",
      "decodeURIComponent('%41'.repeat(1000))", "encodeURIComponent(s)", 'arr.with(0, 1)', "JSON.parse('[' + '[],'.repeat(1e5) + '[]]')"),
  ),
}))

const { st } = fc.letrec<{ st: string }>((tie) => ({
  st: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.tuple(ID, sx).map(([v, e]) => `${v} = ${e}`),
    sx.map((e) => `arr.push(${e})`),
    fc.constantFrom('s = s + s', 'arr = [arr, arr]', 'o = { o, arr }', 'a++', "s = s.padEnd(s.length * 2, 'y')",
      'o.r = /(a|a)*$/', 'o.r.maxInput = 1e9', "o.r.re = /x/", 'Object.assign(o.r ?? {}, { maxInput: 1e9 })', 'arr.length = 1e8',
      'Object.assign(arr, { length: 1e8 })', 's = s.repeat(100)', 'arr = arr.concat(arr, arr)', 'o = { a: o, b: o }',
      'for (const c of s) { a++ }', 'for (const k in s) { break }', '{ const [c0] = s }'),
    fc.tuple(sx, tie('st')).map(([c, b]) => `if (${c}) { ${b} }`),
    fc.tuple(sx, tie('st')).map(([c, b]) => `while (${c}) { ${b} }`),
    tie('st').map((b) => `for (let i = 0; i < 1000; i++) { ${b} }`),
    tie('st').map((b) => `for (const k in o) { ${b} }`),
    fc.tuple(tie('st'), tie('st')).map(([x, y]) => `try { ${x} } catch (e) { ${y} }`),
    sx.map((e) => `throw ${e}`),
    sx.map((e) => `return ${e}`),
  ),
}))

/** A random AJS program (helpers + entry). */
export const sourceArb = fc.array(st, { minLength: 1, maxLength: 6 }).map((stmts) =>
  `function rec(n) { return n > 3 ? n : rec(n + 1) }\nfunction main() {\nlet a = 0\nlet b = 1\nlet s = 'ab'\nlet arr = []\nlet o = {}\n${stmts.join('\n')}\nreturn { a, s: s.length, arr: arr.length }\n}`)

// ---- invariants ----------------------------------------------------------

export interface FuzzOutcome { ok: boolean; problem?: string }

const vm = new AgentVM()

/** Run one program (AST or source) and check every invariant. */
export async function checkProgram(program: unknown): Promise<FuzzOutcome> {
  const before = snapshotHost()
  if (typeof program !== 'string') validateAst(program)
  const started = Date.now()
  const rss = process.memoryUsage().rss
  let r
  try {
    r = await vm.run(program, {}, { fuel: FUEL, timeoutMs: TIMEOUT_MS, maxHeapBytes: MAX_HEAP_BYTES })
  } catch (e) {
    return { ok: false, problem: `vm.run rejected: ${(e as Error)?.stack ?? e}` }
  }
  const ms = Date.now() - started
  if (ms > TIMEOUT_MS + DEADLINE_SLACK_MS) return { ok: false, problem: `run took ${ms} ms (deadline ${TIMEOUT_MS})` }
  const grew = process.memoryUsage().rss - rss
  if (grew > RSS_GROWTH_BOUND) return { ok: false, problem: `the process grew by ${Math.round(grew / 2 ** 20)} MiB in one run` }
  if (!(r.fuelUsed >= 0 && r.fuelUsed <= FUEL)) return { ok: false, problem: `fuelUsed ${r.fuelUsed} outside [0, ${FUEL}]` }
  if (r.error && (typeof r.error.code !== 'string' || r.error.code === 'INTERNAL')) return { ok: false, problem: `error ${JSON.stringify(r.error).slice(0, 300)}` }
  try {
    JSON.stringify(r)
  } catch (e) {
    return { ok: false, problem: `result is not JSON data: ${(e as Error).message}` }
  }
  const diff = diffHost(before, snapshotHost())
  if (diff.length > 0) return { ok: false, problem: `host changed: ${diff.join(', ')}` }
  if (({} as Record<string, unknown>).p !== undefined) return { ok: false, problem: 'Object.prototype polluted' }
  return { ok: true }
}

/** fast-check property over both generators. */
export const programArb = fc.oneof(astArb, sourceArb)
export const fuzzProperty = fc.asyncProperty(programArb, async (program) => {
  const o = await checkProgram(program)
  if (!o.ok) throw new Error(o.problem)
})
