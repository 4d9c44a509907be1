/**
 * Loops. Each loop runs as a plain synchronous `for (;;)` until some part
 * (test, body, update) returns a Promise; from there the same loop goes on
 * in `slowLoop`, awaiting. Every iteration ticks the deadline check and is
 * charged ITERATION_COST plus its test.
 *
 * Time slicing: when the deadline check says the run has held the thread for
 * a slice, a loop that may suspend (its caller accepts a Promise) returns
 * `resumeAfterPause`, which lets the event loop turn and then re-enters the
 * same fast loop at the top of the iteration. The hot path pays nothing
 * more: the slice is looked at only on the 1-in-1024 tick that already
 * checks the clock.
 */
import { ORDERING_OPERATORS } from '../../ast/nodes.ts'
import type { IdentExpr, MemberExpr, Pattern, Step, StepOf } from '../../ast/types.ts'
import { ITERATION_COST, STEP_COST } from '../fuel.ts'
import { vmError } from '../errors.ts'
import { ownKeys } from '../guards.ts'
import { BREAK, CONTINUE, NORMAL, PULL, PULL_DONE, isPromise, type Completion, type Frame, type PullSource } from '../runtime.ts'
import type { CExpr, CStep, Scope } from './context.ts'
import { compileError } from './context.ts'
import type { CStepInfo, Compiler } from './compiler.ts'
import { isP } from './async.ts'
import { COMPARE, compare } from './operators.ts'

type Fn = (f: Frame) => any

const GO_ON = -1

/** What a body's completion means for the loop: GO_ON, or the completion to leave with. */
function afterBody(f: Frame, code: Completion, label: string | undefined): Completion {
  if (code === NORMAL) return GO_ON
  if (code === BREAK && (f.label === undefined || f.label === label)) { f.label = undefined; return NORMAL }
  if (code === CONTINUE && (f.label === undefined || f.label === label)) { f.label = undefined; return GO_ON }
  return code
}

interface LoopParts {
  label: string | undefined
  /** `slot < k` / `slot <= slot` / ... tests, checked inline by the counting-loop variant. */
  lessThan?: { op: string; a: number; num?: number; slot?: number }
  updateSync?: boolean
  /** The update is `slot++` / `slot--` (the counting loop does it inline for numbers). */
  inc?: { slot: number; delta: number }
  /** `next` never returns a Promise (skip the check in the hot loop). */
  nextSync?: boolean
  /** Runs before each iteration (binds the loop variable, or evaluates the test); false ends the loop. */
  next: Fn
  nextCost: number
  body: CStep
  update: Fn | null
  updateCost: number
  /** do...while: skip `next` before the first iteration. */
  bodyFirst: boolean
  /** The loop may return a Promise to pause (see the header); false inside sync-only callers. */
  yieldable: boolean
}

/** A fast loop body: `first` is do...while's "skip the test", `driven` means called by resumeAfterPause. */
type FastLoop = (f: Frame, first: boolean, driven: boolean) => Completion | Promise<Completion>

/** Returned by a driven fast loop when its slice is over again (never seen outside this file). */
const PAUSED = 100
const PAUSED_FIRST = 101

/** Pause between slices, then run the fast loop again, for as many slices as it needs. */
async function resumeAfterPause(f: Frame, run: FastLoop, first: boolean): Promise<Completion> {
  for (;;) {
    await f.rt.pause()
    const r = run(f, first, true)
    if (r !== PAUSED && r !== PAUSED_FIRST) return r
    first = r === PAUSED_FIRST
  }
}

function pauseLoop(f: Frame, run: FastLoop, first: boolean, driven: boolean): Completion | Promise<Completion> {
  return driven ? (first ? PAUSED_FIRST : PAUSED) : resumeAfterPause(f, run, first)
}

