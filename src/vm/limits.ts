/**
 * Run options: defaults, validation (unknown keys are rejected) and
 * normalisation. Defaults are frozen and documented in the README.
 */
import { vmError } from './errors.ts'
import { didYouMean } from './suggest.ts'
import type { CostFn } from './runtime.ts'

export interface RunLimits {
  /** Maximum helper-call nesting (default 200). */
  maxCallDepth?: number
  /** Maximum nesting of agentRun child runs (default 8). */
  maxAgentDepth?: number
  /** Maximum AST nodes accepted (default 1,000,000). */
  maxAstNodes?: number
  /** Maximum AST nesting depth accepted (default 1,000). */
  maxAstDepth?: number
}

export interface RunOptions {
  /** Fuel budget (default 1000). */
  fuel?: number
  /** Wall-clock limit in ms (default: fuel × 10 ms). */
  timeoutMs?: number
  /** Cancels the run (and any waiting capability) when aborted. */
  signal?: AbortSignal
  /**
   * Stops the run as ABORTED as soon as element 0 is not 0. Meant to be an
   * `Int32Array` over a `SharedArrayBuffer`, so another thread can stop a run
   * that holds this one (`Atomics.store(flag, 0, 1)`). Checked at the same
   * ticks as the deadline; the VM never writes to it.
   */
  interrupt?: Int32Array
  /** Who the run acts for: procedures it stores count against this tenant's share of the procedure store (and only it may release them). */
  tenant?: string
  /** Host-provided I/O: fetch, store, llm, agent, console, ... */
  capabilities?: Record<string, unknown>
  /** Read-only request context for atoms (never visible to guest code). */
  context?: Record<string, unknown>
  /** Per-run atom costs: a number of fuel, or `(input, ctx) => number`. */
  costOverrides?: Record<string, number | CostFn>
  /** Maximum number of calls per atom in this run (with `quotaUsed`: across every run sharing that ledger). */
  quotas?: Record<string, number>
  /**
   * A ledger of atom calls shared across runs: `{ op: calls }`, read and written
   * by the VM at every atom call (created entries included), so several runs
   * given the same object draw on one `quotas` allowance.
   */
  quotaUsed?: Record<string, number>
  /** Per-atom time limits in ms for this run, replacing the atoms' own `timeoutMs` (0: only the run's deadline). */
  timeoutOverrides?: Record<string, number>
  /** Ceiling on the size of data crossing the membrane (args, atom inputs and results, the run's result), in bytes of JSON text. */
  membraneMaxBytes?: number
  /** Largest single value (string/array) the guest may build, in bytes (default 64 MiB). */
  maxHeapBytes?: number
  /** Record a trace of every step with its fuel (console output becomes entries too). */
  trace?: boolean
  /** Called with every `console.log/info/warn/error` (and consoleLog atom) line of the guest, as it happens. */
  onLog?: (entry: LogEntry) => void
  limits?: RunLimits
  /** Sources of nondeterminism, injectable for tests and replay. */
  random?: () => number
  now?: () => number
  uuid?: () => string
}

/** The guest's console levels. */
export type LogLevel = 'log' | 'info' | 'warn' | 'error'

/** One line the guest logged (values joined with spaces; non-strings as JSON). */
export interface LogEntry {
  level: LogLevel
  message: string
}

export const DEFAULTS = Object.freeze({
  fuel: 1000,
  msPerFuel: 10,
  maxHeapBytes: 64 * 1024 * 1024,
  maxCallDepth: 200,
  maxAgentDepth: 8,
  maxAstNodes: 1_000_000,
  maxAstDepth: 1000,
})

const KEYS = new Set(['fuel', 'timeoutMs', 'signal', 'interrupt', 'tenant', 'capabilities', 'context', 'costOverrides', 'quotas', 'quotaUsed', 'timeoutOverrides', 'membraneMaxBytes', 'maxHeapBytes', 'trace', 'onLog', 'limits', 'random', 'now', 'uuid'])
const LIMIT_KEYS = new Set(['maxCallDepth', 'maxAgentDepth', 'maxAstNodes', 'maxAstDepth'])

const bad = (message: string) => vmError('OPTIONS_INVALID', message)

