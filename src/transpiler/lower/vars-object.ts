/**
 * The `vars` object of a `varsLet` step: a plain object whose keys are the
 * declared names, so nearly every one has a key no other object has (`a0`,
 * `b0`, `a1`, ...).
 *
 * In V8 an object given a new key gets a hidden class of its own, recorded as
 * a transition of `{}`'s class, and an object given the same key later reuses
 * it. That record holds at most 1,536 transitions (kMaxNumberOfTransitions);
 * past it, every object with a key not recorded gets a fresh class, each time
 * the source is transpiled, and drops it as garbage with the AST: measured on
 * Node 20, about 110 ns an object under the cap and 320-400 ns past it, against
 * about 160-250 ns for an object in dictionary mode at any count. A program
 * with thousands of `let` statements paid that on most of them: lowering the
 * generated 12k-line source took 1.5x the time per line of the 3k-line one.
 *
 * So a program's first SMALL_PROGRAM objects stay plain `{}` (every agent of
 * ordinary size, which keeps the cheaper cached classes), and the later ones
 * start in dictionary mode. Either is an ordinary object with Object.prototype
 * and its keys in insertion order: the AST and its JSON are the same.
 */
import type { Value } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'

/** `varsLet` objects a program makes as plain `{}` (well under the 1,536 classes V8 records for the whole process). */
const SMALL_PROGRAM = 1024

export function varsObject(ctx: LowerContext): Record<string, Value> {
  if (++ctx.varsObjects <= SMALL_PROGRAM) return {}
  // Deleting a property other than the last one added turns an object to dictionary mode
  // in V8 (and to an uncacheable dictionary in JavaScriptCore); it stays so as keys are added.
  const vars: Record<string, Value> = { a: 0, b: 0 }
  delete vars.a
  delete vars.b
  return vars
}
