/**
 * Per-run state: the fuel meter, the deadline, cancellation, capabilities,
 * the trace, and the one choke point for nondeterminism. A `Run` lives for
 * one `vm.run` call; compiled programs are shared and stateless.
 */
import { onAbort } from './abort-hub.ts'
import { vmError, VmError } from './errors.ts'
import { CHAR_COST, SLOT_COST, fromUnits } from './fuel.ts'
import type { TraceEntry } from './result.ts'
import type { VmHost } from './agent-vm.ts'
import type { LogLevel, NormalizedOptions } from './limits.ts'
import { MAX_TRACE } from './compile/trace.ts'

/** What every compiled closure sees: the slots of the current function call. */
export class Frame {
  /** Return value of the function (valid when a step completes with RETURN). */
  ret: unknown = undefined
  /** Label of a pending labelled break/continue. */
  label: string | undefined = undefined
  constructor(
    public readonly s: unknown[],
    public readonly rt: Run,
    /** Set on the forks of a `parallel` step: aborted when a sibling branch fails. */
    public readonly cancel: AbortSignal | null = null,
  ) {}
}

/** A compiled program's helpers as library functions call them back (Run.callHelper). */
export interface ProgramHelpers {
  call(rt: Run, name: string, args: unknown[], keep?: HelperFrame): unknown
  waits(name: string): boolean
}

/** A helper's variables kept by a library between calls (Run.callHelper's `keep`); the VM fills `slots`. */
export interface HelperFrame { slots?: unknown[] }

/**
 * What a library hands to `forOf` to be iterated lazily (a Python generator): the loop calls
 * `[PULL]()` before each iteration and ends when it returns `PULL_DONE`. Registered symbols, so a
 * library bundled apart from the VM (its own copy of this module) still meets the same ones.
 */
export const PULL: unique symbol = Symbol.for('ajs-lang.pull') as never
export const PULL_DONE: unique symbol = Symbol.for('ajs-lang.pullDone') as never
export interface PullSource { [PULL](): unknown }

/** Step completion codes. */
export const NORMAL = 0
export const BREAK = 1
export const CONTINUE = 2
export const RETURN = 3
export type Completion = number

export type CostFn = (input: any, ctx: any) => number

/**
 * A run's settings from its normalised options: one object per options object and VM, shared by
 * every run made with them (what differs per run is an argument of Run's constructor).
 */
export interface RunConfig extends Pick<NormalizedOptions,
  'signal' | 'interrupt' | 'capabilities' | 'context' | 'costOverrides' | 'quotas' | 'quotaUsed' | 'timeoutOverrides' | 'membraneMaxBytes' | 'maxHeapBytes' | 'trace' | 'onLog' | 'random' | 'now' | 'uuid'> {
  fuelUnits: number
  maxCallDepth: number
  maxAgentDepth: number
  host: VmHost
  /** The normalised options (child runs of agentRun inherit them). */
  options: NormalizedOptions
}

/**
 * Fuel leases of a child run: 1/64 of what its parent has left, at least 0.1
 * fuel. Small enough that concurrent siblings hold little unspent fuel when
 * the meter runs dry; large enough that a tight loop refills rarely.
 */
const LEASE_MIN_UNITS = 100_000
const LEASE_DIVISOR = 64

const TICK_MASK = 1023
/** Sizes past which building one value takes long enough to check the deadline right after it. */
const LONG_CALL_ITEMS = 1 << 16
const LONG_CALL_CHARS = 1 << 20
/**
 * A single charge this large (0.04 fuel: ~65,000 slots' worth) pays for work that takes a while:
 * the clock is read right after it, before the work is done (issue 23, class 4).
 */
export const LONG_CHARGE_UNITS = 1 << 22

/**
 * A synchronous run that has held the thread this long lets the event loop
 * turn (at a loop iteration that can suspend), so host timers, an abort of
 * its signal and other work get their turn. Checked at the deadline ticks.
 */
export const SLICE_MS = 10

/**
 * Call `resume` on a later macrotask (after due timers and I/O), not a
 * microtask. Node and Bun: setImmediate. Browsers: a MessageChannel (made on
 * first use), since nested setTimeout(0) is clamped to 4 ms there.
 */
function nextTurn(resume: () => void): void {
  if (typeof setImmediate === 'function') setImmediate(resume)
  else if (typeof MessageChannel === 'function') (channelTurn ??= makeChannelTurn())(resume)
  else setTimeout(resume, 0)
}
let channelTurn: ((resume: () => void) => void) | undefined
function makeChannelTurn(): (resume: () => void) => void {
  const waiting: Array<() => void> = []
  const channel = new MessageChannel()
  channel.port1.onmessage = () => waiting.shift()?.()
  return (resume) => {
    waiting.push(resume)
    channel.port2.postMessage(null)
  }
}

