/**
 * The local driver: runs a workflow file to completion in this process,
 * durably. `agent` requests go to the `llm` capability (at most `maxAgents`
 * at once), `workflow` requests run child workflow files (one level), and
 * sleeps use timers. Every run has a directory `<runsDir>/<runId>/` with
 * `run.json` (what was started) and `journal.jsonl` (appended and fsync'ed
 * before the host acts), so `resumeLocalRun` continues after `kill -9`
 * without repeating a completed agent call.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path'
import { defaultMaxAgents, defaultRunsDir } from './defaults.ts'
import type { AtomDef } from '../../vm/atoms/types.ts'
import { setLongTimeout, type LongTimer } from '../../vm/long-timer.ts'
import { answerAgent, type LlmLike } from '../engine/agent-request.ts'
import { mkdirDurable, writeFileAtomic } from '../stores/durable-fs.ts'
import { workflowError } from '../engine/errors.ts'
import type { WorkflowExecution } from '../engine/execution.ts'
import { FileJournalStore } from '../stores/file-store.ts'
import { compileWorkflow } from '../frontend/module.ts'
import type { WorkflowProgram } from '../engine/program.ts'
import { continueWorkflow, resumeWorkflow, retryWorkflow, startWorkflow } from './start.ts'
import type { JournalEntry } from '../engine/journal.ts'
import type { WorkflowTimeouts } from '../engine/timeouts.ts'
import { checkSearch, searchOfJournal, type SearchInfo } from '../engine/search.ts'
import { errResolution, type RunRetryPolicy } from '../engine/retry.ts'
import type { WorkflowCall, WorkflowRequest, WorkflowResolution } from '../engine/types.ts'

export interface LocalDriverOptions {
  /** Root of the run directories (default `.ajs/runs` under the working directory). */
  runsDir?: string
  /** The `llm` capability for agent requests (without it, agent requests fail with a clear error). */
  llm?: LlmLike
  /** Agent requests running at once (default min(16, cores − 2), at least 1). */
  maxAgents?: number
  /** Receives every log / phase call as it happens (parent and children). */
  onCall?: (call: WorkflowCall, runId: string) => void
  /** Host clock (default Date.now). */
  clock?: () => number
  /** Custom atoms (defineAtom results) the workflow and its children may call; journaled (engine/custom-atoms.ts). */
  atoms?: readonly AtomDef[]
  /** The run's retry policy (docs/workflows.md#retries); a resume without it keeps the one the run started with. */
  retry?: RunRetryPolicy
}

export interface LocalRunStart extends LocalDriverOptions {
  file: string
  args?: unknown
  /** Budget total in agent calls (each completed agent call spends 1). */
  budget?: number
  runId?: string
  /** The run's deadline and default request timeout (docs/workflows.md#timeouts). */
  timeouts?: WorkflowTimeouts
  /** What the run is listed and found by (`ajsc workflow ls --tag --attr`; docs/workflows.md#listing-and-search). */
  name?: string
  tags?: string[]
  attributes?: Record<string, string | number | boolean>
}

export interface LocalRunOutcome {
  /** The run that ended (the last of its chain when the workflow continued as new). */
  runId: string
  result: unknown
  /** Runs the workflow continued as new into, in order (continueAsNew), when it did. */
  continued?: string[]
}

export { defaultMaxAgents, defaultRunsDir }

/** run.json: what was started, enough to start it again when its journal has no entries. */
interface RunRecord {
  runId: string
  file: string
  createdAt: string
  /** The args and budget total it was started with, and the program's AST hash (absent in run.json files of older versions). */
  args?: unknown
  budget?: number | null
  astHash?: string
  /** The run this one continues (continueAsNew) and its place in the chain. */
  previous?: string
  chain?: number
  /** The name, tags and search attributes it was started with (the journal has their changes). */
  search?: SearchInfo
}

/** A run id: UTC time to the second and 6 random hex digits (`20261124-010203-a1b2c3`). */
export function newRunId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-')
  const rand = [...globalThis.crypto.getRandomValues(new Uint8Array(3))].map((b) => b.toString(16).padStart(2, '0')).join('')
  return `${stamp}-${rand}`
}

