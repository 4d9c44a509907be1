// Imports a .ajs file: with the plugin, `flow` is the "ajs/1" AST, compiled
// at bundle time, so the app ships no transpiler.
import { AgentVM } from 'ajs-lang/vm'
import flow from './flow.ajs'

export async function run(lead: unknown) {
  return new AgentVM().run(flow, { lead })
}
