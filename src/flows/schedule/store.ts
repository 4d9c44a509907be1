/**
 * The Flow Specification's reference `fs` store (§7): one SavedFlow per
 * `{id}.json` file in a directory. `loadFlowStore` reads every `.json` file,
 * checks the id against the spec's pattern and the file name, and works out
 * each enabled flow's schedule from its entry node (§5.1). A file that cannot
 * be scheduled is reported, never fatal for the others.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Cron } from 'croner'
import { FlowError, type FlowProblem } from '../problems.ts'
import { parseSavedFlow } from '../saved-flow/parse.ts'
import { FLOW_ID, type SavedFlow } from '../saved-flow/model.ts'
import { entryNode } from '../saved-flow/walk.ts'

/** When a flow runs: never by itself, every `ms`, or on a cron expression (seconds first, 6 fields). */
export type FlowSchedule =
  | { type: 'manual' }
  | { type: 'every'; ms: number; unit: 'minutes' | 'hours'; interval: number }
  | { type: 'cron'; cron: string }

export interface StoredFlow {
  file: string
  flow: SavedFlow
  schedule: FlowSchedule
}

export interface StoreProblem {
  file: string
  problems: FlowProblem[]
}

export interface LoadedStore {
  /** Enabled flows with a schedule, sorted by id. */
  flows: StoredFlow[]
  /** Disabled flows (`enabled: false`), by id. */
  disabled: string[]
  /** Files that are not schedulable flows, with why. */
  rejected: StoreProblem[]
}

const UNIT_MS = { minutes: 60_000, hours: 3_600_000 } as const

/** The schedule of a flow's entry node, or the problems that prevent one. */
export function scheduleOf(flow: SavedFlow): FlowSchedule | FlowProblem[] {
  const entry = entryNode(flow)
  if (!entry) return [{ rule: 'InvalidSchedule', path: '/flow/nodes', message: `flow "${flow.id}" has no entry node, so it cannot be scheduled` }]
  const at = `/flow/nodes/${flow.flow.nodes.indexOf(entry)}/data`
  const type = entry.data['schedule_type'] ?? 'manual'
  if (type === 'manual') return { type: 'manual' }
  if (type === 'minutes' || type === 'hours') {
    const interval = entry.data['interval']
    if (typeof interval !== 'number' || !Number.isFinite(interval) || interval <= 0) {
      return [{ rule: 'InvalidSchedule', path: `${at}/interval`, message: `schedule_type "${type}" needs a positive number "interval", got ${JSON.stringify(interval)}` }]
    }
    return { type: 'every', ms: interval * UNIT_MS[type], unit: type, interval }
  }
  if (type === 'cron') {
    const expr = entry.data['cron']
    const fields = typeof expr === 'string' ? expr.trim().split(/\s+/) : []
    if (typeof expr !== 'string' || fields.length !== 6) {
      return [{ rule: 'InvalidSchedule', path: `${at}/cron`, message: `schedule_type "cron" needs "cron": six fields, seconds first ("0 */5 * * * *"), got ${JSON.stringify(expr)}` }]
    }
    try {
      new Cron(expr, { paused: true }).stop()
    } catch (e) {
      return [{ rule: 'InvalidSchedule', path: `${at}/cron`, message: `cron ${JSON.stringify(expr)}: ${(e as Error).message}` }]
    }
    return { type: 'cron', cron: expr }
  }
  return [{ rule: 'InvalidSchedule', path: `${at}/schedule_type`, message: `schedule_type ${JSON.stringify(type)} is not manual, minutes, hours or cron` }]
}

/** Read the `{id}.json` files of `dir`. */
export function loadFlowStore(dir: string): LoadedStore {
  const out: LoadedStore = { flows: [], disabled: [], rejected: [] }
  const names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort()
  for (const name of names) {
    const file = join(dir, name)
    let flow: SavedFlow
    try {
      flow = parseSavedFlow(readFileSync(file, 'utf8'), { file })
    } catch (e) {
      if (!(e instanceof FlowError)) throw e
      out.rejected.push({ file, problems: [...e.problems] })
      continue
    }
    const stem = name.slice(0, -'.json'.length)
    if (!FLOW_ID.test(stem) || stem !== flow.id) {
      out.rejected.push({ file, problems: [{ rule: 'InvalidFlowId', path: '/id', message: `the fs store keeps flow "${flow.id}" in "${flow.id}.json", not "${name}"` }] })
      continue
    }
    if (!flow.enabled) { out.disabled.push(flow.id); continue }
    const schedule = scheduleOf(flow)
    if (Array.isArray(schedule)) out.rejected.push({ file, problems: schedule })
    else out.flows.push({ file, flow, schedule })
  }
  return out
}