/** A counting semaphore: the agent concurrency limit shared by a run and its children. */
class Limiter {
  private active = 0
  private readonly queue: Array<() => void> = []
  constructor(private readonly max: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((r) => this.queue.push(r))
    this.active++
    try { return await fn() } finally {
      this.active--
      this.queue.shift()?.()
    }
  }
}

interface DriveContext {
  runId: string
  store: FileJournalStore
  file: string
  llm?: LlmLike
  limiter: Limiter
  onCall?: (call: WorkflowCall, runId: string) => void
  clock: () => number
  /** Child workflows may not start their own (one nesting level). */
  child: boolean
  atoms: readonly AtomDef[]
  timers: Set<LongTimer>
  retry?: RunRetryPolicy
  /** Wakes the drive loop when a signal or cancel from the inbox was applied. */
  nudge?: () => void
}

/** What `ajsc workflow signal|cancel` leave in a run's inbox (`<run>/inbox/*.json`) for the process driving it. */
export type InboxMessage = { type: 'signal'; id: string; name: string; payload?: unknown } | { type: 'cancel'; reason: string }

/**
 * Leave a signal or a cancellation for a local run: a file in its inbox,
 * written atomically. The process running it applies it within ~100 ms (the
 * signal is journaled, then the file removed); a run that is not running
 * gets it at its next resume. A signal's id makes delivery idempotent.
 */
export function sendToLocalRun(runId: string, message: { type: 'signal'; name: string; payload?: unknown; id?: string } | { type: 'cancel'; reason?: string }, runsDir = defaultRunsDir(process.cwd())): string {
  const store = new FileJournalStore(runsDir)
  const record = readRunRecord(store, runId)
  const rand = [...globalThis.crypto.getRandomValues(new Uint8Array(4))].map((b) => b.toString(16).padStart(2, '0')).join('')
  const id = message.type === 'signal' ? message.id ?? `sig-${Date.now().toString(36)}-${rand}` : `cancel-${rand}`
  const body: InboxMessage = message.type === 'signal'
    ? { type: 'signal', id, name: message.name, ...(message.payload !== undefined ? { payload: message.payload } : {}) }
    : { type: 'cancel', reason: message.reason ?? 'cancelled' }
  const dir = join(store.dir(record.runId), 'inbox')
  mkdirDurable(dir)
  writeFileAtomic(join(dir, `${Date.now().toString().padStart(15, '0')}-${rand}.json`), JSON.stringify(body))
  return id
}

/** Apply the inbox's messages to the execution (journaled first), then remove them. */
async function drainInbox(exec: WorkflowExecution, ctx: DriveContext): Promise<void> {
  const dir = join(ctx.store.dir(ctx.runId), 'inbox')
  if (!existsSync(dir)) return
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
  if (files.length === 0 || exec.state !== 'running') return
  for (const f of files) {
    let m: InboxMessage
    try { m = JSON.parse(readFileSync(join(dir, f), 'utf8')) as InboxMessage } catch { continue }
    try {
      if (m.type === 'signal') exec.signal(m.name, m.payload, m.id)
      else exec.cancel(m.reason)
    } catch { /* ended meanwhile, or a bad message: dropped */ }
  }
  await exec.settled() // journaled (and fsynced) before the files go
  for (const f of files) rmSync(join(dir, f), { force: true })
  ctx.nudge?.()
}



const message = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** Whether `file` (symlinks resolved when it exists) lies inside `dir`. */
function insideDir(file: string, dir: string): boolean {
  const real = (p: string) => { try { return realpathSync(p) } catch { return resolve(p) } }
  const rel = relative(real(dir), real(file))
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)
}

function childFile(ref: unknown, parentFile: string): string {
  const base = dirname(parentFile)
  if (typeof ref === 'string') {
    const named = extname(ref) ? ref : `${ref}.ajs`
    return isAbsolute(named) ? named : resolve(base, named)
  }
  const path = (ref as { scriptPath: string }).scriptPath
  return isAbsolute(path) ? path : resolve(base, path)
}