const quotaExceeded = (op: string, quota: number) => vmError('QUOTA_EXCEEDED', `Quota for "${op}" exceeded (${quota} calls)`, { op })

/** Abort reason once a run is over (shared: creating an Error per run is costly). */
const RUN_ENDED = Object.freeze({ code: 'ABORTED', message: 'The run has ended' })

export class Run {
  /**
   * Micro-fuel left. Initialised here as a double (-0), not declared bare: a bare field is
   * defined as undefined first (ES2022 class fields), its representation is then tagged and every
   * `left -= cost` above the Smi range (fuel 1e9 is 1e15 units) would allocate a heap number.
   */
  left = -0
  readonly budget: number
  readonly deadline: number
  ticks = 0
  depth = 0
  /** When the current time slice began (see SLICE_MS). */
  sliceStart: number
  readonly trace: TraceEntry[] | null
  readonly warnings: string[] = []
  private callCounts: Map<string, number> | null = null
  private memoMap: Map<string, unknown> | null = null
  /** Per-run memo of `memoize` / store-less `cache` (created on first use). */
  get memo(): Map<string, unknown> {
    return (this.memoMap ??= new Map())
  }
  private ctl: AbortController | null = null
  /**
   * Aborted on timeout, on the host's signal, or when the run ends; atoms'
   * signals hang off it. Created on first use: a run that never waits for an
   * atom never pays for it.
   */
  get controller(): AbortController {
    return (this.ctl ??= new AbortController())
  }

  /** End-of-run cleanup: cancel anything still waiting (no-op if nothing ever waited). */
  end(): void {
    if (this.ctl && !this.ctl.signal.aborted) this.ctl.abort(RUN_ENDED)
  }
  /** Set once the run is over (fatal error or completion); waiting atoms are cancelled. */
  stopped: VmError | null = null
  /** Live-heap estimate of values built by the guest, in bytes (see limits docs). */
  readonly maxHeapBytes: number
  readonly maxStringLength: number

  /** Units taken from `meter` so far. */
  private leased = 0
  /** The running program's helpers, for library functions that call back into it (set when the program starts). */
  program: ProgramHelpers | null = null

  /**
   * `args`: the run's input; `agentDepth`: how many agentRun levels above it; `deadline` and
   * `sliceStart` (Date.now() when the run started); `meter`: for an agentRun child, the parent's
   * run: children (also concurrent ones in `parallel`) draw fuel from this one meter in leases, so
   * together they can never spend more than the parent's budget.
   */
  constructor(readonly config: RunConfig, readonly args: unknown, readonly agentDepth: number, deadline: number, sliceStart: number, private readonly meter?: Run) {
    this.budget = meter?.budget ?? config.fuelUnits
    this.left = meter ? 0 : this.budget
    this.deadline = deadline
    this.sliceStart = sliceStart
    this.trace = config.trace ? [] : null
    this.maxStringLength = Math.floor((this.maxHeapBytes = config.maxHeapBytes) / 2)
  }

  /**
   * Call the helper function `name` of the running program with `args` and return its value, at
   * once: how a library function calls back into the program (a Python generator's next step). It
   * is metered, depth-counted and located like any call. A helper that may wait for an atom cannot
   * be called this way (`HELPER_WAITS`; ask `helperWaits` first). With `keep` (the same object on
   * every call), the helper's variables live on between calls: the first call binds `args`, each
   * later one runs the helper's body again on the variables as the last one left them (how a Python
   * generator resumes: its body decides where to go on from).
   */
  callHelper(name: string, args: unknown[], keep?: HelperFrame): unknown {
    // Library functions run inside a program's run, which set `program` first; a library that kept
    // its Run past that gets a located VM error, not a host TypeError.
    if (!this.program) throw vmError('UNKNOWN_FUNCTION', `Unknown function "${name}": no program is running`)
    return this.program.call(this, name, args, keep)
  }

  /** Whether the helper `name` of the running program may wait for an atom (then callHelper refuses it). */
  helperWaits(name: string): boolean {
    return this.program?.waits(name) ?? false
  }

  get fuelUsedUnits(): number {
    if (this.meter) return Math.max(0, Math.min(this.leased, this.leased - this.left))
    return Math.min(this.budget, this.budget - this.left)
  }

  get fuelUsed(): number {
    return fromUnits(this.fuelUsedUnits)
  }

  /**
   * The meter went below zero. A child run first leases more from its
   * parent's meter (and returns normally when that covers the charge);
   * otherwise the run stops: fatal and sticky, whatever catches it.
   */
  outOfFuel(): void {
    if (this.meter && !this.stopped) {
      const want = -this.left + Math.max(LEASE_MIN_UNITS, Math.floor(this.meter.left / LEASE_DIVISOR))
      const granted = this.meter.grant(want)
      this.leased += granted
      this.left += granted
      if (this.left >= 0) return
    }
    this.left = Math.min(this.left, -1)
    this.stop(vmError('FUEL_EXHAUSTED', `Out of fuel (budget ${fromUnits(this.budget)})`))
  }

