/**
 * `yield` inside a larger expression (`items.append((yield))`, `print((yield x))`, `return (yield)`,
 * `total = total + (yield)`): the generator's lowering suspends only at statements, so such a yield
 * is hoisted to a statement of its own just before (its value kept in a variable) when that cannot
 * change what runs before it: nothing the statement evaluates ahead of the yield may run code, fail
 * or read state the caller can change while the generator pauses (a call, a subscript, an attribute
 * other than a method of a local variable, a walrus), and no yield may sit where it would not always
 * run (`and`, `or`, `x if c else y`, a lambda or comprehension). Otherwise it stays refused.
 */
import type { SyntaxNode } from '@lezer/common'
import { kids } from './lezer.ts'

/** Nodes that may run code of the program or fail: their effect must not move after a yield. */
const EFFECTS = new Set(['CallExpression', 'NamedExpression', 'AwaitExpression'])
/** Nodes whose parts run only sometimes, or later: a yield in them cannot be hoisted. */
const CONDITIONAL = new Set(['ConditionalExpression', 'LambdaExpression', 'ComprehensionExpression', 'ArrayComprehensionExpression',
  'SetComprehensionExpression', 'DictionaryComprehensionExpression'])
const SHORT_CIRCUIT = new Set(['and', 'or'])

/** `name.method` as the callee of a call: the local's value cannot change while the generator pauses. */
const localMethod = (n: SyntaxNode, c: SyntaxNode[]): boolean =>
  c[1]?.name === '.' && c[0]?.name === 'VariableName' && n.parent?.name === 'CallExpression' && n.parent.firstChild?.from === n.from && n.parent.firstChild?.to === n.to

const hasYield = (n: SyntaxNode): boolean => n.name === 'YieldExpression' || kids(n).some(hasYield)

/**
 * The yields of a statement's expressions in the order they run, when they can be hoisted; null
 * when there are none or one cannot be (the statement is then refused where the yield stands).
 * `parts` are the statement's expression nodes in Python's evaluation order.
 */
export function hoistableYields(parts: readonly SyntaxNode[]): SyntaxNode[] | null {
  const yields: SyntaxNode[] = []
  // How many yields had run when the first effect ran (-1: none ran).
  let effectAt = -1, unsafe = false
  const effect = () => { if (effectAt < 0) effectAt = yields.length }
  const walk = (n: SyntaxNode): void => {
    if (unsafe) return
    if (n.name === 'YieldExpression') {
      // The yield's own value is made at the yield (hoisted with it), but not a yield within it.
      if (kids(n).slice(1).some(hasYield)) unsafe = true
      yields.push(n)
      return
    }
    const c = kids(n)
    if (CONDITIONAL.has(n.name) || (n.name === 'BinaryExpression' && c.some((x) => SHORT_CIRCUIT.has(x.name)))) {
      if (hasYield(n)) unsafe = true
      else effect()
      return
    }
    c.forEach(walk)
    // A call or a subscript (`d[k]`) may fail or run the program's code; an attribute read takes the
    // value the object has before the yield, which the caller may change while the generator pauses
    // (but a method of a local variable, `items.append`, is the same one after it).
    if (EFFECTS.has(n.name) || (n.name === 'MemberExpression' && !localMethod(n, c))) effect()
  }
  parts.forEach(walk)
  if (unsafe || yields.length === 0) return null
  // An effect that ran before a yield would run after it once hoisted.
  return effectAt >= 0 && effectAt < yields.length ? null : yields
}
