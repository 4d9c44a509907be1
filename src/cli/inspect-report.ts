/**
 * `ajsc inspect --json`: what the inspector would show, as the one JSON
 * report (io.ts) instead of a page: each run and workflow with its state,
 * result or error and what it cost, newest first, for scripts (`jq
 * '.items[] | select(.state == "waiting")'`). The bulk the page draws
 * (a run's trace, a workflow's journal, the source) is counted, not copied:
 * `ajsc run --json --trace` and `ajsc workflow show --json` hold it.
 */
import type { InspectData, InspectItem } from './commands/inspect.ts'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The error of an item as reports write one: code, message, hint and location when it has them. */
function errorOf(e: unknown): Record<string, unknown> | undefined {
  if (!isObject(e)) return e === undefined ? undefined : { message: String(e) }
  const pick = ['code', 'message', 'hint', 'location'].flatMap((k) => (e[k] !== undefined ? [[k, e[k]]] : []))
  return Object.fromEntries(pick)
}

export function itemReport(item: InspectItem): Record<string, unknown> {
  const base = { kind: item.kind, id: item.id, state: item.state, ...(item.label !== undefined ? { label: item.label } : {}), ...(item.at !== undefined ? { at: new Date(item.at).toISOString() } : {}) }
  if (item.kind === 'run') {
    const r = isObject(item.result) ? item.result : {}
    const error = errorOf(r['error'])
    return {
      ...base,
      result: r['result'] ?? null,
      ...(typeof r['fuelUsed'] === 'number' ? { fuelUsed: r['fuelUsed'] } : {}),
      ...(error ? { error } : {}),
      ...(Array.isArray(r['trace']) ? { traceSteps: r['trace'].length } : {}),
    }
  }
  const journal = item.journal ?? []
  const error = errorOf(item.error)
  return {
    ...base,
    ...(item.result !== undefined ? { result: item.result } : {}),
    ...(error ? { error } : {}),
    requests: item.requests ?? [],
    journalEntries: journal.length,
    budget: item.budget ?? null,
    budgetSpent: journal.at(-1)?.['budgetSpent'] ?? 0,
  }
}

export const inspectReport = (data: InspectData): Record<string, unknown> => ({ items: data.items.map(itemReport) })
