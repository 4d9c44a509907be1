/**
 * Invoking an atom: quota, cost (with per-run overrides), input validation,
 * the call itself with a per-call abort signal and timeout, and the membrane
 * for what comes back. The single path for every atom, from a step or from
 * an expression.
 */
import { onAbort } from '../abort-hub.ts'
import type { Loc } from '../../ast/types.ts'
import { VmError, vmError } from '../errors.ts'
import { toUnits } from '../fuel.ts'
import type { Frame, Run } from '../runtime.ts'
import { checkMembrane, copyIn, copyOut } from '../membrane.ts'
import type { AtomContext, AtomDef } from '../atoms/types.ts'
import { isP } from './async.ts'
import { atomSchemaCheck } from '../args-check.ts'

function makeContext(rt: Run, def: AtomDef, signal: AbortSignal): AtomContext {
  return {
    op: def.op,
    capabilities: rt.config.capabilities,
    context: rt.config.context,
    signal,
    get fuelLeft() { return Math.max(0, rt.left) / 1_000_000 },
    charge: (fuel: number) => {
      if (!(fuel >= 0) || !Number.isFinite(fuel)) throw vmError('ATOM_ERROR', `Invalid fuel charge ${fuel}`, { op: def.op })
      rt.charge(toUnits(fuel))
    },
    warn: (message: string) => { if (rt.warnings.length < 10_000) rt.warnings.push(String(message)) },
    random: () => rt.random(),
    now: () => rt.now(),
    uuid: () => rt.uuid(),
    rt,
  } as AtomContext
}

function costOf(rt: Run, def: AtomDef, input: unknown, ctx: AtomContext): number {
  const override = rt.config.costOverrides[def.op]
  const spec = override === undefined ? def.cost : override
  let cost: unknown = spec
  if (typeof spec === 'function') {
    try {
      cost = spec(input, ctx)
    } catch (e) {
      throw vmError('OPTIONS_INVALID', `costOverrides.${def.op} threw: ${(e as Error).message}`, { op: def.op })
    }
  }
  if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0) {
    throw vmError('OPTIONS_INVALID', `Cost of "${def.op}" must be a finite number >= 0, got ${String(cost)}`, { op: def.op })
  }
  return toUnits(cost)
}

function wrapError(e: unknown, def: AtomDef): VmError {
  if (e instanceof VmError) return e
  const err = e as { message?: string; code?: unknown }
  const message = typeof err?.message === 'string' ? err.message : String(e)
  const causeCode = typeof err?.code === 'string' ? err.code : undefined
  const code = def.io ? 'CAPABILITY_ERROR' : 'ATOM_ERROR'
  // A capability's message starts with its code ('FETCH_HOST_DENIED: host ...'): written once, in the brackets.
  const text = causeCode && message.startsWith(`${causeCode}: `) ? message.slice(causeCode.length + 2) : message
  return vmError(code, `${def.op}: ${causeCode ? `[${causeCode}] ` : ''}${text}`, {
    op: def.op,
    value: causeCode ? { code: causeCode, message } : { message },
  })
}

function checkOutput(rt: Run, def: AtomDef, v: unknown): unknown {
  let out = v
  if (!def.trusted) {
    out = copyIn(v, undefined, `result of ${def.op}`, rt)
    checkMembrane(out, rt.config.membraneMaxBytes, `result of ${def.op}`)
  }
  if (def.outputSchema && atomSchemaCheck(def.outputSchema, 'output', def.op)(out) !== undefined) {
    throw vmError('ATOM_OUTPUT_INVALID', `${def.op} returned a value that does not match its output schema`, { op: def.op })
  }
  return out
}

export function invokeAtom(f: Frame, def: AtomDef, input: Record<string, unknown>, loc?: Loc): unknown {
  const rt = f.rt
  try {
    rt.countCall(def.op)
    // Host (non-core) atoms get a plain-data copy: the host never holds a live guest object.
    // Charged per element and property as it is copied: the guest pays for what it hands over.
    if (!def.trusted) {
      input = copyOut(input, rt) as Record<string, unknown>
      checkMembrane(input, rt.config.membraneMaxBytes, `input of ${def.op}`)
    }
    if (def.inputSchema && atomSchemaCheck(def.inputSchema, 'input', def.op)(input) !== undefined) {
      throw vmError('ATOM_INPUT_INVALID', `Input of ${def.op} does not match its schema: ${JSON.stringify(input).slice(0, 200)}`, { op: def.op })
    }
    if (def.sync && def.trusted) {
      const ctx = makeContext(rt, def, rt.controller.signal)
      rt.charge(costOf(rt, def, input, ctx))
      return def.fn(input, ctx)
    }
    if (f.cancel?.aborted || rt.stopped) throw rt.stopped ?? vmError('ABORTED', 'Cancelled: a parallel branch failed')
    const call = new AbortController()
    const ctx = makeContext(rt, def, call.signal)
    rt.charge(costOf(rt, def, input, ctx))
    const cancel = () => call.abort(rt.stopped ?? vmError('ABORTED'))
    // One listener per signal however many calls wait (a fan-out of 11+ calls tripped MaxListenersExceededWarning).
    const offRun = onAbort(rt.controller.signal, cancel)
    const offGroup = f.cancel ? onAbort(f.cancel, cancel) : undefined
    const cleanup = () => {
      offRun()
      offGroup?.()
    }
    let out: unknown
    try {
      out = def.fn(input, ctx)
    } catch (e) {
      cleanup()
      throw wrapError(e, def)
    }
    if (!isP(out) && !(out && typeof (out as any).then === 'function')) {
      cleanup()
      return checkOutput(rt, def, out)
    }
    const override = rt.config.timeoutOverrides[def.op]
    const waiting = rt.awaitAtom(Promise.resolve(out), override === undefined ? def.timeoutMs : override, call, f.cancel)
    return waiting.then(
      (v) => { cleanup(); return checkOutput(rt, def, v) },
      (e) => { cleanup(); call.abort(e); throw wrapError(e, def) },
    )
  } catch (e) {
    if (e instanceof VmError && loc && !e.loc) e.loc = loc
    throw e
  }
}