  /** Give up to `units` of this run's fuel to a child (drawing on this run's own parent first if needed). */
  private grant(units: number): number {
    if (this.left < units && this.meter && !this.stopped) {
      const more = this.meter.grant(units - Math.max(0, this.left))
      this.leased += more
      this.left += more
    }
    const g = Math.max(0, Math.min(units, this.left))
    this.left -= g
    return g
  }

  /** A child run is over: its unspent lease goes back to the parent's meter. */
  release(): void {
    if (this.meter && this.left > 0) {
      this.meter.left += this.left
      this.leased -= this.left
      this.left = 0
    }
  }

  charge(units: number): void {
    if ((this.left -= units) < 0) this.outOfFuel()
    if (units >= LONG_CHARGE_UNITS) this.checkTime()
  }

  chargeSlots(n: number): void {
    if (n * 8 > this.maxHeapBytes) this.heapLimit(n * 8)
    if ((this.left -= n * SLOT_COST) < 0) this.outOfFuel()
    if (n >= LONG_CALL_ITEMS) this.checkTime() // a large value took a while to build: look at the clock
  }

  /** Charge for a string the guest just built, and enforce the size ceiling. */
  chargeString(s: string): string {
    const n = s.length
    if (n > this.maxStringLength) this.heapLimit(n * 2)
    if ((this.left -= n * CHAR_COST) < 0) this.outOfFuel()
    if (n >= LONG_CALL_CHARS) this.checkTime()
    return s
  }

  /** A value over `maxHeapBytes` was about to be built: the run stops (fatal and sticky, whatever catches it). */
  heapLimit(bytes: number): never {
    this.stop(vmError('HEAP_LIMIT', `A value of ~${bytes} bytes exceeds maxHeapBytes (${this.maxHeapBytes})`))
  }

  /** Called on every loop iteration and function call: cheap most of the time. */
  tick(): void {
    if ((++this.ticks & TICK_MASK) === 0) this.checkTime()
  }

  /**
   * Every TICK_MASK + 1 ticks: stop on abort, interrupt or deadline. Returns
   * true when the current time slice is used up, so a loop that can suspend
   * should `pause()`; callers that cannot suspend ignore it.
   */
  checkTime(): boolean {
    if (this.stopped) throw this.stopped
    const config = this.config
    if (config.signal?.aborted) this.stop(vmError('ABORTED'))
    if (config.interrupt !== undefined && Atomics.load(config.interrupt, 0) !== 0) this.stop(interrupted())
    const now = Date.now()
    if (now > this.deadline) this.stop(vmError('TIMEOUT', `The run exceeded its time limit`))
    return now - this.sliceStart >= SLICE_MS
  }

  /** Let the event loop turn, then start a new slice (rejects if the run was stopped meanwhile). */
  pause(): Promise<void> {
    return new Promise<void>(nextTurn).then(() => {
      this.sliceStart = Date.now()
      this.checkTime()
    })
  }

  /** End the run with a fatal error: cancels whatever is waiting, then throws it. */
  stop(err: VmError): never {
    if (!this.stopped) {
      this.stopped = err
      this.ctl?.abort(err)
    }
    throw this.stopped
  }

  enter(): void {
    if (++this.depth > this.config.maxCallDepth) {
      this.depth--
      throw vmError('STACK_OVERFLOW', `Maximum call depth (${this.config.maxCallDepth}) exceeded`)
    }
    this.tick()
  }

  leave(): void {
    this.depth--
  }

  /**
   * console.* and the console atoms reach the host: a trace entry (traced
   * runs), the `onLog` option, `capabilities.console[level]`; warnings also
   * land in `RunResult.warnings`.
   */
  log(level: LogLevel, values: unknown[]): void {
    const message = values.map((v) => (typeof v === 'string' ? v : safeText(v))).join(' ')
    this.chargeString(message)
    if (level === 'warn' && this.warnings.length < 10_000) this.warnings.push(message)
    if (this.trace && this.trace.length < MAX_TRACE) {
      this.trace.push({ op: `console.${level}`, message, fuel: 0, fuelTotal: this.fuelUsed, ms: 0 })
    }
    const onLog = this.config.onLog
    if (onLog !== undefined) {
      try { onLog({ level, message }) } catch { /* a failing log sink must not fail the run */ }
    }
    const sink = this.config.capabilities.console?.[level]
    if (typeof sink === 'function') {
      try { sink(message) } catch { /* a failing log sink must not fail the run */ }
    }
  }

