/** parallel / pipeline lowering (see module.ts). */
import type { Node } from 'acorn'
import type { RewriteContext } from './rewrite.ts'

type AnyNode = Node & Record<string, any>

export function lowerTasks(call: AnyNode, ctx: RewriteContext): AnyNode {
  return ctx.fail('WORKFLOW_TASKS', call, { name: call.callee.name, detail: 'not available yet' })
}
