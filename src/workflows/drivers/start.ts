/**
 * Starting and resuming executions: options checked (unknown keys refused),
 * the program compiled from source when needed, and for a resume the journal
 * checked, its AST hash compared and its replay settled before the
 * execution is handed back.
 */
import type { AtomDef } from '../../vm/atoms/types.ts'
import type { ApprovalPolicy } from '../../codemode/approval.ts'
import { decodeBudget } from '../engine/codec.ts'
import { checkAtomsGiven, customAtomDefs } from '../engine/custom-atoms.ts'
import { workflowError } from '../engine/errors.ts'
import { SANDBOX_DEFAULTS, WorkflowExecution, type WorkflowSandbox } from '../engine/execution.ts'
import { checkJournal, type JournalEntry, type JournalLimits, type JournalStore } from '../engine/journal.ts'
import { compileWorkflow } from '../frontend/module.ts'
import { isWorkflowProgram, type WorkflowProgram } from '../engine/program.ts'
import { newSeed } from '../engine/random.ts'
import { ReplayIndex } from '../engine/replay.ts'
import { checkRetryPolicy, type RunRetryPolicy } from '../engine/retry.ts'
import type { BudgetSnapshot } from '../engine/types.ts'
import { checkTimeouts, type WorkflowTimeouts } from '../engine/timeouts.ts'
import { checkSearch, searchOfJournal } from '../engine/search.ts'

interface CommonOptions {
  /** Name for diagnostics when `program` is source text (default `<workflow>`). */
  sourceName?: string
  sandbox?: WorkflowSandbox
  limits?: JournalLimits
  /** Where the journal is appended (default: kept in memory only; read it with `execution.journal()`). */
  store?: JournalStore
  /** The id the store keeps the journal under (default: a new random id). */
  executionId?: string
  /** Host clock in ms since epoch, for sleep wake times and clock reads (default Date.now). */
  clock?: () => number
  /**
   * The host's custom atoms (defineAtom results) the workflow calls. Each
   * call's value or error is journaled; a replay returns it without calling
   * the atom again (a call that was running at a crash runs again).
   */
  atoms?: readonly AtomDef[]
  /** Read-only host data (auth, tenant, ...) custom atoms read as `ctx.context`; the workflow never sees it and it is not journaled. */
  context?: Record<string, unknown>
  /**
   * Which custom atom calls wait for approval (default: the atoms' `requiresApproval`). Must decide
   * the same on every replay (it sees only the op, the input and the atom).
   */
  approval?: ApprovalPolicy
  /**
   * The run's retry policy: top-level fields for every kind, `agent` / `workflow` / `atom` per kind
   * (docs/workflows.md#retries). Journaled in the start entry; a resume without it keeps the journaled one.
   */
  retry?: RunRetryPolicy
  /**
   * Shared with the host (`new Int32Array(new SharedArrayBuffer(4))`): the host sets [0] to a
   * non-zero value to stop the run, which the VM notices even in a loop that never yields (the run
   * fails ABORTED). A host running the execution in another thread stops it this way.
   */
  interrupt?: Int32Array
}

export interface StartWorkflowOptions extends CommonOptions {
  /** The `args` global (default `{}`). */
  args?: unknown
  /** Initial budget snapshot (default `{ total: null, spent: 0 }`). */
  budget?: { total?: number | null; spent?: number }
  /** Seed of the VM's random source (default: random; journaled either way). */
  seed?: number
  /**
   * `runMs`: the run's deadline after its start (WORKFLOW_TIMEOUT past it); `requestMs`: the default
   * timeout of one attempt of an agent or child-workflow request (a TIMEOUT error, retried by default).
   * Journaled in the start entry, so a resume keeps them (docs/workflows.md#timeouts).
   */
  timeouts?: WorkflowTimeouts
  /** A display name the run is listed and found by (not unique; docs/workflows.md#listing-and-search). */
  name?: string
  /** Tags the run is found by (at most 16; letters, digits and _ . : / -). */
  tags?: string[]
  /**
   * Search attributes (string, number or boolean values; at most 32, 4 KiB as JSON). The workflow
   * changes them with `upsertAttributes({ k: v })`. Journaled in the start entry; a continued run keeps them.
   */
  attributes?: Record<string, string | number | boolean>
}

