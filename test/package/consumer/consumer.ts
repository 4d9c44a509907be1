// A consumer of the published types, compiled by test/package/consumer-types.test.ts under
// several module/moduleResolution settings with skipLibCheck on and off. Each
// expected-error line below must be an error, so builder types that silently became `any` fail here.
import { Agent, AgentVM, s, transpile, TranspileError, isTranspileError, isAgentError, type AjsProgram } from 'ajs-lang'
import { AgentVM as RuntimeVM } from 'ajs-lang/vm'
// The schema part (ajs-lang/vm/schema) exports the same `s`, typed.
import { s as vmS } from 'ajs-lang/vm/schema'
import { transpile as transpileOnly, TranspileError as TranspilerError } from 'ajs-lang/transpiler'
import { Agent as BuilderAgent } from 'ajs-lang/builder'
import { batteryAtoms } from 'ajs-lang/batteries'
import { ajsPlugin } from 'ajs-lang/plugins/esbuild'
import { ajsBunPlugin } from 'ajs-lang/plugins/bun'
import { AgentVM as BrowserVM } from 'ajs-lang/browser/vm.min.js' // esm-only

type IsAny<T> = 0 extends 1 & T ? true : false
const sIsNotAny: IsAny<typeof s> = false
const vmSIsNotAny: IsAny<typeof vmS> = false

const typed = Agent.take(s.object({ url: s.string, count: s.number }))
typed.httpFetch({ url: typed.ref('url') })
// @ts-expect-error: `count` is a number, url wants a string
typed.httpFetch({ url: typed.ref('count') })
// @ts-expect-error: no variable `nope` in scope
typed.ref('nope')
// @ts-expect-error: unknown method (typo of httpFetch)
Agent.httpFetc({ url: 'x' })
// @ts-expect-error: url must be a string
BuilderAgent.httpFetch({ url: 42 })

const ast: AjsProgram = transpile('function f({ a }) { return { a } }').ast
const also: AjsProgram = transpileOnly('function g() { return {} }').ast
const vm: RuntimeVM = new AgentVM()
const browserVm = new BrowserVM() // esm-only
export async function main(): Promise<number> {
  const r = await vm.run(ast, { a: 1 })
  if (r.error && isAgentError(r.error)) return 1
  try { transpile('x') } catch (e) { if (isTranspileError(e) && e instanceof TranspileError && e instanceof TranspilerError) return e.line }
  return [batteryAtoms.length, ajsPlugin().name, ajsBunPlugin().name, also.ajs, sIsNotAny, vmSIsNotAny, browserVm].length
}