async function slowLoop(f: Frame, p: LoopParts, phase: 'next' | 'body' | 'update', pending: unknown): Promise<Completion> {
  const rt = f.rt
  for (;;) {
    if (phase === 'next') {
      const t = await pending
      if (!t) return NORMAL
      phase = 'body'
      pending = p.body(f)
    }
    if (phase === 'body') {
      const r = afterBody(f, await (pending as Completion | Promise<Completion>), p.label)
      if (r !== GO_ON) return r
      phase = 'update'
      if (p.update) { rt.charge(p.updateCost); pending = p.update(f) } else pending = undefined
    }
    await pending
    // Awaiting an already settled value is only a microtask: pause for real at the end of a slice.
    if ((++rt.ticks & 1023) === 0 && rt.checkTime()) await rt.pause()
    rt.charge(ITERATION_COST + p.nextCost)
    phase = 'next'
    pending = p.next(f)
  }
}

/**
 * The counting loop (`while (i < n)`, `for (...; i >= 0; ...)`, any of < <= > >=) with its test
 * done inline: one closure call fewer per iteration on the hottest shape.
 */
function makeCountingLoop(p: LoopParts): (f: Frame) => Completion | Promise<Completion> {
  const { next, body, update, label, nextCost, updateCost } = p
  const { a, num, slot } = p.lessThan!
  const cmp = COMPARE[p.lessThan!.op]!
  const d = slot ?? -1
  const k = num ?? 0
  const updateSync = p.updateSync === true
  const iterCost = ITERATION_COST + nextCost
  // `i++` / `i--` updates are done here when the variable holds a number.
  const incSlot = p.inc?.slot ?? -1
  const incDelta = p.inc?.delta ?? 0
  const yieldable = p.yieldable
  const run: FastLoop = (f, _first, driven) => {
    const rt = f.rt
    const s = f.s
    for (;;) {
      if ((++rt.ticks & 1023) === 0 && rt.checkTime() && yieldable) return pauseLoop(f, run, false, driven)
      if ((rt.left -= iterCost) < 0) rt.outOfFuel()
      const x = s[a], y = d >= 0 ? s[d] : k
      if (!(typeof x === 'number' && typeof y === 'number' ? compare(cmp, x, y) : next(f))) return NORMAL
      const code = body(f)
      if (code !== NORMAL) {
        if (typeof code !== 'number') return slowLoop(f, p, 'body', code)
        const r = afterBody(f, code, label)
        if (r !== GO_ON) return r
      }
      if (update) {
        if ((rt.left -= updateCost) < 0) rt.outOfFuel()
        const v = incSlot >= 0 ? s[incSlot] : undefined
        if (typeof v === 'number') s[incSlot] = v + incDelta
        else {
          const u = update(f)
          if (!updateSync && isP(u)) return slowLoop(f, p, 'update', u)
        }
      }
    }
  }
  return (f) => run(f, false, false)
}

function makeLoop(p: LoopParts, setup?: (f: Frame) => unknown): CStep {
  const { next, body, update, label, nextCost, updateCost, bodyFirst } = p
  if (p.lessThan && !bodyFirst && p.nextSync) {
    const counting = makeCountingLoop(p)
    if (!setup) return counting
    return (f) => {
      const r = setup(f)
      return isP(r) ? r.then(() => counting(f)) : counting(f)
    }
  }
  const nextSync = p.nextSync === true
  const yieldable = p.yieldable
  const run: FastLoop = (f, first, driven) => {
    const rt = f.rt
    const iterCost = ITERATION_COST + nextCost
    for (;;) {
      if ((++rt.ticks & 1023) === 0 && rt.checkTime() && yieldable) return pauseLoop(f, run, first, driven)
      if (!first) {
        if ((rt.left -= iterCost) < 0) rt.outOfFuel()
        const t = next(f)
        if (!t) return NORMAL
        if (!nextSync && isP(t)) return slowLoop(f, p, 'next', t)
      } else if ((rt.left -= ITERATION_COST) < 0) rt.outOfFuel()
      first = false
      const code = body(f)
      if (code !== NORMAL) {
        if (typeof code !== 'number') return slowLoop(f, p, 'body', code)
        const r = afterBody(f, code, label)
        if (r !== GO_ON) return r
      }
      if (update) {
        if ((rt.left -= updateCost) < 0) rt.outOfFuel()
        const u = update(f)
        if (isP(u)) return slowLoop(f, p, 'update', u)
      }
    }
  }
  const loop = (f: Frame) => run(f, bodyFirst, false)
  if (!setup) return loop
  return (f) => {
    const r = setup(f)
    return isP(r) ? r.then(() => loop(f)) : loop(f)
  }
}

