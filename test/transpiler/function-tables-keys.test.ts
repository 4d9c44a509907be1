/**
 * Objects of functions called by a key computed by a call or an expression (src/transpiler/function-tables.ts):
 * `tools[pick(s)](x)`, `tools[s.tool.toLowerCase()](x)`, `tools[`${a}_${b}`](x)`, `tools[names[i]](x)`,
 * `await tools[await route(q)](q)`, and the same in `k in tools` and `if (tools[k])`. The key is computed
 * once, before the arguments, as JavaScript does: the programs log each key and argument they compute and
 * return the log, side by side with JavaScript.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, runNativeAsync, runVm, testSideBySide } from './differential/harness.ts'

const ARGS = { kind: 'get', steps: [{ tool: 'TWICE', arg: 4 }, { tool: 'Get_One', arg: 3 }, { tool: 'Nope', arg: 0 }] }
// `log` records the order; a key function and an argument function push to it.
const TABLE = "const log = []\nconst pick = (s) => { log.push('key:' + s.tool); return s.tool.toLowerCase() }\n" +
  "const arg = (v) => { log.push('arg:' + v); return v }\nconst ops = { twice: (x) => x * 2, get_one: (x) => x + 1, 'to-text': (v) => `#${v}` }\n"
const P = (name: string, body: string): Program => ({ name, source: `function main({ kind, steps }) {\n${TABLE}${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('a-key-by-a-call-runs-once-before-the-arguments', "const out = [ops[pick(steps[0])](arg(1)), ops[pick(steps[1])](arg(2), arg(3))]\nreturn [out, log]"),
  P('a-key-by-a-method-a-template-an-index', "const names = ['twice', 'get_one']\nconst out = [ops[steps[0].tool.toLowerCase()](5), ops[`${kind}_${'one'}`](5), ops[names[1]](5), ops['to' + '-text'](5)]\nfor (let i = 0; i < names.length; i++) out.push(ops[names[i]](10))\nreturn out"),
  P('in-a-loop-without-braces-and-a-callback', "const out = []\nfor (const s of steps.slice(0, 2)) out.push(ops[pick(s)](arg(s.arg)))\nlet i = 0\nwhile (i < 2) out.push(ops[pick(steps[i++])](i))\nreturn [out, steps.slice(0, 2).map((s) => ops[pick(s)](arg(s.arg))), log]"),
  P('keys-with-side-effects-in-keys-and-arguments', "let n = 0\nconst out = []\nconst names = ['twice', 'get_one', 'twice']\nout.push(ops[names[n++]](n), ops[names[n++]](n), n)\nout.push(ops[pick(steps[0])](ops[pick(steps[1])](arg(7))))\nreturn [out, log]"),
  P('in-and-tests-of-a-computed-key', "const out = [pick(steps[0]) in ops, pick(steps[2]) in ops, !ops[pick(steps[1])], ops[pick(steps[2])] ? 'yes' : 'no']\nif (ops[steps[1].tool.toLowerCase()]) out.push('has')\nout.push(ops[pick(steps[0])] && ops[pick(steps[0])](arg(1)))\nreturn [out, log]"),
  P('an-unknown-key-evaluates-the-arguments-then-throws-a-TypeError', "try { return ops[pick(steps[2])](arg(1), arg(2)) } catch (e) { return [e instanceof TypeError, e.message.startsWith('ops['), log] }"),
  P('a-use-in-the-arguments-of-another', "const names = ['twice']\nreturn [ops[names[0]](ops.get_one(1)), ops[pick(steps[0])](ops[pick(steps[1])](ops.twice(arg(1)))), log]"),
]

const MODULE: Program = {
  name: 'at-the-top-level-called-by-a-helper-with-a-computed-key',
  source: "const tools = { add: (a, b) => a + b, neg: (a) => -a }\nfunction apply(step) { return step.tool.toLowerCase() in tools ? tools[step.tool.toLowerCase()](...step.args) : null }\nfunction main({ steps }) {\n  return steps.map((s) => apply(s))\n}\n",
  args: { steps: [{ tool: 'ADD', args: [1, 2] }, { tool: 'Neg', args: [5] }, { tool: 'echo', args: [] }] },
}

const ASYNC: Program = {
  name: 'async-keys-and-tools',
  source: "async function main({ steps }) {\n  const log = []\n  const route = async (s) => { log.push('route:' + s.tool); return s.tool.toLowerCase() }\n" +
    "  const arg = async (v) => { log.push('arg:' + v); return v }\n  const tools = { echo: async (x) => `echo:${x}`, twice: async (x) => x * 2 }\n  const out = []\n" +
    "  for (const s of steps) out.push(await tools[await route(s)](await arg(s.arg)))\n" +
    "  for (const s of steps) if (await route(s) in tools) out.push('in')\n" +
    "  try { await tools[await route({ tool: 'nope' })](await arg(0)) } catch (e) { out.push(e instanceof TypeError) }\n  return [out, log]\n}\n",
  args: { steps: [{ tool: 'Echo', arg: 'a' }, { tool: 'TWICE', arg: 21 }] },
}

function refusal(source: string): TranspileError {
  try { transpile(source) } catch (e) { if (e instanceof TranspileError) return e; throw e }
  throw new Error('transpiled')
}

describe('objects of functions called by a computed key', () => {
  testSideBySide([...PROGRAMS, MODULE], AgentVM)

  test(ASYNC.name, async () => {
    const native = await runNativeAsync(ASYNC)
    expect(native.ok).toBe(true)
    expect(await runVm(ASYNC, AgentVM)).toEqual(native)
  })

  test('the TypeError names the key as written', async () => {
    const p = P('message', 'return ops[pick(steps[2])](1)')
    expect(await runVm(p, AgentVM)).toEqual({ ok: false, message: 'ops[pick(steps[2])] is not a function' })
  })

  test('the key is kept in a fresh variable, declared in the function it is computed in', async () => {
    const p = P('own', "const ops_key = 'kept'\nreturn [steps.slice(0, 2).map((s) => ops[pick(s)](1)), ops[pick(steps[0])](2), ops_key]")
    expect(await runVm(p, AgentVM)).toEqual({ ok: true, value: [[2, 2], 4, 'kept'] })
  })

  test('what is still refused is located, with the rewrite', () => {
    const e = refusal(`function main({ kind, steps }) {\n${TABLE}const f = ops[pick(steps[0])]\nreturn f(1)\n}`)
    expect([e.code, e.line]).toEqual(['AJS2061', 6])
    expect(e.hint).toContain('`ops[key](x)`')
    expect(refusal(`function main({ kind, steps }) {\n${TABLE}return [ops[pick(steps[0])]]\n}`).code).toBe('AJS2061')
  })

  test('calls by a computed key are bounded as before: AJS2063', () => {
    const keys = Array.from({ length: 400 }, (_, i) => `f${i}: (x) => x + ${i}`).join(', ')
    const calls = Array.from({ length: 300 }, () => 'ops[op.trim()](1)').join(' + ')
    const e = refusal(`function main({ op }) {\n  const ops = { ${keys} }\n  return ${calls}\n}`)
    expect([e.code, e.line]).toEqual(['AJS2063', 2])
  })
})