export interface ResumeWorkflowOptions extends CommonOptions {
  /**
   * Continue the run on this program even though the journal was written by
   * another one (a fix shipped to runs in flight): the journal is replayed
   * against it, and a replay that diverges is JOURNAL_MISMATCH as always. On
   * success an `upgrade` entry pins the run to the new AST hash. Guard the
   * changed code with `patched('id')` so old runs replay the old path.
   */
  upgrade?: boolean
}

const START_KEYS = ['args', 'budget', 'seed', 'sourceName', 'sandbox', 'limits', 'store', 'executionId', 'clock', 'atoms', 'context', 'approval', 'retry', 'timeouts', 'name', 'tags', 'attributes', 'interrupt']
const RESUME_KEYS = ['sourceName', 'sandbox', 'limits', 'store', 'executionId', 'clock', 'atoms', 'context', 'approval', 'retry', 'upgrade', 'interrupt']
const SANDBOX_KEYS = Object.keys(SANDBOX_DEFAULTS)

function checkKeys(o: object, allowed: string[], what: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) throw workflowError('WORKFLOW_OPTIONS_INVALID', `Unknown ${what} option "${k}" (allowed: ${allowed.join(', ')})`)
  }
}

function sandboxOf(s: WorkflowSandbox | undefined): Required<WorkflowSandbox> {
  if (s === undefined) return SANDBOX_DEFAULTS
  checkKeys(s, SANDBOX_KEYS, 'sandbox')
  const out: Required<WorkflowSandbox> = { ...SANDBOX_DEFAULTS }
  for (const [k, v] of Object.entries(s)) {
    if (v === undefined) continue
    if (typeof v !== 'number' || !(v > 0)) throw workflowError('WORKFLOW_OPTIONS_INVALID', `sandbox.${k} must be a positive number`)
    out[k as keyof WorkflowSandbox] = k === 'timeoutMs' ? Math.min(v, SANDBOX_DEFAULTS.timeoutMs) : v
  }
  return out
}

/** The program (compiled against `atoms` when it is source), checked to call only atoms the run was given. */
function programOf(program: string | WorkflowProgram, sourceName: string | undefined, atoms: AtomDef[]): WorkflowProgram {
  let prog: WorkflowProgram
  if (typeof program === 'string') prog = compileWorkflow(program, { sourceName, atoms })
  else if (isWorkflowProgram(program)) prog = program
  else throw workflowError('WORKFLOW_OPTIONS_INVALID', 'program must be workflow source text or the result of compileWorkflow(source)')
  checkAtomsGiven(prog.atoms ?? [], atoms, prog.sourceName)
  return prog
}

/** Only the atoms the program calls go on its VM (an unused one named like a core atom must not replace it). */
const calledAtoms = (prog: WorkflowProgram, atoms: AtomDef[]): AtomDef[] => atoms.filter((a) => (prog.atoms ?? []).includes(a.op))

function newExecutionId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(6))
  return `wf-${Date.now().toString(36)}-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`
}

function clockOf(clock: unknown): () => number {
  if (clock === undefined) return Date.now
  if (typeof clock !== 'function') throw workflowError('WORKFLOW_OPTIONS_INVALID', 'clock must be a function returning ms since epoch')
  return clock as () => number
}

function plainArgs(args: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(args ?? {}))
  } catch (e) {
    throw workflowError('WORKFLOW_OPTIONS_INVALID', `args must be JSON data: ${(e as Error).message}`)
  }
}

/**
 * Start a workflow: `program` is the module's source text or `compileWorkflow(source)`.
 * Returns the execution at once; drive it with poll / takePendingRequests / resolveRequest.
 */
export function startWorkflow(program: string | WorkflowProgram, options: StartWorkflowOptions = {}): WorkflowExecution {
  return startChained(program, options)
}