function positive(v: unknown, name: string, allowZero = false): number {
  if (typeof v !== 'number' || Number.isNaN(v) || v < 0 || (!allowZero && v === 0)) throw bad(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number`)
  return v
}

function record(v: unknown, name: string): Record<string, any> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(`${name} must be an object`)
  return v as Record<string, any>
}

export interface NormalizedOptions {
  fuel: number
  timeoutMs: number
  signal?: AbortSignal
  interrupt?: Int32Array
  tenant?: string
  capabilities: Record<string, any>
  context: Readonly<Record<string, unknown>>
  costOverrides: Record<string, number | CostFn>
  quotas: Record<string, number>
  /** The shared ledger of atom calls, or null (counts live in the run). */
  quotaUsed: Record<string, number> | null
  timeoutOverrides: Record<string, number>
  /** Infinity when not set. */
  membraneMaxBytes: number
  maxHeapBytes: number
  trace: boolean
  onLog?: (entry: LogEntry) => void
  limits: Required<RunLimits>
  random: () => number
  now: () => number
  uuid: () => string
}

const NONE: Readonly<Record<string, any>> = Object.freeze({})
/** The limits of a run that sets none (shared, frozen: compared by identity). */
export const DEFAULT_LIMITS: Required<RunLimits> = Object.freeze({
  maxCallDepth: DEFAULTS.maxCallDepth,
  maxAgentDepth: DEFAULTS.maxAgentDepth,
  maxAstNodes: DEFAULTS.maxAstNodes,
  maxAstDepth: DEFAULTS.maxAstDepth,
})
const randomUUID = () => globalThis.crypto.randomUUID()

/** The normalised options of the last run given only `fuel` (or nothing): most runs are, and they can share it. */
let fuelOnly: NormalizedOptions | undefined

/** Validate and normalise run options; throws OPTIONS_INVALID. Absent parts share frozen defaults. */
export function normalizeOptions(options: RunOptions | undefined): NormalizedOptions {
  const o = options === undefined ? NONE : record(options, 'options')
  let only = true
  for (const k in o) if (k !== 'fuel') only = false
  if (only && fuelOnly?.fuel === (o.fuel ?? DEFAULTS.fuel)) return fuelOnly!
  for (const k of Object.keys(o)) if (!KEYS.has(k)) throw bad(`Unknown run option "${k}"${didYouMean(k, KEYS)}`)
  /** A number option, or its default when not given. */
  const num = (name: keyof RunOptions, dflt: number, allowZero?: boolean): number => (o[name] === undefined ? dflt : positive(o[name], name, allowZero))
  const fuel = num('fuel', DEFAULTS.fuel, true)
  const timeoutMs = num('timeoutMs', fuel * DEFAULTS.msPerFuel, true)
  if (o.signal !== undefined && !(o.signal instanceof AbortSignal)) throw bad('signal must be an AbortSignal')
  if (o.interrupt !== undefined && !(o.interrupt instanceof Int32Array && o.interrupt.length > 0)) {
    throw bad('interrupt must be a non-empty Int32Array (e.g. new Int32Array(new SharedArrayBuffer(4)))')
  }
  if (o.tenant !== undefined && (typeof o.tenant !== 'string' || o.tenant.length > 256)) throw bad('tenant must be a string of at most 256 characters')
  const sub = (name: keyof RunOptions): Record<string, any> => (o[name] === undefined ? NONE : record(o[name], name))
  /** A record of non-negative numbers (cost overrides may also be functions). */
  const numbers = (name: keyof RunOptions): Record<string, any> => {
    const r = sub(name)
    for (const [k, v] of Object.entries(r)) if (typeof v !== 'function' || name !== 'costOverrides') positive(v, `${name}.${k}`, true)
    return r
  }
  const costOverrides = numbers('costOverrides')
  const quotas = numbers('quotas')
  const quotaUsed = o.quotaUsed === undefined ? null : numbers('quotaUsed')
  if (quotaUsed !== null && !Object.isExtensible(quotaUsed)) throw bad('quotaUsed must be writable')
  const timeoutOverrides = numbers('timeoutOverrides')
  const given = sub('limits')
  const limits: Required<RunLimits> = given === NONE ? DEFAULT_LIMITS : { ...DEFAULT_LIMITS }
  for (const k of Object.keys(given) as Array<keyof RunLimits>) {
    if (!LIMIT_KEYS.has(k)) throw bad(`Unknown limit "${k}"${didYouMean(k, LIMIT_KEYS)}`)
    if (given[k] !== undefined) limits[k] = positive(given[k], `limits.${k}`, k === 'maxAgentDepth')
  }
  for (const fn of ['onLog', 'random', 'now', 'uuid'] as const) if (o[fn] !== undefined && typeof o[fn] !== 'function') throw bad(`${fn} must be a function`)
  const normalized: NormalizedOptions = {
    fuel,
    timeoutMs,
    signal: o.signal,
    interrupt: o.interrupt,
    tenant: o.tenant,
    capabilities: sub('capabilities'),
    // A frozen shallow copy: guest code never sees it, atoms cannot swap entries; host objects are not frozen.
    context: Object.freeze({ ...sub('context') }),
    costOverrides,
    quotas,
    quotaUsed,
    timeoutOverrides,
    membraneMaxBytes: num('membraneMaxBytes', Infinity),
    maxHeapBytes: num('maxHeapBytes', DEFAULTS.maxHeapBytes),
    trace: o.trace === true,
    onLog: o.onLog,
    limits,
    random: o.random ?? Math.random,
    now: o.now ?? Date.now,
    uuid: o.uuid ?? randomUUID,
  }
  if (only) fuelOnly = Object.freeze(normalized)
  return normalized
}
