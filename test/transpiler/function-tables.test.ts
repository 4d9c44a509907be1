/**
 * Objects of functions (src/transpiler/function-tables.ts): `const ops = { add: (a, b) => a + b }` with
 * `ops.add(x)`, `ops[k](x)`, `k in ops`, `if (ops[k])`, `Object.keys(ops)`; side by side with JavaScript,
 * and the refusals (AJS2061, AJS2062, AJS2063); below, keys computed by a call or an expression.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, runNativeAsync, runVm, testSideBySide } from './differential/harness.ts'

const ARGS = { op: 'mul', steps: [{ tool: 'echo', arg: 'hi' }, { tool: 'twice', arg: 21 }, { tool: 'nope', arg: 1 }] }
const TABLE = "const k = 10\nconst ops = {\n  add: (a, b) => a + b + k,\n  mul: function (a, b) { return a * b },\n  'to-text': (v) => `#${v}`,\n}\n"
const P = (name: string, body: string): Program => ({ name, source: `function main({ op, steps }) {\n${TABLE}${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('calls-by-name-and-by-key', "return [ops.add(1, 2), ops['mul'](3, 4), ops['to-text'](5), ops[op](6, 7)]"),
  P('keys-in-and-tests', "const other = 'x' + op\nreturn [Object.keys(ops), 'add' in ops, 'nope' in ops, ops[op] ? 'yes' : 'no', !ops[other], ops[op] && ops[op](2, 2)]"),
  P('an-unknown-key-is-a-TypeError', "const bad = op + '!'\ntry { return ops[bad](1) } catch (e) { return [e instanceof TypeError, e.message.startsWith('ops[bad] is not a function')] }"),
  P('in-a-callback-and-a-loop', "const names = ['add', 'mul']\nconst out = []\nfor (const n of names) out.push(ops[n](2, 5))\nreturn [out, names.map((n) => ops[n](1, 1))]"),
]

const MODULE: Program = {
  name: 'at-the-top-level-read-by-a-helper',
  source: "const BASE = 10\nconst tools = { add: (a, b) => a + b + BASE, neg: (a) => -a }\nfunction apply(name, args) { return name in tools ? tools[name](...args) : null }\nfunction main({ steps }) {\n  return [steps.map((s) => apply(s.tool, [s.arg, 1])), Object.keys(tools), tools.neg(3)]\n}\n",
  args: { steps: [{ tool: 'add', arg: 1 }, { tool: 'neg', arg: 5 }, { tool: 'echo', arg: 0 }] },
}

const ASYNC: Program = {
  name: 'async-tools-dispatched-by-step',
  source: "async function main({ steps }) {\n  const tools = { echo: async (x) => `echo:${x}`, twice: async (x) => x * 2 }\n  const out = []\n  for (const s of steps) {\n    if (!tools[s.tool]) { out.push('no tool ' + s.tool); continue }\n    out.push(await tools[s.tool](s.arg))\n  }\n  return out\n}\n",
  args: ARGS,
}

function refusal(source: string): TranspileError {
  try { transpile(source) } catch (e) { if (e instanceof TranspileError) return e; throw e }
  throw new Error('transpiled')
}

/** Side by side with JavaScript, for an entry that may be `async`. */
function testAsync(p: Program): void {
  test(p.name, async () => {
    const native = await runNativeAsync(p)
    expect(native.ok).toBe(true)
    expect(await runVm(p, AgentVM)).toEqual(native)
  })
}

describe('objects of functions', () => {
  testSideBySide([...PROGRAMS, MODULE], AgentVM)

  testAsync(ASYNC)

  test('handed on, or a function read as a value: AJS2061, located', () => {
    const e = refusal(`function main({ op }) {\n${TABLE}return { ops }\n}`)
    expect([e.code, e.line]).toEqual(['AJS2061', 8])
    expect(refusal(`function main({ op }) {\n${TABLE}const f = ops.add\nreturn f\n}`).code).toBe('AJS2061')
    expect(refusal(`function main({ op }) {\n${TABLE}return ops[op + 1]\n}`).code).toBe('AJS2061')
  })

  test('what calls by a computed key write out is bounded by the source: AJS2063', () => {
    const keys = Array.from({ length: 400 }, (_, i) => `f${i}: (x) => x + ${i}`).join(', ')
    const calls = Array.from({ length: 300 }, () => 'ops[op](1)').join(' + ')
    const e = refusal(`function main({ op }) {\n  const ops = { ${keys} }\n  return ${calls}\n}`)
    expect([e.code, e.line]).toEqual(['AJS2063', 2])
    // A few calls of a small table are far below it.
    expect(() => transpile(`function main({ op }) {\n  const ops = { ${keys} }\n  return ops[op](1) + ops[op](2)\n}`)).not.toThrow()
  })

  test('a key it does not have: AJS2062 with the nearest', () => {
    const e = refusal(`function main({ op }) {\n${TABLE}return ops.ad(1, 2)\n}`)
    expect(e.code).toBe('AJS2062')
    expect(e.hint).toContain('`add`')
  })
})