  /**
   * Count one call of an atom against `quotas`: in the shared `quotaUsed`
   * ledger when given (every atom call is recorded there), else per run (an
   * in-process agentRun child counts with the run it belongs to). A refused
   * call is not recorded.
   */
  countCall(op: string): void {
    const config = this.config
    const quota = config.quotas[op]
    const ledger = config.quotaUsed
    if (quota === undefined && ledger === null) return
    if (ledger !== null) {
      const used = Object.prototype.hasOwnProperty.call(ledger, op) ? Number(ledger[op]) || 0 : 0
      if (quota !== undefined && used + 1 > quota) throw quotaExceeded(op, quota)
      ledger[op] = used + 1
      return
    }
    if (this.meter) return this.meter.countCall(op)
    const calls = (this.callCounts ??= new Map())
    const n = (calls.get(op) ?? 0) + 1
    if (n > quota!) throw quotaExceeded(op, quota!)
    calls.set(op, n)
  }

  /** Calls of `op` this run may still make under `quotas` (counted where countCall counts them); Infinity when `op` has no quota. */
  callsLeft(op: string): number {
    const quota = this.config.quotas[op]
    if (quota === undefined) return Infinity
    const ledger = this.config.quotaUsed
    const used = ledger !== null
      ? (Object.prototype.hasOwnProperty.call(ledger, op) ? Number(ledger[op]) || 0 : 0)
      : this.meter ? quota - this.meter.callsLeft(op) : this.callCounts?.get(op) ?? 0
    return Math.max(0, quota - used)
  }

  /**
   * Count `n` calls of `op` that are not made here (negative: give them back, never below 0), where
   * countCall counts them, without the quota check: a budget token reserves the calls it hands a
   * sub-run (after callsLeft) and gives back those the sub-run did not make.
   */
  addCalls(op: string, n: number): void {
    if (n === 0) return
    const ledger = this.config.quotaUsed
    if (ledger !== null) {
      const used = Object.prototype.hasOwnProperty.call(ledger, op) ? Number(ledger[op]) || 0 : 0
      ledger[op] = Math.max(0, used + n)
      return
    }
    if (this.config.quotas[op] === undefined) return
    if (this.meter) return this.meter.addCalls(op, n)
    const calls = (this.callCounts ??= new Map())
    calls.set(op, Math.max(0, (calls.get(op) ?? 0) + n))
  }

  /**
   * The one choke point for nondeterminism: random numbers, ids and the clock.
   * (Capability calls go through `awaitAtom`.) A journal can be added here to
   * record and replay runs.
   */
  nondet<T>(_kind: 'random' | 'uuid' | 'now', produce: () => T): T {
    return produce()
  }

  random(): number {
    return this.nondet('random', this.config.random)
  }

  now(): number {
    return this.nondet('now', this.config.now)
  }

  uuid(): string {
    return this.nondet('uuid', this.config.uuid)
  }

  /**
   * Wait for an atom's promise, but give up at once on run timeout/abort, on
   * the atom's own time limit, or when a sibling parallel branch failed. The
   * atom's per-call controller is aborted too, so its work is cancelled, not
   * abandoned.
   */
  awaitAtom<T>(p: Promise<T>, atomTimeoutMs?: number, call?: AbortController, cancel?: AbortSignal | null): Promise<T> {
    const signal = this.controller.signal
    if (this.stopped) return Promise.reject(this.stopped)
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const onStop = () => {
        cleanup()
        reject(this.stopped ?? vmError('ABORTED'))
      }
      const onCancel = () => {
        cleanup()
        reject(vmError('ABORTED', 'Cancelled: a parallel branch failed'))
      }
      // Through the hub: one listener per signal however many atom calls wait at once.
      const offRun = onAbort(signal, onStop)
      const offGroup = cancel ? onAbort(cancel, onCancel) : undefined
      const cleanup = () => {
        offRun()
        offGroup?.()
        if (timer !== undefined) clearTimeout(timer)
      }
      if (atomTimeoutMs !== undefined && atomTimeoutMs > 0 && Number.isFinite(atomTimeoutMs)) {
        timer = setTimeout(() => {
          cleanup()
          const err = vmError('ATOM_TIMEOUT', `Atom exceeded its time limit of ${atomTimeoutMs} ms`)
          call?.abort(err)
          reject(err)
        }, atomTimeoutMs)
      }
      p.then(
        (v) => { cleanup(); if (this.stopped) reject(this.stopped); else resolve(v) },
        (e) => { cleanup(); reject(this.stopped ?? e) },
      )
    })
  }
}

/** The error of a run stopped through the `interrupt` option. */
export function interrupted(): VmError {
  return vmError('ABORTED', 'The run was interrupted by the host (interrupt flag set)')
}

export const isPromise = (v: unknown): v is Promise<unknown> => typeof v === 'object' && v instanceof Promise

function safeText(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v)
  } catch {
    return String(v)
  }
}
