/**
 * Step compilers for the language ops (table-driven). Loops live in
 * loops.ts, collection ops with step bodies in collection-steps.ts; every
 * other op is an atom (atom-steps.ts).
 */
import type { CoreOp, Step, StepOf } from '../../ast/types.ts'
import { STEP_COST } from '../fuel.ts'
import { VmError, guestErrorValue, rethrownError, toVmError, vmError } from '../errors.ts'
import { BREAK, CONTINUE, Frame, NORMAL, RETURN, isPromise, type Completion } from '../runtime.ts'
import type { CStep, Scope } from './context.ts'
import { compileError } from './context.ts'
import type { CStepInfo, Compiler } from './compiler.ts'
import { compileValue } from './values.ts'
import { isP, then } from './async.ts'
import { checkName } from './patterns.ts'
import { LOOP_COMPILERS } from './loops.ts'
import { COLLECTION_STEP_COMPILERS } from './collection-steps.ts'
import { parallelStep } from './parallel.ts'
import { fusedIf, fusedStore } from './fusion.ts'
import { strictEq } from './operators.ts'
import { guestString } from '../builtins/coerce.ts'

type StepCompiler = (c: Compiler, step: Step, scope: Scope) => CStepInfo
/** A compiler of one core op: its step typed by the vocabulary table. */
type StepCompilerOf<K extends CoreOp> = (c: Compiler, step: StepOf<K>, scope: Scope) => CStepInfo


/** Store a step's value into its `result` binding, if any, and complete normally. */
export function storeResult(c: Compiler, step: Step, scope: Scope): (f: Frame, v: unknown) => Completion {
  if (step.result === undefined) return () => NORMAL
  const slot = c.resultSlot(checkName(step.result), scope)
  return (f, v) => { f.s[slot] = v; return NORMAL }
}

function block(c: Compiler, step: StepOf<'seq' | 'scope'>, scope: Scope): CStepInfo {
  const body = c.block(step.steps, scope)
  return { run: body.run, async: body.async, cost: STEP_COST }
}

function ifStep(c: Compiler, step: StepOf<'if'>, scope: Scope): CStepInfo {
  const cond = c.expr(step.condition, scope)
  const yes = c.block(step.then ?? [], scope)
  const no = step.else !== undefined ? c.block(step.else, scope) : undefined
  const t = cond.fn, y = yes.run, n = no?.run
  const cost = STEP_COST + cond.cost
  const pick = (f: Frame, v: unknown) => (v ? y(f) : n ? n(f) : NORMAL)
  let run: CStep
  if (cond.async) run = (f) => then(t(f), (x) => pick(f, x))
  else if (cond.slot !== undefined) {
    const slot = cond.slot
    run = n ? (f) => (f.s[slot] ? y(f) : n(f)) : (f) => (f.s[slot] ? y(f) : NORMAL)
  } else run = fusedIf(cond, y, n ?? (() => NORMAL)) ?? (n ? (f) => (t(f) ? y(f) : n(f)) : (f) => (t(f) ? y(f) : NORMAL))
  return {
    run,
    async: cond.async || yes.async || !!no?.async,
    cost: cost,
  }
}

function returnStep(c: Compiler, step: StepOf<'return'>, scope: Scope): CStepInfo {
  if (step.value === undefined) return { run: (f) => { f.ret = undefined; return RETURN }, async: false, cost: STEP_COST }
  const val = compileValue(c, step.value, scope)
  const v = val.fn
  const cost = STEP_COST + val.cost
  if (!val.async) return { run: (f) => { f.ret = v(f); return RETURN }, async: false, cost: cost }
  return {
    run: (f) => { return then(v(f), (x) => { f.ret = x; return RETURN }) },
    async: true,
    cost: cost,
  }
}

function jump(code: number) {
  return (_c: Compiler, step: StepOf<'break' | 'continue'>): CStepInfo => {
    const label = step.label
    return { run: (f) => { f.label = label; return code }, async: false, cost: STEP_COST }
  }
}

function thrownError(v: unknown): VmError {
  const message = v !== null && typeof v === 'object' && typeof (v as any).message === 'string' ? (v as any).message : guestString(undefined, v)
  return rethrownError(v, message) ?? vmError('THROWN', message, { value: v })
}

