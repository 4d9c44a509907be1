/**
 * `yield` inside `finally` (generators, lower-generator.ts). A paused generator leaves its body by
 * `return`, which would run a VM `finally` block, and a resumed one must be able to enter the
 * `finally` block at its yield point; so a `try` whose `finally` block may pause becomes plain steps
 * that the resumable lowering enters like any others, the pending outcome kept among the variables:
 *
 *   $fk = 0
 *   try { body } catch ($gfe) { if ($gfe !== JUMP) { $fk = 1; $fv = caught($gfe) } }
 *   finally-block
 *   if ($fk === 1) throw $fv      // the exception goes on after the block, as CPython's
 *   if ($fk === 2) return $fv     // a `return v` of the body, v computed before the block
 *   if ($fk === 3) break          // a `break` / `continue` of the body that left the `try`
 *   if ($fk === 4) continue
 *
 * A `return`, or a `break`/`continue` leaving the body, records its kind (and value) and throws
 * JUMP, which every `except` inside the body passes on unseen and every `finally` inside it runs
 * for, as for a real return. A `return`, `break` or `continue` in the finally block itself drops
 * what was pending, and an exception there replaces it, as in CPython; `close()` while paused in
 * the block raises GeneratorExit at that yield like at any other.
 *
 * The exception that goes on is located where it was raised, as CPython's traceback points there:
 * the VM hands a `catch` the value without its location, so each statement of the body first notes
 * its number in `$fl`, and the value is thrown again by the `throw` located at that statement (one
 * per statement, tested only when the exception goes on). An exception from a function the body
 * calls is located at the calling statement.
 */
import type { Step } from '../ast/types.ts'
import { binary, id, lit, rt, setVar, step } from './nodes.ts'

export type AnyStep = Step & Record<string, any>

export const isMarker = (s: AnyStep): 'yield' | 'yieldfrom' | undefined => {
  const v = s.op === 'expr' ? s.value : undefined
  return v?.$expr === 'call' && (v.callee === 'py$yield' || v.callee === 'py$yieldfrom') ? (v.callee === 'py$yield' ? 'yield' : 'yieldfrom') : undefined
}

/** The step lists inside a step that the body's control flow runs (never a nested function's). */
export function children(s: AnyStep): Step[][] {
  switch (s.op) {
    case 'if': return [s.then ?? [], s.else ?? []]
    case 'while': case 'for': case 'forOf': return [s.body ?? []]
    case 'try': return [s.try ?? [], s.catch ?? [], s.finally ?? []]
    default: return []
  }
}

/** A copy of the step with each of its step lists given by `f`. */
function mapLists(s: AnyStep, f: (xs: Step[], loop: boolean) => Step[]): AnyStep {
  switch (s.op) {
    case 'if': return { ...s, then: f(s.then ?? [], false), ...(s.else ? { else: f(s.else, false) } : {}) }
    case 'while': case 'for': case 'forOf': return { ...s, body: f(s.body ?? [], true) }
    case 'try': return { ...s, try: f(s.try ?? [], false), ...(s.catch ? { catch: f(s.catch, false) } : {}), ...(s.finally ? { finally: f(s.finally, false) } : {}) }
    default: return s
  }
}

const JUMP = '$gjump'
const NORMAL = 0, RAISED = 1, RETURNED = 2, BROKE = 3, CONTINUED = 4

const mayPause = (steps: Step[]): boolean => (steps as AnyStep[]).some((s) => isMarker(s) !== undefined || children(s).some(mayPause))

/** The body with every `try` whose `finally` block may pause split as above (inner ones first). */
export function yieldingFinally(steps: Step[], temp: (prefix: string) => string): Step[] {
  const generated = new WeakSet<object>()
  const go = (xs: Step[]): Step[] => (xs as AnyStep[]).flatMap((s0) => {
    const s = mapLists(s0, go)
    return s.op === 'try' && s.finally && mayPause(s.finally) ? split(s, temp, generated) : [s]
  })
  return go(steps)
}

/**
 * The steps with each located one preceded by `at = its number` (into nested blocks; nested
 * functions are helpers of their own), the locations in `locs` (number i at i - 1).
 */
function noteLocations(steps: Step[], at: string, locs: unknown[]): Step[] {
  return (steps as AnyStep[]).flatMap((x) => {
    const out = mapLists(x, (ys) => noteLocations(ys, at, locs))
    if (x.loc === undefined) return [out]
    locs.push(x.loc)
    return [setVar(at, lit(locs.length)), out]
  })
}

function split(s: AnyStep, temp: (prefix: string) => string, generated: WeakSet<object>): Step[] {
  const kind = temp('$fk'), value = temp('$fv'), e = temp('$gfe'), at = temp('$fl')
  const { finally: block, ...rest } = s
  const seen = new Set<number>()
  const leave = (k: number, loc: unknown, v?: unknown): Step[] => {
    seen.add(k)
    return [...(v === undefined ? [] : [setVar(value, v as never)]), setVar(kind, lit(k)), step('throw', { value: lit(JUMP) }, loc as never)]
  }
  // `inLoop`: inside a loop of the body, whose `break`/`continue` stay there.
  const jumps = (xs: Step[], inLoop: boolean): Step[] => (xs as AnyStep[]).flatMap((x) => {
    if (x.op === 'return') return leave(RETURNED, x.loc, x.value ?? lit(null))
    if (x.op === 'break' && !inLoop) return leave(BROKE, x.loc)
    if (x.op === 'continue' && !inLoop) return leave(CONTINUED, x.loc)
    const out = mapLists(x, (ys, loop) => jumps(ys, inLoop || loop))
    if (out.op === 'try' && out.catch && typeof out.catchParam === 'string' && !generated.has(x)) {
      out.catch = [step('if', { condition: binary('===', id(out.catchParam), lit(JUMP)), then: [step('throw', { value: id(out.catchParam) })] }), ...out.catch]
    }
    return [out]
  })
  const locs: unknown[] = []
  const body = noteLocations(jumps(rest.catch ? [rest as Step] : (rest.try ?? []), false), at, locs)
  const guarded = step('try', {
    try: body,
    catchParam: e,
    catch: [step('if', { condition: binary('!==', id(e), lit(JUMP)), then: [setVar(kind, lit(RAISED)), setVar(value, rt('caught', [id(e)]))] })],
  }, s.loc as never)
  generated.add(guarded)
  const after = (k: number, then: Step): Step => step('if', { condition: binary('===', id(kind), lit(k)), then: [then] })
  return [
    setVar(kind, lit(NORMAL)),
    guarded,
    ...(block as Step[]),
    // Raised again at the statement that raised it (the `try` line when none was noted).
    step('if', { condition: binary('===', id(kind), lit(RAISED)), then: [
      ...locs.map((loc, i) => step('if', { condition: binary('===', id(at), lit(i + 1)), then: [step('throw', { value: id(value) }, loc as never)] })),
      step('throw', { value: id(value) }, s.loc as never),
    ] }),
    ...(seen.has(RETURNED) ? [after(RETURNED, step('return', { value: id(value) }))] : []),
    ...(seen.has(BROKE) ? [after(BROKE, step('break', {}))] : []),
    ...(seen.has(CONTINUED) ? [after(CONTINUED, step('continue', {}))] : []),
  ]
}
