/**
 * Ops with step bodies: map / filter / reduce / find over items bound to a
 * name, and memoize / cache around a body. `return` inside a body gives that
 * iteration's (or the body's) value.
 */
import type { Step, StepOf } from '../../ast/types.ts'
import { ITERATION_COST, toUnits, ATOM_COSTS } from '../fuel.ts'
import { vmError } from '../errors.ts'
import { RETURN, isPromise, type Completion, type Frame, type Run } from '../runtime.ts'
import type { CStep, Scope } from './context.ts'
import type { CStepInfo, Compiler } from './compiler.ts'
import { compileValue } from './values.ts'
import { isP, then } from './async.ts'
import { checkName } from './patterns.ts'
import { storeResult } from './statements.ts'
import { checkMembrane, copyIn, copyOut } from '../membrane.ts'
import { jsonStringify } from '../builtins/json.ts'

const s = (step: Step) => step as any
const costOf = (op: string) => toUnits(ATOM_COSTS[op] ?? 1)

function itemsOf(f: Frame, v: unknown, op: string): unknown[] {
  if (Array.isArray(v)) return v
  // A string's characters become an array: paid (and size-checked) before it is built.
  if (typeof v === 'string') { f.rt.chargeSlots(v.length); return [...v] }
  throw vmError('TYPE_ERROR', `${op} needs an array of items, got ${v === null ? 'null' : typeof v}`, { op })
}

/** Evaluate `body` once per item, maybe-async; `each(i, value)` returns true to stop. */
function forEachItem(
  f: Frame, items: unknown[], bind: (f: Frame, item: unknown, i: number) => void,
  body: (f: Frame) => unknown, each: (i: number, v: unknown) => boolean,
): unknown {
  let i = 0
  const loop = (): unknown => {
    for (; i < items.length; i++) {
      f.rt.tick()
      f.rt.charge(ITERATION_COST)
      bind(f, items[i], i)
      const v = body(f)
      if (isP(v)) {
        const k = i
        return v.then((r) => { i = k + 1; return each(k, r) ? undefined : loop() })
      }
      if (each(i, v)) return undefined
    }
    return undefined
  }
  return loop()
}

/** Run a step body and read its `return` value (undefined when it did not return). */
function bodyValue(run: CStep): (f: Frame) => unknown {
  const read = (f: Frame, code: Completion) => {
    if (code !== RETURN) return undefined
    const v = f.ret
    f.ret = undefined
    return v
  }
  return (f) => {
    const code = run(f)
    return isPromise(code) ? code.then((c) => read(f, c)) : read(f, code)
  }
}

function binder(scope: Scope, step: Step) {
  const asSlot = scope.declare(checkName(s(step).as), 'let').slot
  const indexSlot = s(step).index !== undefined ? scope.declare(checkName(s(step).index), 'let').slot : -1
  return (f: Frame, item: unknown, i: number) => {
    f.s[asSlot] = item
    if (indexSlot >= 0) f.s[indexSlot] = i
  }
}

function iterating(kind: 'map' | 'filter' | 'find' | 'reduce') {
  return (c: Compiler, step: Step, scope: Scope): CStepInfo => {
    const items = compileValue(c, s(step).items, scope)
    const inner = scope.child()
    const bind = binder(inner, step)
    const accSlot = kind === 'reduce' ? inner.declare(checkName(s(step).accumulator), 'let').slot : -1
    const initial = kind === 'reduce' ? compileValue(c, s(step).initial, scope) : undefined
    let body: (f: Frame) => unknown
    let bodyAsync: boolean
    if (kind === 'map' || kind === 'reduce') {
      const b = c.sequence(s(step).steps ?? [], inner)
      body = bodyValue(b.run)
      bodyAsync = b.async
    } else {
      const cond = c.expr(s(step).condition, inner)
      const fn = cond.fn, cost = cond.cost
      body = (f) => { f.rt.charge(cost); return fn(f) }
      bodyAsync = cond.async
    }
    const store = storeResult(c, step, scope)
    const cost = costOf(kind) + items.cost + (initial?.cost ?? 0)
    const op = kind
    const run: CStep = (f) => {
      return then(items.fn(f), (raw) => {
        const list = itemsOf(f, raw, op)
        const finish = (v: unknown) => store(f, v)
        switch (kind) {
          case 'map': {
            const out = new Array(list.length)
            f.rt.chargeSlots(list.length)
            return then(forEachItem(f, list, bind, body, (i, v) => { out[i] = v; return false }), () => finish(out))
          }
          case 'filter': {
            const out: unknown[] = []
            return then(forEachItem(f, list, bind, body, (i, v) => { if (v) out.push(list[i]); return false }), () => {
              f.rt.chargeSlots(out.length)
              return finish(out)
            })
          }
          case 'find': {
            let found: unknown = null
            return then(forEachItem(f, list, bind, body, (i, v) => { if (v) { found = list[i]; return true } return false }), () => finish(found))
          }
          case 'reduce':
            return then(initial!.fn(f), (init) => {
              f.s[accSlot] = init
              return then(forEachItem(f, list, bind, body, (_i, v) => { f.s[accSlot] = v; return false }), () => finish(f.s[accSlot]))
            })
        }
      })
    }
    return { run, async: items.async || bodyAsync || !!initial?.async, cost }
  }
}