async function answer(r: WorkflowRequest, exec: WorkflowExecution, ctx: DriveContext): Promise<WorkflowResolution> {
  switch (r.type) {
    case 'sleep':
      await new Promise<void>((res) => {
        // A guest's duration: clamped and re-armed (a 30-day sleep neither wakes at once nor spins).
        const t = setLongTimeout(() => { ctx.timers.delete(t); res() }, r.durationMs)
        ctx.timers.add(t)
      })
      return 'OkUndefined'
    case 'agent': {
      const llm = ctx.llm
      if (!llm) return { Err: { message: 'agent(): no model endpoint: pass --llm <url> (and --model <name>)', code: 'LLM_MISSING' } }
      const { total, spent } = exec.budget
      if (total !== null && spent >= total) return { Err: { message: `agent(): budget exhausted (${spent} of ${total} agent calls)`, code: 'BUDGET_EXHAUSTED' } }
      const signal = exec.requestSignal(r.id)
      const value = await ctx.limiter.run(() => answerAgent(llm, r.prompt, r.options, signal))
      const now = exec.budget
      return { OkWithBudget: { value, budget: { total: now.total, spent: now.spent + 1 } } }
    }
    case 'workflow': {
      if (ctx.child) return { Err: { message: 'workflow(): a child workflow cannot start another one (the local driver runs one nesting level)' } }
      const file = childFile(r.ref, ctx.file)
      // One rule for every child reference: it stays inside the parent's directory (no `..`, no absolute path elsewhere, no symlink out).
      if (!insideDir(file, dirname(ctx.file))) return { Err: { message: `workflow(): the child workflow ${JSON.stringify(String(typeof r.ref === 'string' ? r.ref : (r.ref as { scriptPath?: unknown })?.scriptPath).slice(0, 200))} is outside the workflow's directory; keep child workflows next to (or below) the parent`, code: 'WORKFLOW_REF_OUTSIDE' } }
      const childId = `${ctx.runId}/children/${r.id}`
      const journal = ctx.store.read(childId)
      const program = compileWorkflow(readFileSync(file, 'utf8'), { sourceName: file, atoms: ctx.atoms })
      const common = { store: ctx.store, executionId: childId, clock: ctx.clock, atoms: ctx.atoms, ...(ctx.retry ? { retry: ctx.retry } : {}) }
      const child = journal.length > 0
        ? await resumeWorkflow(program, journal, common)
        : startWorkflow(program, { ...common, args: r.args ?? {}, budget: exec.budget })
      try {
        const startSpent = journal.length > 0 && journal[0]!.t === 'start' ? journal[0]!.budget.spent : exec.budget.spent
        const value = await drive(child, { ...ctx, runId: childId, file, child: true })
        // What the child spent counts for the parent (children may run concurrently: add the difference).
        const now = exec.budget
        return { OkWithBudget: { value, budget: { total: now.total, spent: now.spent + Math.max(0, child.budget.spent - startSpent) } } }
      } finally {
        child.dispose()
      }
    }
  }
}

/** Poll to completion, running requests concurrently; resolves to the result (rejects with WorkflowError). */
async function drive(exec: WorkflowExecution, ctx: DriveContext): Promise<unknown> {
  let inflight = 0
  let signalled = false
  let wake: (() => void) | null = null
  const settled = () => { signalled = true; wake?.() }
  ctx.nudge = settled
  for (;;) {
    const p = await exec.poll()
    if (p === 'Pending') {
      // Nothing in flight: the workflow waits for a signal (from the inbox) or was told to wait for nothing.
      if (inflight === 0 && ctx.child) throw workflowError('WORKFLOW_FAILED', 'The child workflow waits for a signal; a child of the local driver takes none')
      if (!signalled) await new Promise<void>((r) => { wake = r })
      wake = null
      signalled = false
      continue
    }
    if ('Call' in p) { ctx.onCall?.(p.Call, ctx.runId); continue }
    if ('Complete' in p) return p.Complete.result
    for (const r of exec.takePendingRequests()) {
      inflight++
      answer(r, exec, ctx)
        .catch((e): WorkflowResolution => errResolution(e))
        .then((res) => { try { exec.resolveRequest(r.id, res) } catch { /* the execution ended meanwhile */ } })
        .finally(() => { inflight--; settled() })
    }
  }
}