function throwStep(c: Compiler, step: StepOf<'throw'>, scope: Scope): CStepInfo {
  const val = compileValue(c, step.value, scope)
  const cost = STEP_COST + val.cost
  return {
    run: (f) => { return then(val.fn(f), (v) => { throw thrownError(v) }) },
    async: val.async,
    cost: cost,
  }
}

function errorStep(c: Compiler, step: StepOf<'Error'>, scope: Scope): CStepInfo {
  const message = compileValue(c, step.message, scope)
  const name = step.name !== undefined ? compileValue(c, step.name, scope) : undefined
  const data = step.data !== undefined ? compileValue(c, step.data, scope) : undefined
  const cost = STEP_COST + message.cost + (name?.cost ?? 0) + (data?.cost ?? 0)
  return {
    run: (f) => {
      return then(message.fn(f), (m) => then(name ? name.fn(f) : 'Error', (n) => then(data ? data.fn(f) : undefined, (d) => {
        const err: Record<string, unknown> = { name: guestString(f.rt, n), message: guestString(f.rt, m) }
        if (d !== undefined) err.data = d
        throw thrownError(err)
      })))
    },
    async: message.async || !!name?.async || !!data?.async,
    cost: cost,
  }
}

function tryStep(c: Compiler, step: StepOf<'try'>, scope: Scope): CStepInfo {
  const body = c.block(step.try ?? [], scope)
  let catchRun: CStep | undefined
  let bindParam: ((f: Frame, v: unknown) => unknown) | undefined
  let catchAsync = false
  if (step.catch !== undefined) {
    const catchScope = scope.child()
    if (step.catchParam !== undefined) {
      const p = c.pattern(step.catchParam, catchScope, 'let')
      bindParam = p.bind
      catchAsync ||= p.async
    }
    const cb = c.sequence(step.catch, catchScope)
    catchRun = cb.run
    catchAsync ||= cb.async
  } else if (step.finally === undefined) {
    throw compileError('AST_INVALID', '`try` needs `catch` or `finally`')
  }
  const fin = step.finally !== undefined ? c.block(step.finally, scope) : undefined
  const tryRun = body.run

  const recover = (f: Frame, e: unknown): Completion | Promise<Completion> => {
    const err = toVmError(e)
    if (f.rt.stopped) throw f.rt.stopped // a stopped run (fuel, heap, time) stays stopped, whatever a builtin made of the error
    if (err.fatal) throw err
    if (!catchRun) throw err
    const value = guestErrorValue(err)
    if (!bindParam) return catchRun(f)
    return then(bindParam(f, value), () => catchRun!(f))
  }
  const attempt = (f: Frame): Completion | Promise<Completion> => {
    try {
      const r = tryRun(f)
      return isPromise(r) ? r.catch((e) => recover(f, e)) : r
    } catch (e) {
      return recover(f, e)
    }
  }
  if (!fin) return { run: (f) => { return attempt(f) }, async: body.async || catchAsync, cost: STEP_COST }

  const finRun = fin.run
  const afterOk = (f: Frame, code: Completion) => {
    const ret = f.ret, label = f.label
    return then(finRun(f), (c2: Completion) => {
      if (c2 !== NORMAL) return c2
      f.ret = ret
      f.label = label
      return code
    })
  }
  const afterErr = (f: Frame, e: unknown) => {
    const err = toVmError(e)
    if (f.rt.stopped) throw f.rt.stopped // a stopped run (fuel, heap, time) stays stopped, whatever a builtin made of the error
    if (err.fatal) throw err
    return then(finRun(f), (c2: Completion) => {
      if (c2 !== NORMAL) return c2
      throw err
    })
  }
  return {
    run: (f) => {
      let r: Completion | Promise<Completion>
      try {
        r = attempt(f)
      } catch (e) {
        return afterErr(f, e)
      }
      return isPromise(r) ? r.then((code) => afterOk(f, code), (e) => afterErr(f, e)) : afterOk(f, r)
    },
    async: body.async || catchAsync || fin.async,
    cost: STEP_COST,
  }
}