/** The loop's test when it is an ordering a counting loop does inline (four operators: no Set built at import). */
function lessThanOf(cond: CExpr): LoopParts['lessThan'] {
  const b = cond.slotOp
  return b && (ORDERING_OPERATORS as readonly string[]).includes(b.op) && !cond.async ? { op: b.op, a: b.a, num: b.num, slot: b.slot } : undefined
}

function whileLoop(c: Compiler, step: StepOf<'while' | 'doWhile'>, scope: Scope, bodyFirst: boolean): CStepInfo {
  const cond = c.expr(step.condition, scope)
  const body = c.block(step.body ?? [], scope)
  const run = makeLoop({
    label: step.label, next: cond.fn, nextSync: !cond.async, nextCost: cond.cost, body: body.run,
    update: null, updateCost: 0, bodyFirst, lessThan: lessThanOf(cond), yieldable: c.canSuspend(scope),
  })
  return { run, async: cond.async || body.async, cost: STEP_COST }
}

function forLoop(c: Compiler, step: StepOf<'for'>, scope: Scope): CStepInfo {
  const inner = scope.child()
  const init = step.init !== undefined ? c.sequence(step.init, inner) : undefined
  const cond = step.condition !== undefined ? c.expr(step.condition, inner) : undefined
  const update = step.update !== undefined ? c.expr(step.update, inner) : undefined
  const body = c.block(step.body ?? [], inner)
  const initRun = init?.run
  const run = makeLoop({
    label: step.label,
    next: cond ? cond.fn : () => true,
    nextSync: !cond?.async,
    lessThan: cond ? lessThanOf(cond) : undefined,
    updateSync: !update?.async,
    nextCost: cond?.cost ?? 0,
    body: body.run,
    update: update ? update.fn : null,
    inc: update?.slotInc,
    updateCost: update?.cost ?? 0,
    bodyFirst: false,
    yieldable: c.canSuspend(inner),
  }, initRun ? (f) => {
    const code = initRun(f)
    if (isPromise(code)) return code
    return undefined
  } : undefined)
  return { run, async: !!init?.async || !!cond?.async || !!update?.async || body.async, cost: STEP_COST }
}

/** State of one for...of / for...in: a key snapshot or live array by index, or a string read in place. */
/** What a loop walks: an array by index, a string in place, or a library's lazy source (`PULL`). */
interface Iteration { items: unknown[] | null; text: string | null; i: number; pull: PullSource | null; obj: unknown }

function items(f: Frame, v: unknown, mode: 'of' | 'in'): unknown[] {
  if (mode === 'in') {
    if (v === null || v === undefined) return []
    // The key snapshot of an array is one string per element: paid before it is made; an object's,
    // which cannot be counted before it is listed, right after (as Object.keys): a loop that breaks at
    // once listed a million keys each time for nothing.
    if (Array.isArray(v)) f.rt.chargeSlots(v.length)
    const keys = ownKeys(v)
    if (!Array.isArray(v)) f.rt.chargeSlots(keys.length)
    return keys
  }
  if (Array.isArray(v)) return v
  throw vmError('TYPE_ERROR', `${v === null ? 'null' : typeof v} is not iterable`)
}

