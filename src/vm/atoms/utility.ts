/** Utility atoms: randomness, ids, hashing and logging (nondeterminism via the run's choke point). */
import { vmError } from '../errors.ts'
import type { AtomDef } from './types.ts'
import { coreAtom, runOf } from './define.ts'
import { atomPart } from './part-hook.ts'
import { jsonStringify, jsonText } from '../builtins/json.ts'

const pure = { sync: true, trusted: true }

export const UTILITY_ATOMS: AtomDef[] = [
  coreAtom('random', ({ min, max }, ctx) => {
    const r = ctx.random()
    if (min === undefined && max === undefined) return r
    const lo = Math.ceil(Number(min ?? 0)), hi = Math.floor(Number(max ?? 1))
    if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi < lo) throw vmError('RANGE_ERROR', 'random needs min <= max', { op: 'random' })
    return lo + Math.floor(r * (hi - lo + 1))
  }, pure),
  coreAtom('uuid', (_input, ctx) => ctx.uuid(), pure),
  coreAtom('hash', ({ value }, ctx) => {
    const rt = runOf(ctx)
    const text = typeof value === 'string' ? value : jsonStringify(rt, value) ?? 'undefined'
    rt.chargeString(text)
    return atomPart<(text: string) => string>('hash', 'hash')(text)
  }, pure),
  coreAtom('consoleLog', ({ message }, ctx) => { runOf(ctx).log('log', [jsonText(runOf(ctx), message)]); return null }, pure),
  coreAtom('consoleWarn', ({ message }, ctx) => { runOf(ctx).log('warn', [jsonText(runOf(ctx), message)]); return null }, pure),
  coreAtom('consoleError', ({ message }, ctx) => { runOf(ctx).log('error', [jsonText(runOf(ctx), message)]); return null }, pure),
]