/*
 * Objects of functions called by a key computed by a call or an expression (src/transpiler/function-tables.ts):
 * `tools[pick(s)](x)`, `tools[s.tool.toLowerCase()](x)`, `tools[`${a}_${b}`](x)`, `tools[names[i]](x)`,
 * `await tools[await route(q)](q)`, and the same in `k in tools` and `if (tools[k])`. The key is computed
 * once, before the arguments, as JavaScript does: the programs log each key and argument they compute and
 * return the log, side by side with JavaScript.
 */
const KEYED_ARGS = { kind: 'get', steps: [{ tool: 'TWICE', arg: 4 }, { tool: 'Get_One', arg: 3 }, { tool: 'Nope', arg: 0 }] }
// `log` records the order; a key function and an argument function push to it.
const KEYED_TABLE = "const log = []\nconst pick = (s) => { log.push('key:' + s.tool); return s.tool.toLowerCase() }\n" +
  "const arg = (v) => { log.push('arg:' + v); return v }\nconst ops = { twice: (x) => x * 2, get_one: (x) => x + 1, 'to-text': (v) => `#${v}` }\n"
const K = (name: string, body: string): Program => ({ name, source: `function main({ kind, steps }) {\n${KEYED_TABLE}${body}\n}\n`, args: KEYED_ARGS })

const KEYED: Program[] = [
  K('a-key-by-a-call-runs-once-before-the-arguments', "const out = [ops[pick(steps[0])](arg(1)), ops[pick(steps[1])](arg(2), arg(3))]\nreturn [out, log]"),
  K('a-key-by-a-method-a-template-an-index', "const names = ['twice', 'get_one']\nconst out = [ops[steps[0].tool.toLowerCase()](5), ops[`${kind}_${'one'}`](5), ops[names[1]](5), ops['to' + '-text'](5)]\nfor (let i = 0; i < names.length; i++) out.push(ops[names[i]](10))\nreturn out"),
  K('in-a-loop-without-braces-and-a-callback', "const out = []\nfor (const s of steps.slice(0, 2)) out.push(ops[pick(s)](arg(s.arg)))\nlet i = 0\nwhile (i < 2) out.push(ops[pick(steps[i++])](i))\nreturn [out, steps.slice(0, 2).map((s) => ops[pick(s)](arg(s.arg))), log]"),
  K('keys-with-side-effects-in-keys-and-arguments', "let n = 0\nconst out = []\nconst names = ['twice', 'get_one', 'twice']\nout.push(ops[names[n++]](n), ops[names[n++]](n), n)\nout.push(ops[pick(steps[0])](ops[pick(steps[1])](arg(7))))\nreturn [out, log]"),
  K('in-and-tests-of-a-computed-key', "const out = [pick(steps[0]) in ops, pick(steps[2]) in ops, !ops[pick(steps[1])], ops[pick(steps[2])] ? 'yes' : 'no']\nif (ops[steps[1].tool.toLowerCase()]) out.push('has')\nout.push(ops[pick(steps[0])] && ops[pick(steps[0])](arg(1)))\nreturn [out, log]"),
  K('an-unknown-key-evaluates-the-arguments-then-throws-a-TypeError', "try { return ops[pick(steps[2])](arg(1), arg(2)) } catch (e) { return [e instanceof TypeError, e.message.startsWith('ops['), log] }"),
  K('a-callback-with-its-own-key-in-the-arguments-of-another', "return [steps.slice(0, 2).map((s) => ops[pick(s)](steps.map((t) => ops[pick(steps[0])](t.arg)).reduce((a, b) => a + b, 0))), log]"),
  K('a-use-in-the-arguments-of-another', "const names = ['twice']\nreturn [ops[names[0]](ops.get_one(1)), ops[pick(steps[0])](ops[pick(steps[1])](ops.twice(arg(1)))), log]"),
]

