/**
 * Decoding what a host sends (resolutions, budget snapshots) with serde's
 * rules for the seed's types: externally tagged variants, a unit variant as a
 * bare string, `Option` fields that may be `null` or absent, unknown fields
 * ignored. Bad input is a WORKFLOW_RESOLUTION_INVALID error, never a crash.
 */
import { workflowError } from './errors.ts'
import type { BudgetSnapshot, WorkflowResolution } from './types.ts'

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const isU64 = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0

/** `WorkflowBudgetSnapshot`: `spent` required (u64), `total` optional (u64 or null). */
export function decodeBudget(v: unknown, what = 'budget'): BudgetSnapshot {
  if (!isRecord(v)) throw workflowError('WORKFLOW_RESOLUTION_INVALID', `${what} must be an object {"total": n|null, "spent": n}`)
  const total = v['total'] ?? null
  if (total !== null && !isU64(total)) throw workflowError('WORKFLOW_RESOLUTION_INVALID', `${what}.total must be a non-negative integer or null`)
  if (!isU64(v['spent'])) throw workflowError('WORKFLOW_RESOLUTION_INVALID', `${what}.spent must be a non-negative integer`)
  return { total, spent: v['spent'] }
}

/** One `WorkflowRuntimeRequestResolution` from its JSON. */
export function decodeResolution(v: unknown): WorkflowResolution {
  if (v === 'OkUndefined') return 'OkUndefined'
  if (isRecord(v)) {
    const keys = Object.keys(v)
    if (keys.length === 1) {
      const tag = keys[0]!
      const body = v[tag]
      if (tag === 'Ok') return { Ok: body }
      if (tag === 'OkWithBudget' && isRecord(body) && 'value' in body) {
        return { OkWithBudget: { value: body['value'], budget: decodeBudget(body['budget'], 'OkWithBudget.budget') } }
      }
      if (tag === 'Err' && isRecord(body) && typeof body['message'] === 'string') {
        // `code` and `transient` are ours (serde ignores them): what a retry policy decides on.
        const err: { message: string; code?: string; transient?: boolean } = { message: body['message'] }
        if (typeof body['code'] === 'string') err.code = body['code']
        if (body['transient'] === true) err.transient = true
        return { Err: err }
      }
    }
  }
  let shown: string
  try { shown = JSON.stringify(v)?.slice(0, 120) ?? String(v) } catch { shown = String(v) }
  throw workflowError('WORKFLOW_RESOLUTION_INVALID', `Not a resolution: ${shown}`)
}

/** Canonical JSON: object keys sorted, `undefined` members dropped (the normalized input of a step). */
export function canonicalJson(v: unknown): string {
  if (v === undefined) return 'null'
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null'
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`
}