function exprStep(c: Compiler, step: StepOf<'expr'>, scope: Scope): CStepInfo {
  const val = compileValue(c, step.value, scope)
  const store = storeResult(c, step, scope)
  const v = val.fn
  const cost = STEP_COST + val.cost
  if (!val.async && step.result === undefined) return { run: val.step ?? ((f) => { v(f); return NORMAL }), async: false, cost: cost }
  if (!val.async) return { run: (f) => { return store(f, v(f)) }, async: false, cost: cost }
  return { run: (f) => { return then(v(f), (x) => store(f, x)) }, async: true, cost: cost }
}

function varSet(c: Compiler, step: StepOf<'varSet'>, scope: Scope): CStepInfo {
  const val = compileValue(c, step.value, scope)
  const slot = c.resultSlot(checkName(step.key), scope)
  const store = storeResult(c, step, scope)
  const v = val.fn
  const cost = STEP_COST + val.cost
  if (!val.async && step.result === undefined) return { run: fusedStore(val, slot) ?? ((f) => { f.s[slot] = v(f); return NORMAL }), async: false, cost: cost }
  return { run: (f) => { return then(v(f), (x) => { f.s[slot] = x; return store(f, x) }) }, async: val.async, cost: cost }
}

function declareOne(c: Compiler, name: unknown, value: unknown, scope: Scope, kind: 'let' | 'const') {
  const val = compileValue(c, value, scope)
  const slot = scope.declare(checkName(name), kind).slot
  return { val, slot }
}

function constSet(c: Compiler, step: StepOf<'constSet'>, scope: Scope): CStepInfo {
  const { val, slot } = declareOne(c, step.key, step.value, scope, 'const')
  const v = val.fn
  const cost = STEP_COST + val.cost
  if (!val.async) return { run: fusedStore(val, slot) ?? ((f) => { f.s[slot] = v(f); return NORMAL }), async: false, cost: cost }
  return { run: (f) => { return then(v(f), (x) => { f.s[slot] = x; return NORMAL }) }, async: true, cost: cost }
}

function varsLet(c: Compiler, step: StepOf<'varsLet'>, scope: Scope): CStepInfo {
  const vars = step.vars
  const decls = Object.keys(vars).map((name) => declareOne(c, name, vars[name], scope, 'let'))
  const cost = STEP_COST + decls.reduce((t, d) => t + d.val.cost, 0)
  if (decls.length === 1 && !decls[0]!.val.async) {
    const { val, slot } = decls[0]!
    const v = val.fn
    return { run: fusedStore(val, slot) ?? ((f) => { f.s[slot] = v(f); return NORMAL }), async: false, cost: cost }
  }
  const from = (f: Frame, i: number): Completion | Promise<Completion> => {
    for (; i < decls.length; i++) {
      const d = decls[i]!
      const x = d.val.fn(f)
      if (isP(x)) { const k = i; return x.then((r) => { f.s[d.slot] = r; return from(f, k + 1) }) }
      f.s[d.slot] = x
    }
    return NORMAL
  }
  return { run: (f) => { return from(f, 0) }, async: decls.some((d) => d.val.async), cost: cost }
}

function varGet(c: Compiler, step: StepOf<'varGet'>, scope: Scope): CStepInfo {
  const name = checkName(step.key)
  const b = scope.lookup(name)
  if (!b) throw compileError('UNKNOWN_IDENTIFIER', `Unknown variable "${name}"${c.suggest(name, scope)}`)
  const slot = b.slot
  const store = storeResult(c, step, scope)
  return { run: (f) => { return store(f, f.s[slot]) }, async: false, cost: STEP_COST }
}


function varsImport(_c: Compiler, step: StepOf<'varsImport'>, scope: Scope): CStepInfo {
  const keys = step.keys.map(checkName)
  const slots = keys.map((k) => scope.declare(k, 'let').slot)
  return {
    run: (f) => {
      const args = f.rt.args as Record<string, unknown> | null
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!
        f.s[slots[i]!] = args && typeof args === 'object' && Object.hasOwn(args, k) ? args[k] : undefined
      }
      return NORMAL
    },
    async: false,
    cost: STEP_COST,
  }
}

