/**
 * The transpiler's passes walk the tree by recursion. Lowering stops at its own bounds (statements
 * 1,000 levels, expressions 5,000), but the passes before it, a frontend's rewrite (workflows) and a
 * host with a smaller stack (Node's is about a third of Bun's) may run out first: a source with a
 * 2,000-long `+` chain and a helper given a function overflowed Node's stack in the helper pass.
 * Whatever pass it is, running out of stack is the source's depth: AJS1020 at its deepest node,
 * never a host RangeError.
 */
import type { Node } from 'acorn'
import type { LowerContext } from './context.ts'
import { forEachChild } from './estree.ts'

/** A host stack overflow (V8 and JavaScriptCore word it alike). */
export const isStackOverflow = (e: unknown): boolean => e instanceof RangeError && /call stack/i.test(e.message)

/** The first node at the greatest depth under `root`, found with a stack of its own. */
function deepest(root: Node): Node {
  let best: Node = root
  let bestDepth = 0
  const stack: Array<[Node, number]> = [[root, 0]]
  while (stack.length > 0) {
    const [n, d] = stack.pop()!
    if (d > bestDepth) {
      bestDepth = d
      best = n
    }
    const children: Node[] = []
    forEachChild(n as Node & Record<string, any>, (c) => { children.push(c) })
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!, d + 1])
  }
  return best
}

/** `e`, or for a stack overflow the located AJS1020 at the deepest node of `program`. */
export function depthError(e: unknown, program: Node, ctx: LowerContext): unknown {
  if (!isStackOverflow(e)) return e
  try {
    return ctx.fail('TOO_DEEP', deepest(program), { name: 'the transpiler can go' })
  } catch (located) {
    return located
  }
}