function contextFor(runId: string, file: string, store: FileJournalStore, o: LocalDriverOptions): DriveContext {
  const maxAgents = o.maxAgents ?? defaultMaxAgents()
  if (!Number.isSafeInteger(maxAgents) || maxAgents < 1) throw workflowError('WORKFLOW_OPTIONS_INVALID', 'maxAgents must be an integer >= 1')
  return {
    runId, store, file, llm: o.llm, limiter: new Limiter(maxAgents), onCall: o.onCall,
    clock: o.clock ?? Date.now, child: false, timers: new Set(), atoms: o.atoms ?? [], ...(o.retry ? { retry: o.retry } : {}),
  }
}

async function finish(exec: WorkflowExecution, ctx: DriveContext, program: WorkflowProgram, options: LocalDriverOptions): Promise<LocalRunOutcome> {
  const outcome = await finishOne(exec, ctx)
  return exec.continuedAsNew ? continueLocalRun(ctx, program, options) : outcome
}

/**
 * The next run of a chain (the run ended with continueAsNew): a run directory of its own,
 * `<first run id>.c<n>`, whose run.json and start entry name the previous run. Found again
 * (resumed) when a crash came after it was created.
 */
async function continueLocalRun(prev: DriveContext, program: WorkflowProgram, options: LocalDriverOptions): Promise<LocalRunOutcome> {
  const { store } = prev
  const journal = store.read(prev.runId)
  const start = journal[0] as Extract<JournalEntry, { t: 'start' }>
  const chain = (start.chain ?? 0) + 1
  const runId = `${prev.runId.replace(/\.c\d+$/, '')}.c${chain}`
  prev.onCall?.({ type: 'log', values: [`continued as new: run ${runId}`] }, prev.runId)
  let out: LocalRunOutcome
  if (existsSync(join(store.dir(runId), 'run.json'))) out = await resumeLocalRun(runId, options)
  else {
    const end = journal.findLast((e) => e.t === 'end') as Extract<JournalEntry, { t: 'end' }>
    const record: RunRecord = { runId, file: prev.file, createdAt: new Date().toISOString(), args: end.continueAsNew!.args, budget: start.budget.total, astHash: program.astHash, previous: prev.runId, chain, search: searchOfJournal(journal) }
    mkdirDurable(store.dir(runId))
    writeFileAtomic(join(store.dir(runId), 'run.json'), `${JSON.stringify(record, null, 2)}\n`)
    const ctx = contextFor(runId, prev.file, store, options)
    const exec = continueWorkflow(program, { executionId: prev.runId, journal }, { store, executionId: runId, clock: ctx.clock, atoms: ctx.atoms, ...(ctx.retry ? { retry: ctx.retry } : {}) })
    out = await finish(exec, ctx, program, options)
  }
  return { ...out, continued: [runId, ...(out.continued ?? [])] }
}

async function finishOne(exec: WorkflowExecution, ctx: DriveContext): Promise<LocalRunOutcome> {
  let busy = false
  const tick = () => {
    if (busy) return
    busy = true
    drainInbox(exec, ctx).catch(() => {}).finally(() => { busy = false })
  }
  const inbox = setInterval(tick, 100)
  tick()
  try {
    return { runId: ctx.runId, result: await drive(exec, ctx) }
  } finally {
    clearInterval(inbox)
    for (const t of ctx.timers) t.clear()
    exec.dispose()
  }
}

/**
 * Start a durable local run of a workflow file. The order makes a crash at
 * any point resumable: run.json (with what a restart needs) is durable
 * before the journal exists, and the journal's start entry is durable before
 * the workflow runs (startWorkflow hands it to the store at once).
 */