function varsExport(c: Compiler, step: StepOf<'varsExport'>, scope: Scope): CStepInfo {
  const keys = step.keys.map(checkName)
  const slots = keys.map((k) => {
    const b = scope.lookup(k)
    if (!b) throw compileError('UNKNOWN_IDENTIFIER', `Unknown variable "${k}"${c.suggest(k, scope)}`)
    return b.slot
  })
  const store = storeResult(c, step, scope)
  return {
    run: (f) => {
      const o: Record<string, unknown> = {}
      for (let i = 0; i < keys.length; i++) o[keys[i]!] = f.s[slots[i]!]
      f.rt.chargeSlots(keys.length)
      return store(f, o)
    },
    async: false,
    cost: STEP_COST,
  }
}

function destructure(c: Compiler, step: StepOf<'destructure'>, scope: Scope): CStepInfo {
  const kind = step.kind
  const val = compileValue(c, step.value, scope)
  const pat = c.pattern(step.pattern, scope, kind)
  const cost = STEP_COST + val.cost + pat.cost
  return {
    run: (f) => { return then(val.fn(f), (v) => then(pat.bind(f, v), () => NORMAL)) },
    async: val.async || pat.async,
    cost: cost,
  }
}

function switchStep(c: Compiler, step: StepOf<'switch'>, scope: Scope): CStepInfo {
  const disc = c.expr(step.discriminant, scope)
  const label = step.label as string | undefined
  const cases = step.cases
  const inner = scope.child()
  let defaultIndex = -1
  const compiled = cases.map((k: any, i: number) => {
    if (k.test === undefined || k.test === null) {
      if (defaultIndex >= 0) throw compileError('AST_INVALID', 'switch has more than one default case')
      defaultIndex = i
    }
    const test = k.test === undefined || k.test === null ? undefined : c.expr(k.test, inner)
    const body = c.sequence(k.body ?? [], inner)
    return { test, body: body.run, async: body.async || !!test?.async }
  })
  const runFrom = (f: Frame, i: number): Completion | Promise<Completion> => {
    for (; i < compiled.length; i++) {
      const code = compiled[i]!.body(f)
      if (code === NORMAL) continue
      if (isPromise(code)) { const k = i; return code.then((cd) => (cd === NORMAL ? runFrom(f, k + 1) : exit(f, cd))) }
      return exit(f, code)
    }
    return NORMAL
  }
  const exit = (f: Frame, code: Completion): Completion => {
    if (code === BREAK && (f.label === undefined || f.label === label)) { f.label = undefined; return NORMAL }
    return code
  }
  const match = (f: Frame, d: unknown, i: number): Completion | Promise<Completion> => {
    for (; i < compiled.length; i++) {
      const t = compiled[i]!.test
      if (!t) continue
      f.rt.charge(t.cost)
      const v = t.fn(f)
      if (isP(v)) { const k = i; return v.then((x) => ((typeof x === 'string' ? strictEq(f, x, d) : x === d) ? runFrom(f, k) : match(f, d, k + 1))) }
      if (typeof v === 'string' ? strictEq(f, v, d) : v === d) return runFrom(f, i)
    }
    return defaultIndex >= 0 ? runFrom(f, defaultIndex) : NORMAL
  }
  const cost = STEP_COST + disc.cost
  return {
    run: (f) => { return then(disc.fn(f), (d) => match(f, d, 0)) },
    async: disc.async || compiled.some((k: { async: boolean }) => k.async),
    cost: cost,
  }
}

const TYPED_COMPILERS: { [K in CoreOp]?: StepCompilerOf<K> } = {
  seq: block,
  scope: block,
  if: ifStep,
  return: returnStep,
  break: jump(BREAK),
  continue: jump(CONTINUE),
  throw: throwStep,
  Error: errorStep,
  try: tryStep,
  parallel: parallelStep,
  expr: exprStep,
  varSet,
  constSet,
  varsLet,
  varGet,
  varsImport,
  varsExport,
  destructure,
  switch: switchStep,
}

/**
 * The step compilers by op. Each is typed by its op's `StepOf`; the compiler
 * dispatches on `op` (and `validateAst` has checked the fields), so the one
 * widening is here.
 */
export const STEP_COMPILERS: Record<string, StepCompiler> = {
  ...(TYPED_COMPILERS as Record<string, StepCompiler>),
  ...LOOP_COMPILERS,
  ...COLLECTION_STEP_COMPILERS,
}