/** A memo/cache key's text: the guarded, charged JSON.stringify (a key of shared nested arrays is refused, not serialised). */
function memoKeyText(rt: Run, k: unknown): string {
  return jsonStringify(rt, k) ?? 'undefined'
}

function memoize(c: Compiler, step: StepOf<'memoize'>, scope: Scope): CStepInfo {
  const key = compileValue(c, step.key, scope)
  const b = c.block(step.steps ?? [], scope)
  const body = bodyValue(b.run)
  const store = storeResult(c, step, scope)
  const id = `m${c.nextId()}:`
  const cost = costOf('memoize') + key.cost
  return {
    run: (f) => {
      return then(key.fn(f), (k) => {
        const memoKey = id + memoKeyText(f.rt, k)
        const memo = f.rt.memo
        if (memo.has(memoKey)) return store(f, memo.get(memoKey))
        return then(body(f), (v) => { memo.set(memoKey, v); return store(f, v) })
      })
    },
    async: key.async || b.async,
    cost,
  }
}

function cache(c: Compiler, step: StepOf<'cache'>, scope: Scope): CStepInfo {
  const key = compileValue(c, step.key, scope)
  const ttl = step.ttlMs !== undefined ? compileValue(c, step.ttlMs, scope) : undefined
  const b = c.block(step.steps ?? [], scope)
  const body = bodyValue(b.run)
  const store = storeResult(c, step, scope)
  const cost = costOf('cache') + key.cost + (ttl?.cost ?? 0)
  return {
    run: (f) => {
      const rt = f.rt
      return then(key.fn(f), (k) => then(ttl ? ttl.fn(f) : 3_600_000, async (ttlMs) => {
        const storeCap = rt.config.capabilities.store
        const cacheKey = `cache:${memoKeyText(rt, k)}`
        if (!storeCap || typeof storeCap.get !== 'function' || typeof storeCap.set !== 'function') {
          if (rt.memo.has(cacheKey)) return store(f, rt.memo.get(cacheKey))
          const v = await body(f)
          rt.memo.set(cacheKey, v)
          return store(f, v)
        }
        const hit = copyIn(await rt.awaitAtom(Promise.resolve(storeCap.get(cacheKey))), undefined, 'cache entry') as any
        checkMembrane(hit, rt.config.membraneMaxBytes, 'cache entry')
        if (hit && typeof hit === 'object' && typeof hit.expiresAt === 'number' && hit.expiresAt > rt.now()) return store(f, hit.value)
        const v = await body(f)
        // The store gets a plain copy, never the live guest value (the guest could grow it past the store's limits later).
        const entry = { value: copyOut(v, rt), expiresAt: rt.now() + Number(ttlMs) }
        checkMembrane(entry, rt.config.membraneMaxBytes, 'cache entry')
        await rt.awaitAtom(Promise.resolve(storeCap.set(cacheKey, entry)))
        return store(f, v)
      }))
    },
    async: true,
    cost,
  }
}

export const COLLECTION_STEP_COMPILERS: Record<string, (c: Compiler, step: Step, scope: Scope) => CStepInfo> = {
  map: iterating('map'),
  filter: iterating('filter'),
  find: iterating('find'),
  reduce: iterating('reduce'),
  memoize: (c, step, scope) => memoize(c, step as StepOf<'memoize'>, scope),
  cache: (c, step, scope) => cache(c, step as StepOf<'cache'>, scope),
}