const isPullSource = (x: unknown): x is PullSource => typeof x === 'object' && x !== null && typeof (x as Partial<PullSource>)[PULL] === 'function'

/** for...of / for...in: iterate a snapshot of keys or a live array by index. */
function iterate(c: Compiler, step: StepOf<'forOf'> | StepOf<'forIn'>, scope: Scope, mode: 'of' | 'in'): CStepInfo {
  const source = c.expr(step.op === 'forOf' ? step.iterable : step.object, scope)
  const inner = scope.child()
  // No `kind`: `for (x of xs)` assigns an existing binding (or member), like JS.
  const kind = step.kind === 'const' ? 'const' : step.kind === 'let' ? 'let' : 'assign'
  // With `kind: 'assign'` the wire also allows an ident/member expression as the target.
  const t = step.target as Pattern | IdentExpr | MemberExpr
  const target = c.pattern(kind === 'assign' && typeof t === 'object' && (t as { $pattern?: unknown } | null)?.$pattern === undefined ? { $pattern: 'target', target: t } : t as Pattern, inner, kind)
  const body = c.block(step.body ?? [], inner)
  // Iteration state lives in a hidden slot of the frame: recursion gets its own frame.
  const hidden = inner.fn.alloc()
  const next = (f: Frame) => {
    const st = f.s[hidden] as Iteration
    let v: unknown
    const items = st.items
    if (items !== null) {
      do {
        if (st.i >= items.length) return false
        v = items[st.i++]
        // for...in skips a key deleted before its turn, as JS does (the snapshot was taken at the start).
      } while (mode === 'in' && !Object.prototype.hasOwnProperty.call(st.obj, v as string))
    } else if (st.pull !== null) {
      v = st.pull[PULL]()
      if (v === PULL_DONE) return false
    } else {
      // A string is read in place, one key or code point per iteration: never copied whole.
      const str = st.text!
      if (st.i >= str.length) return false
      if (mode === 'in') v = String(st.i++)
      else {
        const n = (str.charCodeAt(st.i) & 0xfc00) === 0xd800 && (str.charCodeAt(st.i + 1) & 0xfc00) === 0xdc00 ? 2 : 1
        v = str.slice(st.i, st.i + n)
        st.i += n
      }
    }
    const r = target.bind(f, v)
    return isP(r) ? r.then(() => true) : true
  }
  const loop = makeLoop({
    label: step.label, next, nextSync: !target.async, nextCost: target.cost, body: body.run,
    update: null, updateCost: 0, bodyFirst: false, yieldable: c.canSuspend(inner),
  })
  const go = (f: Frame, x: unknown) => {
    // One object shape for the three kinds, so `next` reads its fields monomorphically.
    f.s[hidden] = typeof x === 'string' ? { items: null, text: x, i: 0, pull: null, obj: null }
      : mode === 'of' && isPullSource(x) ? { items: null, text: null, i: 0, pull: x, obj: null } : { items: items(f, x, mode), text: null, i: 0, pull: null, obj: x }
    return loop(f)
  }
  const run: CStep = (f) => {
    const v = source.fn(f)
    return isP(v) ? v.then((x) => go(f, x)) : go(f, v)
  }
  return { run, async: source.async || target.async || body.async, cost: STEP_COST + source.cost }
}

export const LOOP_COMPILERS: Record<string, (c: Compiler, step: Step, scope: Scope) => CStepInfo> = {
  while: (c, step, scope) => whileLoop(c, step as StepOf<'while'>, scope, false),
  doWhile: (c, step, scope) => whileLoop(c, step as StepOf<'doWhile'>, scope, true),
  for: (c, step, scope) => forLoop(c, step as StepOf<'for'>, scope),
  forOf: (c, step, scope) => iterate(c, step as StepOf<'forOf'>, scope, 'of'),
  forIn: (c, step, scope) => iterate(c, step as StepOf<'forIn'>, scope, 'in'),
}

export { compileError }
