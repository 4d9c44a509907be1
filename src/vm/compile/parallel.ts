/**
 * The `parallel` step, in its two forms:
 *
 * - `branches`: each list of steps runs once, all on the same variables
 *   (what `Promise.all([a(), b()])` lowers to);
 * - `items` / `as` / `index` / `steps`: the steps run once per item, each
 *   run on its own copy of the variables (`Promise.all(xs.map((x) => f(x)))`).
 *   The compiler refuses assignments from the body to names declared outside
 *   it (PARALLEL_ASSIGN), so the copies can never disagree with the original.
 *
 * The value is the array of the runs' `return` values, in order. The first
 * error ends the step with that error and cancels the others: their atom
 * calls see an aborted signal, and an enclosing `parallel` that is cancelled
 * cancels this one too.
 */
import type { StepOf } from '../../ast/types.ts'
import { ITERATION_COST, STEP_COST } from '../fuel.ts'
import { vmError } from '../errors.ts'
import { Frame, RETURN, type Completion } from '../runtime.ts'
import type { CStep, Scope } from './context.ts'
import { compileError } from './context.ts'
import type { CStepInfo, Compiler } from './compiler.ts'
import { compileValue } from './values.ts'
import { then } from './async.ts'
import { checkName } from './patterns.ts'
import { storeResult } from './statements.ts'


const valueOf = (fork: Frame, code: Completion) => (code === RETURN ? fork.ret : undefined)

/** A cancel group for the forks of one step, linked to the group the step itself runs in. */
function cancelGroup(f: Frame): AbortController {
  const group = new AbortController()
  const outer = f.cancel
  if (outer) {
    if (outer.aborted) group.abort()
    else outer.addEventListener('abort', () => group.abort(), { once: true })
  }
  return group
}

/** Start every fork on the next microtask, in order; settle with the values or the first error. */
function runForks(group: AbortController, count: number, start: (i: number) => Promise<unknown>): Promise<unknown[]> {
  const runs: Array<Promise<unknown>> = new Array(count)
  for (let i = 0; i < count; i++) runs[i] = Promise.resolve(i).then(start)
  return Promise.all(runs).catch((e) => {
    group.abort()
    throw e
  })
}

function branchesForm(c: Compiler, step: StepOf<'parallel'>, scope: Scope): CStepInfo {
  const branches = step.branches!
  const runs: CStep[] = branches.map((b: unknown) => c.block(b, scope).run)
  const store = storeResult(c, step, scope)
  return {
    run: (f) => {
      const group = cancelGroup(f)
      return runForks(group, runs.length, (i) => {
        const fork = new Frame(f.s, f.rt, group.signal)
        return Promise.resolve(runs[i]!(fork)).then((code) => valueOf(fork, code))
      }).then((values) => store(f, values))
    },
    async: true,
    cost: STEP_COST,
  }
}

function itemsForm(c: Compiler, step: StepOf<'parallel'>, scope: Scope): CStepInfo {
  const items = compileValue(c, step.items, scope)
  const inner = scope.isolatedChild()
  const asSlot = inner.declare(checkName(step.as), 'let').slot
  const indexSlot = step.index !== undefined ? inner.declare(checkName(step.index), 'let').slot : -1
  const body = c.sequence(step.steps, inner).run
  const store = storeResult(c, step, scope)
  return {
    run: (f) => then(items.fn(f), (list) => {
      if (!Array.isArray(list)) {
        throw vmError('TYPE_ERROR', `parallel needs an array of items, got ${list === null ? 'null' : typeof list}`, { op: 'parallel' })
      }
      const n = list.length
      // Paid before any fork exists: the result array and one copy of the variables per item.
      f.rt.charge(n * ITERATION_COST)
      f.rt.chargeSlots(n * (f.s.length + 1))
      const group = cancelGroup(f)
      return runForks(group, n, (i) => {
        const fork = new Frame(f.s.slice(), f.rt, group.signal)
        fork.s[asSlot] = list[i]
        if (indexSlot >= 0) fork.s[indexSlot] = i
        return Promise.resolve(body(fork)).then((code) => valueOf(fork, code))
      }).then((values) => store(f, values))
    }),
    async: true,
    cost: STEP_COST + items.cost,
  }
}

export function parallelStep(c: Compiler, step: StepOf<'parallel'>, scope: Scope): CStepInfo {
  if (step.branches !== undefined) return branchesForm(c, step, scope)
  if (step.items !== undefined) return itemsForm(c, step, scope)
  throw compileError('AST_INVALID', '`parallel` needs `branches`, or `items` + `as` + `steps`')
}