function startChained(program: string | WorkflowProgram, options: StartWorkflowOptions, previous?: { executionId: string; chain: number }): WorkflowExecution {
  checkKeys(options, START_KEYS, 'startWorkflow')
  const timeouts = checkTimeouts(options.timeouts)
  const search = checkSearch(options)
  const atoms = customAtomDefs(options.atoms)
  const prog = programOf(program, options.sourceName, atoms)
  const budget: BudgetSnapshot = decodeBudget({ total: options.budget?.total ?? null, spent: options.budget?.spent ?? 0 }, 'options.budget')
  if (options.seed !== undefined && !Number.isSafeInteger(options.seed)) throw workflowError('WORKFLOW_OPTIONS_INVALID', 'seed must be an integer')
  return new WorkflowExecution({
    program: prog,
    executionId: options.executionId ?? newExecutionId(),
    args: plainArgs(options.args),
    budget,
    seed: options.seed === undefined ? newSeed() : options.seed >>> 0,
    sandbox: sandboxOf(options.sandbox),
    limits: options.limits,
    store: options.store,
    clock: clockOf(options.clock),
    atoms: calledAtoms(prog, atoms),
    ...(options.context !== undefined ? { context: options.context } : {}),
    ...(options.interrupt !== undefined ? { interrupt: options.interrupt } : {}),
    ...(options.approval !== undefined ? { approval: options.approval } : {}),
    ...retryOf(options.retry),
    ...(timeouts !== undefined ? { timeouts } : {}),
    ...(previous !== undefined ? { previous } : {}),
    ...(Object.keys(search).length > 0 ? { search } : {}),
  })
}

/**
 * The next run of a chain whose run ended with `continueAsNew(args)`: a new
 * execution with a fresh journal (its start entry names the previous run,
 * `previous`, and its place, `chain`), started with those args, the budget
 * the previous run ended with, and its retry policy, timeouts, name, tags and search attributes (as the run left them) unless
 * `options` gives others. The previous journal can then be archived or
 * dropped: each run's journal stays as long as one run.
 */
export function continueWorkflow(
  program: string | WorkflowProgram,
  previous: { executionId: string; journal: readonly JournalEntry[] },
  options: Omit<StartWorkflowOptions, 'args'> = {},
): WorkflowExecution {
  checkJournal(previous.journal)
  const start = previous.journal[0] as Extract<JournalEntry, { t: 'start' }>
  const end = [...previous.journal].reverse().find((e) => e.t === 'end' || e.t === 'retry')
  if (end?.t !== 'end' || end.continueAsNew === undefined) {
    throw workflowError('WORKFLOW_OPTIONS_INVALID', `The run ${previous.executionId} did not end with continueAsNew(args)`, { hint: 'Only a run that called continueAsNew(args) has a next run; resume or retry this one instead.' })
  }
  const budget = end.continueAsNew.budget ?? start.budget
  return startChained(program, {
    ...(start.retry !== undefined ? { retry: start.retry } : {}),
    ...(start.timeouts !== undefined ? { timeouts: start.timeouts } : {}),
    ...searchOfJournal(previous.journal), // the name, tags and attributes as the previous run left them
    budget,
    ...options,
    args: end.continueAsNew.args,
  }, { executionId: previous.executionId, chain: (start.chain ?? 0) + 1 })
}

function retryOf(v: unknown): { retry?: RunRetryPolicy } {
  const retry = checkRetryPolicy(v, 'options.retry', true)
  return retry === undefined ? {} : { retry }
}

/**
 * Resume from a journal: the program must have the AST hash the journal pins
 * (else WORKFLOW_VERSION_MISMATCH). The journal is replayed once, in O(journal):
 * recorded requests are answered from it, log/phase are not emitted again,
 * requests that were in flight are asked again, a sleep waits only what is
 * left, journaled custom atom calls return their outcome without running
 * (new ones run only after the replay is checked). A re-run that takes
 * another path fails with JOURNAL_MISMATCH. New
 * entries go to `store` under `executionId`, which must already hold `journal`.
 */