export async function startLocalRun(options: LocalRunStart): Promise<LocalRunOutcome> {
  const file = resolve(options.file)
  const source = readFileSync(file, 'utf8')
  const program = compileWorkflow(source, { sourceName: file, atoms: options.atoms ?? [] })
  const store = new FileJournalStore(options.runsDir ?? defaultRunsDir(process.cwd()))
  const runId = options.runId ?? newRunId()
  const dir = store.dir(runId)
  if (existsSync(join(dir, 'run.json'))) throw workflowError('WORKFLOW_OPTIONS_INVALID', `Run ${runId} already exists in ${store.root}`)
  const args = options.args ?? {}
  const budget = options.budget ?? null
  const search = checkSearch(options) // refused before the run directory exists
  const record: RunRecord = { runId, file, createdAt: new Date().toISOString(), args, budget, astHash: program.astHash, ...(Object.keys(search).length > 0 ? { search } : {}) }
  mkdirDurable(dir)
  writeFileAtomic(join(dir, 'run.json'), `${JSON.stringify(record, null, 2)}\n`)
  const ctx = contextFor(runId, file, store, options)
  const exec = startWorkflow(program, { args, budget: { total: budget }, store, executionId: runId, clock: ctx.clock, atoms: ctx.atoms, ...(ctx.retry ? { retry: ctx.retry } : {}), ...(options.timeouts ? { timeouts: options.timeouts } : {}), ...search })
  return finish(exec, ctx, program, options)
}

/**
 * Continue a run from its journal (after a crash or `kill -9`), with the file it was started from.
 * A journal without entries (the run stopped before its start entry was durable: nothing ran)
 * starts the run again from run.json, with the same args, budget and program version check.
 */
export async function resumeLocalRun(runId: string, options: LocalDriverOptions & { upgrade?: boolean } = {}): Promise<LocalRunOutcome> {
  const store = new FileJournalStore(options.runsDir ?? defaultRunsDir(process.cwd()))
  const record = readRunRecord(store, runId)
  const program = compileWorkflow(readFileSync(record.file, 'utf8'), { sourceName: record.file, atoms: options.atoms ?? [] })
  const ctx = contextFor(runId, record.file, store, options)
  const journal = store.read(runId)
  const common = { store, executionId: runId, clock: ctx.clock, atoms: ctx.atoms, ...(ctx.retry ? { retry: ctx.retry } : {}) }
  const exec = journal.length > 0 ? await resumeWorkflow(program, journal, { ...common, ...(options.upgrade ? { upgrade: true } : {}) }) : startWorkflow(program, { ...common, ...restartOptions(record, program) })
  return finish(exec, ctx, program, options)
}

/**
 * Retry a failed run from its failed step (`ajsc workflow retry`): the step
 * whose error ended it is asked again with these options (a new `llm`, new
 * atoms, a new retry policy); completed steps are replayed, never repeated.
 */
export async function retryLocalRun(runId: string, options: LocalDriverOptions = {}): Promise<LocalRunOutcome> {
  const store = new FileJournalStore(options.runsDir ?? defaultRunsDir(process.cwd()))
  const record = readRunRecord(store, runId)
  const program = compileWorkflow(readFileSync(record.file, 'utf8'), { sourceName: record.file, atoms: options.atoms ?? [] })
  const ctx = contextFor(runId, record.file, store, options)
  const exec = await retryWorkflow(program, store.read(runId), { store, executionId: runId, clock: ctx.clock, atoms: ctx.atoms, ...(ctx.retry ? { retry: ctx.retry } : {}) })
  return finish(exec, ctx, program, options)
}