const KEYED_MODULE: Program = {
  name: 'at-the-top-level-called-by-a-helper-with-a-computed-key',
  source: "const tools = { add: (a, b) => a + b, neg: (a) => -a }\nfunction apply(step) { return step.tool.toLowerCase() in tools ? tools[step.tool.toLowerCase()](...step.args) : null }\nfunction main({ steps }) {\n  return steps.map((s) => apply(s))\n}\n",
  args: { steps: [{ tool: 'ADD', args: [1, 2] }, { tool: 'Neg', args: [5] }, { tool: 'echo', args: [] }] },
}

const KEYED_ASYNC: Program = {
  name: 'async-keys-and-tools',
  source: "async function main({ steps }) {\n  const log = []\n  const route = async (s) => { log.push('route:' + s.tool); return s.tool.toLowerCase() }\n" +
    "  const arg = async (v) => { log.push('arg:' + v); return v }\n  const tools = { echo: async (x) => `echo:${x}`, twice: async (x) => x * 2 }\n  const out = []\n" +
    "  for (const s of steps) out.push(await tools[await route(s)](await arg(s.arg)))\n" +
    "  for (const s of steps) if (await route(s) in tools) out.push('in')\n" +
    "  try { await tools[await route({ tool: 'nope' })](await arg(0)) } catch (e) { out.push(e instanceof TypeError) }\n  return [out, log]\n}\n",
  args: { steps: [{ tool: 'Echo', arg: 'a' }, { tool: 'TWICE', arg: 21 }] },
}

describe('objects of functions called by a computed key', () => {
  testSideBySide([...KEYED, KEYED_MODULE], AgentVM)

  testAsync(KEYED_ASYNC)

  test('the TypeError names the key as written', async () => {
    const p = K('message', 'return ops[pick(steps[2])](1)')
    expect(await runVm(p, AgentVM)).toEqual({ ok: false, message: 'ops[pick(steps[2])] is not a function' })
  })

  test('the key is kept in a fresh variable, declared in the function it is computed in', async () => {
    const p = K('own', "const ops_key = 'kept'\nreturn [steps.slice(0, 2).map((s) => ops[pick(s)](1)), ops[pick(steps[0])](2), ops_key]")
    expect(await runVm(p, AgentVM)).toEqual({ ok: true, value: [[2, 2], 4, 'kept'] })
  })

  test('what is still refused is located, with the rewrite', () => {
    const e = refusal(`function main({ kind, steps }) {\n${KEYED_TABLE}const f = ops[pick(steps[0])]\nreturn f(1)\n}`)
    expect([e.code, e.line]).toEqual(['AJS2061', 6])
    expect(e.hint).toContain('`ops[key](x)`')
    expect(refusal(`function main({ kind, steps }) {\n${KEYED_TABLE}return [ops[pick(steps[0])]]\n}`).code).toBe('AJS2061')
    // A parameter's default is computed before the body the key's variable is declared in.
    const inDefault = refusal(`function main({ kind, steps }) {\n${KEYED_TABLE}const f = (s, n = ops[pick(s)](1)) => n\nreturn f(steps[0])\n}`)
    expect([inDefault.code, inDefault.line]).toEqual(['AJS2030', 6])
    expect(inDefault.message).toContain('compute the key in the body')
    // The first in the source is reported, though uses are rewritten last first.
    const first = refusal(`function main({ kind, steps }) {\n${KEYED_TABLE}const n = ops.nope(1)\nreturn [ops[pick(steps[0])], n]\n}`)
    expect([first.code, first.line]).toEqual(['AJS2062', 6])
  })

  test('calls by a computed key are bounded as before: AJS2063', () => {
    const keys = Array.from({ length: 400 }, (_, i) => `f${i}: (x) => x + ${i}`).join(', ')
    const calls = Array.from({ length: 300 }, () => 'ops[op.trim()](1)').join(' + ')
    const e = refusal(`function main({ op }) {\n  const ops = { ${keys} }\n  return ${calls}\n}`)
    expect([e.code, e.line]).toEqual(['AJS2063', 2])
  })
})