export async function resumeWorkflow(
  program: string | WorkflowProgram,
  journal: readonly JournalEntry[],
  options: ResumeWorkflowOptions = {},
): Promise<WorkflowExecution> {
  checkKeys(options, RESUME_KEYS, 'resumeWorkflow')
  checkJournal(journal)
  const atoms = customAtomDefs(options.atoms)
  const start = journal[0] as Extract<JournalEntry, { t: 'start' }>
  const prog = programOf(program, options.sourceName ?? start.sourceName, atoms)
  const replay = new ReplayIndex(journal)
  const upgrading = replay.astHash !== prog.astHash
  if (upgrading && options.upgrade === true) replay.relaxed = true
  if (upgrading && options.upgrade !== true) {
    throw workflowError('WORKFLOW_VERSION_MISMATCH',
      `The journal was written by ${start.sourceName} with AST hash ${replay.astHash.slice(0, 16)}…; this program (${prog.sourceName}) has ${prog.astHash.slice(0, 16)}…`,
      { entry: 0, hint: 'Resume with the source that wrote the journal, or ship the change to this run with resumeWorkflow(..., { upgrade: true }) / `ajsc workflow resume --upgrade` (guard changed steps with patched(\'id\'); check stored runs first with `ajsc workflow replay`).' })
  }
  const execution = new WorkflowExecution({
    program: prog,
    executionId: options.executionId ?? newExecutionId(),
    args: start.args,
    budget: decodeBudget(start.budget, 'journal budget'),
    seed: start.seed,
    sandbox: sandboxOf(options.sandbox),
    limits: options.limits,
    store: options.store,
    clock: clockOf(options.clock),
    journal,
    replay,
    atoms: calledAtoms(prog, atoms),
    ...(options.context !== undefined ? { context: options.context } : {}),
    ...(options.interrupt !== undefined ? { interrupt: options.interrupt } : {}),
    ...(options.approval !== undefined ? { approval: options.approval } : {}),
    ...retryOf(options.retry ?? replay.retryPolicy ?? start.retry),
    ...(start.timeouts !== undefined ? { timeouts: checkTimeouts(start.timeouts, 'the journal\'s timeouts') } : {}),
    ...(start.previous !== undefined ? { previous: { executionId: start.previous, chain: start.chain ?? 1 } } : {}),
  })
  await execution.settled()
  const diverged = replay.divergence(prog.sourceName, execution.state === 'complete')
  if (diverged) {
    execution.dispose()
    throw diverged
  }
  if (upgrading) execution.upgraded(prog.astHash)
  execution.replayChecked()
  // A cancellation journaled after the last step (by a host's command) reaches the waits the replay left parked.
  execution.deliverCancel()
  return execution
}

/**
 * Retry a failed run from its failed step: a `retry` entry is appended to the
 * journal (and to `store` under `executionId`) and the run resumes. The step
 * whose error ended the run (the end entry's `step`) is asked again, with
 * whatever the host now answers it with (a new endpoint, new atoms, a new
 * `retry` policy); every completed step is replayed from the journal, never
 * repeated. A failure that was not a step's (a thrown error, fuel) replays
 * to the same failure unless the new options change it (more fuel).
 * A journal that did not fail is refused (WORKFLOW_OPTIONS_INVALID).
 */
export async function retryWorkflow(
  program: string | WorkflowProgram,
  journal: readonly JournalEntry[],
  options: ResumeWorkflowOptions = {},
): Promise<WorkflowExecution> {
  checkJournal(journal)
  const marker = retryEntry(journal, (options.clock ?? Date.now)(), options.retry === undefined ? undefined : checkRetryPolicy(options.retry, 'options.retry', true))
  if (options.store) {
    if (options.executionId === undefined) throw workflowError('WORKFLOW_OPTIONS_INVALID', 'retryWorkflow with a store needs the executionId of the journal')
    await options.store.append(options.executionId, [marker])
  }
  return resumeWorkflow(program, [...journal, marker], options)
}

/** The entry that reopens a failed journal (WORKFLOW_OPTIONS_INVALID when it did not fail). */
export function retryEntry(journal: readonly JournalEntry[], at: number, policy?: RunRetryPolicy): Extract<JournalEntry, { t: 'retry' }> {
  let end: Extract<JournalEntry, { t: 'end' }> | undefined
  for (const e of journal) {
    if (e.t === 'end') end = e
    else if (e.t === 'retry') end = undefined
  }
  if (!end || end.error === undefined) {
    throw workflowError('WORKFLOW_OPTIONS_INVALID', `Only a failed run can be retried; this one ${end ? 'completed' : 'has not ended'}`, {
      hint: end ? 'Start a new run.' : 'Resume it instead (ajsc workflow resume <id>).',
    })
  }
  return { t: 'retry', at, ...(end.step !== undefined ? { step: end.step } : {}), ...(policy !== undefined ? { retry: policy } : {}) }
}