/** What startWorkflow needs to run a never-started run again, from its run.json. */
function restartOptions(record: RunRecord, program: WorkflowProgram): { args: unknown; budget: { total: number | null } } & SearchInfo {
  if (!('args' in record) || record.astHash === undefined) {
    throw workflowError('JOURNAL_INVALID',
      `Run ${record.runId} has no journal entries (it stopped before its start entry was written) and its run.json, from an older version, does not record its args`,
      { hint: `Nothing of it ran: start it again with \`ajsc workflow run ${record.file}\` and its --args.` })
  }
  if (record.astHash !== program.astHash) {
    throw workflowError('WORKFLOW_VERSION_MISMATCH',
      `Run ${record.runId} was started with ${record.file} at AST hash ${record.astHash.slice(0, 16)}…; the file now has ${program.astHash.slice(0, 16)}…`,
      { hint: `Restore ${record.file} as it was when the run started (its AST hash is in run.json), or start a new run with \`ajsc workflow run\`.` })
  }
  return { args: record.args, budget: { total: record.budget ?? null }, ...record.search }
}

export function readRunRecord(store: FileJournalStore, runId: string): RunRecord {
  let path: string
  try { path = join(store.dir(runId), 'run.json') } catch { throw workflowError('WORKFLOW_RUN_NOT_FOUND', `No run ${JSON.stringify(runId)} in ${store.root}`) }
  if (!existsSync(path)) throw workflowError('WORKFLOW_RUN_NOT_FOUND', `No run ${JSON.stringify(runId)} in ${store.root}`)
  const text = readFileSync(path, 'utf8')
  try {
    const record = JSON.parse(text) as RunRecord
    if (typeof record.file === 'string' && typeof record.createdAt === 'string') return { ...record, runId }
  } catch { /* reported below */ }
  throw workflowError('JOURNAL_INVALID', `${path}: not a run record (JSON with "file" and "createdAt")`, {
    hint: 'run.json was changed or damaged after the run started (it is written atomically). Start the workflow again with `ajsc workflow run <file>`.',
  })
}

/** A local run's queries: its journal replayed in memory (nothing is asked, nothing written), then what it exposed. */
export async function queryLocalRun(runId: string, name?: string, options: Pick<LocalDriverOptions, 'runsDir' | 'atoms'> = {}): Promise<unknown> {
  const store = new FileJournalStore(options.runsDir ?? defaultRunsDir(process.cwd()))
  const record = readRunRecord(store, runId)
  const program = compileWorkflow(readFileSync(record.file, 'utf8'), { sourceName: record.file, atoms: options.atoms ?? [] })
  const exec = await resumeWorkflow(program, store.read(runId), { atoms: options.atoms ?? [], upgrade: true })
  try { return exec.query(name) } finally { exec.dispose() }
}

/**
 * Would `file` (a new version) continue these runs? Each journal is replayed
 * against it in memory; a run it would break is reported with the
 * JOURNAL_MISMATCH (or other) error. Nothing is written, nothing is asked.
 */
export async function replayLocalRuns(file: string, runIds: readonly string[] | undefined, options: Pick<LocalDriverOptions, 'runsDir' | 'atoms'> = {}): Promise<Array<{ runId: string; ok: boolean; code?: string; message?: string }>> {
  const store = new FileJournalStore(options.runsDir ?? defaultRunsDir(process.cwd()))
  const program = compileWorkflow(readFileSync(resolve(file), 'utf8'), { sourceName: resolve(file), atoms: options.atoms ?? [] })
  const ids = runIds && runIds.length > 0 ? runIds : existsSync(store.root) ? readdirSync(store.root).filter((d) => existsSync(join(store.root, d, 'run.json'))).sort() : []
  const out: Array<{ runId: string; ok: boolean; code?: string; message?: string }> = []
  for (const runId of ids) {
    try {
      const journal = store.read(runId)
      if (journal.length === 0) { out.push({ runId, ok: true }); continue }
      const exec = await resumeWorkflow(program, journal, { atoms: options.atoms ?? [], upgrade: true })
      exec.dispose()
      out.push({ runId, ok: true })
    } catch (e) {
      const err = e as { code?: string; message?: string }
      out.push({ runId, ok: false, code: err.code ?? 'ERROR', message: err.message ?? String(e) })
    }
  }
  return out
}
