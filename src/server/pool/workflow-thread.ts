/**
 * A workflow thread: holds live workflow executions and runs their VMs, so a
 * step's guest code never runs on the server's event loop. The main thread
 * (workflow-threads.ts, remote-execution.ts) sends each workflow's steps to
 * the thread its id hashes to; the execution stays alive here between steps
 * (the main thread keeps a bounded number per thread and disposes of the
 * rest), so a step costs what it journals, not a replay; when another process
 * ran the steps since, the execution replays only what they journaled.
 *
 * The journal is written by the main thread: every answer carries the
 * entries journaled since the last one. A custom atom (or MCP tool) call is
 * preceded by a `sync` of what is buffered, so an atom's outcome is in the
 * store before the next atom runs, as on a single thread. Custom atom
 * modules are imported here (as in the pool's workers); MCP tools are
 * proxies over the host bridge (src/server/pool/bridge.ts).
 *
 * Each execution shares an interrupt flag with the main thread, which sets it
 * when the step's time is up: the VM stops at its next tick (even in a loop
 * that never yields) and the execution fails with TIMEOUT, journaled as its
 * end. A thread that does not answer even then is terminated by the main
 * thread.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { loadHostAtoms } from '../../host/atoms-module.ts'
import type { AtomDef } from '../../vm/atoms/types.ts'
import { VmError, type AgentError } from '../../vm/errors.ts'
import { resumeWorkflow, startWorkflow } from '../../workflows/drivers/start.ts'
import { WorkflowError } from '../../workflows/engine/errors.ts'
import type { WorkflowExecution } from '../../workflows/engine/execution.ts'
import type { JournalEntry, JournalStore } from '../../workflows/engine/journal.ts'
import type { WorkflowProgram } from '../../workflows/engine/program.ts'
import type { WorkflowRequest } from '../../workflows/engine/types.ts'
import { atomsOfTenant } from '../atoms.ts'
import { mcpProxyAtoms } from '../mcp.ts'
import { BudgetTokens } from '../../codemode/budget-token.ts'
import { workflowBudgetAtoms } from '../../codemode/budget-workflow.ts'
import { bridgedSeenTokens } from '../budget.ts'
import { BridgeClient } from './bridge.ts'
import { tenantRuntimes } from './tenant-runtime.ts'
import { INTERRUPTED_TIME, MAX_EXPOSED_BYTES, type Answer, type CallOp, type ExecutionSnapshot, type FromThread, type OpenOp, type ToThread, type WorkflowThreadData } from './workflow-protocol.ts'

const data = workerData as WorkflowThreadData
const port = parentPort!
const bridge = new BridgeClient(data.bridge, (code, message) => (code ? new VmError(code, message) : new Error(message)))

/** The custom atoms, imported once per thread (the host loaded the same modules at start-up). */
const customAtoms: Promise<AtomDef[]> = (data.atomModules ?? []).length === 0
  ? Promise.resolve([])
  : loadHostAtoms(data.atomModules, process.cwd()).then((loaded) => loaded.atoms)
customAtoms.catch(() => { /* reported by the open that needs them */ })

interface Live {
  exec: WorkflowExecution
  interrupt: Int32Array
  /** Entries journaled and not sent to the main thread yet. */
  buffer: JournalEntry[]
}

/** Live executions by workflow id. */
const live = new Map<string, Live>()
/** Programs by AST hash and source name: executions of one program share its compiled closures. */
const programs = new Map<string, WorkflowProgram>()
const MAX_PROGRAMS = 64

/** Journal batches waiting for the main thread to write them (`sync`), by sequence number. */
const syncs = new Map<number, () => void>()
let nextSync = 1

const send = (m: FromThread): void => port.postMessage(m)

/** What is buffered for `id`, written by the main thread before this resolves (a custom atom runs after). */
function sync(id: string): Promise<void> {
  const l = live.get(id)
  if (!l || l.buffer.length === 0) return Promise.resolve()
  const entries = l.buffer.splice(0)
  const seq = nextSync++
  return new Promise((resolve) => {
    syncs.set(seq, resolve)
    send({ t: 'sync', seq, id, entries })
  })
}

/**
 * The deployment's budget tokens (config budgetTokens), one view per tenant: budgetRun's spends go to
 * the host's seen-set, which every thread shares, naming the tenant so a lost verdict is counted as its.
 */
const budgetTokens = new Map<string, BudgetTokens>()
function budgetTokensOf(tenant: string): BudgetTokens {
  let tokens = budgetTokens.get(tenant)
  if (!tokens) budgetTokens.set(tenant, tokens = new BudgetTokens({ ...data.budget!, seen: bridgedSeenTokens((method, args) => bridge.call(tenant, method, args)) }))
  return tokens
}
/** The tenants' VMs, for budgetRun's sub-runs (as the pool's workers run the tenants' runs). */
const runtimeOf = tenantRuntimes(data, bridge)

/**
 * Budget tokens (config budgetTokens): every tenant's workflows mint, settle and run sub-runs under
 * them, journaled by call site (src/codemode/budget-workflow.ts), as the library's workflows do. A
 * sub-run runs on the tenant's VM with its capabilities, here, under the execution's interrupt and
 * heap limit: the step's time limit stops it with the step. A sub-run takes at most that time
 * (limits.timeoutMs), so the lease of the token it spends ends then plus budgetTokens.leaseGraceMs:
 * a workflow resumed on another process after this one died gets BUDGET_TOKEN_LOST then.
 */
function budgetAtomsOf(tenant: string, custom: readonly AtomDef[], op: OpenOp): AtomDef[] {
  if (!data.budget) return []
  const rt = runtimeOf(tenant, custom)
  const runOptions = { capabilities: rt.capabilities, interrupt: op.interrupt, ...(op.maxHeapBytes !== undefined ? { maxHeapBytes: op.maxHeapBytes } : {}) }
  return workflowBudgetAtoms(budgetTokensOf(tenant), { runner: rt.vm, runOptions, maxSubRunMs: data.tenants[tenant]?.timeoutMs, leaseGraceMs: data.budget!.leaseGraceMs })
}

/** The tenant's atoms (custom and MCP, each call preceded by a sync of the journal) and the budget atoms. */
async function atomsOf(op: OpenOp): Promise<AtomDef[]> {
  const custom = await customAtoms
  const mcp = mcpProxyAtoms(data.mcpTools ?? [], (name, input) => bridge.call(op.tenant, 'mcp.call', [name, input]))
  const allowed = atomsOfTenant([...custom, ...mcp], data.tenants[op.tenant]?.atoms)
  // The budget atoms need no sync: they change the run's meter (which a replay rebuilds), and a sub-run is one journaled call.
  return [...allowed.map((def) => ({ ...def, fn: async (input: never, ctx: never) => { await sync(op.id); return def.fn(input, ctx) } }) as AtomDef), ...budgetAtomsOf(op.tenant, custom, op)]
}

function programOf(p: WorkflowProgram): WorkflowProgram {
  const key = `${p.astHash}\0${p.sourceName}`
  const hit = programs.get(key)
  programs.delete(key)
  programs.set(key, hit ?? p)
  if (programs.size > MAX_PROGRAMS) programs.delete(programs.keys().next().value!)
  return hit ?? p
}

function drop(id: string): void {
  live.get(id)?.exec.dispose()
  live.delete(id)
}

async function open(op: OpenOp): Promise<Live> {
  drop(op.id)
  const buffer: JournalEntry[] = []
  const store: JournalStore = {
    append: (_id, entries) => { buffer.push(...entries) },
    read: () => { throw new Error('a workflow thread reads no journal: the main thread sends it') },
  }
  const program = programOf(op.program)
  const common = {
    store, executionId: op.id, sandbox: { fuel: op.fuel, maxHeapBytes: op.maxHeapBytes }, atoms: await atomsOf(op), context: op.context,
    interrupt: op.interrupt,
  }
  const exec = op.journal
    ? await resumeWorkflow(program, op.journal, common)
    : startWorkflow(program, {
      ...common, args: op.start!.args, budget: op.start!.budget,
      ...(op.start!.retry !== undefined ? { retry: op.start!.retry } : {}), ...(op.start!.timeouts !== undefined ? { timeouts: op.start!.timeouts } : {}),
    })
  const l = { exec, buffer, interrupt: op.interrupt }
  live.set(op.id, l) // the main thread bounds how many stay between steps (LiveRuns), and disposes of the rest
  return l
}

function snapshotOf(exec: WorkflowExecution, withExposed: boolean): ExecutionSnapshot {
  return {
    state: exec.state, budget: exec.budget, fuelUsed: exec.fuelUsed, entryCount: exec.entryCount, cancelled: exec.cancelled,
    pending: exec.pendingRequestIds(), continuedAsNew: exec.continuedAsNew, astHash: exec.program.astHash, sourceName: exec.program.sourceName,
    ...(withExposed ? { exposed: exposedOf(exec) } : {}),
  }
}

/** The exposed values a step leaves for queries (bounded). */
function exposedOf(exec: WorkflowExecution): ExecutionSnapshot['exposed'] {
  if (exec.state === 'disposed') return {}
  const exposed = exec.query() as Record<string, unknown>
  if (Object.keys(exposed).length === 0) return {}
  return JSON.stringify(exposed).length <= MAX_EXPOSED_BYTES ? { exposed } : { exposedTooLarge: true }
}

const errorData = (e: unknown): NonNullable<Answer['error']> => {
  if (e instanceof WorkflowError) return { code: e.code, message: e.message, hint: e.hint, ...(e.entry !== undefined ? { entry: e.entry } : {}), ...(e.cause !== undefined ? { cause: e.cause } : {}) }
  const err = e as { code?: unknown; message?: unknown }
  return { code: typeof err?.code === 'string' ? err.code : 'WORKFLOW_FAILED', message: String(err?.message ?? e) }
}

/** What a run stopped by the main thread for time failed with (the VM reports an interrupt as ABORTED). */
function timeoutError(): AgentError {
  return {
    name: 'AgentError', code: 'TIMEOUT',
    message: 'The workflow step ran past the tenant\'s time limit (limits.timeoutMs); its execution was stopped',
    hint: 'Split the work into shorter steps, or have the operator raise "limits.timeoutMs" of this tenant in the serve config.',
  }
}

/**
 * An execution the main thread interrupted for time failed ABORTED (the VM's word for an interrupt): its error and
 * its journal's end entry say TIMEOUT instead, so `error.cause.code` tells it from a cancellation.
 */
function asTimeout(l: Live, out: Answer): void {
  if (Atomics.load(l.interrupt, 0) !== INTERRUPTED_TIME || l.exec.state !== 'failed') return
  const error = timeoutError()
  for (const e of out.entries ?? []) if (e.t === 'end' && e.error?.code === 'ABORTED') e.error = error
  for (const a of [out, out.next]) {
    if (a?.error?.cause?.code === 'ABORTED') a.error = { code: 'WORKFLOW_FAILED', message: `TIMEOUT: ${error.message}`, cause: error }
  }
}

async function answer(op: CallOp): Promise<Answer> {
  if (op.t === 'open') {
    // A new run's start entry, or what a replay journaled (an upgrade, a cancellation delivered), goes with the answer.
    // A replay cannot be halted before resumeWorkflow returns it: the main thread's watchdog bounds it instead.
    await open(op)
    return { n: op.n }
  }
  const l = live.get(op.id)
  if (!l || l.exec.state === 'disposed') return { n: op.n, missing: true }
  if (op.t === 'absorb') {
    // Commands' entries apply as they are; a tail another process's steps wrote is replayed forward (a catch-up).
    const caughtUp = !l.exec.absorb(op.entries)
    if (caughtUp && !await l.exec.catchUp(op.entries)) { drop(op.id); return { n: op.n, absorbed: false } }
    const absorbed = { absorbed: true, ...(caughtUp ? { caughtUp: true as const } : {}) }
    if (!op.poll) return { n: op.n, ...absorbed }
    try {
      return { ...await poll(l, op.n), ...absorbed }
    } catch (e) {
      return { n: op.n, ...absorbed, error: errorData(e) } // the poll's error, reported when the main thread takes the poll
    }
  }
  if (op.t === 'cancel') return { n: op.n, cancelled: l.exec.cancel(op.reason) }
  return poll(l, op.n)
}

/** An agent request someone outside answers (the driver's isExternal in src/server/workflows.ts): the main thread only lists it. */
const waitsOutside = (r: WorkflowRequest): boolean => r.type === 'agent' && (r.options as { external?: unknown } | undefined)?.external === true

/**
 * Poll until something other than a log/phase call: the calls before it, and a Request with every request drained.
 * When every request drained waits outside, the next poll comes with it (`next`): the main thread would ask for it next.
 */
async function poll(l: Live, n: number, onwards = true): Promise<Answer> {
  const calls: NonNullable<Answer['calls']> = []
  for (;;) {
    const p = await l.exec.poll()
    if (typeof p === 'object' && 'Call' in p) { calls.push(p.Call); continue }
    if (!(typeof p === 'object' && 'Request' in p)) return { n, calls, poll: p }
    const out: Answer = { n, calls, poll: p, taken: l.exec.takePendingRequests() }
    if (onwards && out.taken!.every(waitsOutside)) {
      try {
        out.next = await poll(l, n, false)
      } catch (e) {
        out.next = { n, error: errorData(e) }
      }
    }
    return out
  }
}

/** The answer with the entries journaled meanwhile and the execution's snapshot. */
async function handle(op: CallOp): Promise<void> {
  let out: Answer
  try {
    out = await answer(op)
  } catch (e) {
    out = { n: op.n, error: errorData(e) }
    if (op.t === 'open') live.delete(op.id)
  }
  const l = live.get(op.id)
  if (l && !out.missing && out.absorbed !== false) {
    out.entries = l.buffer.splice(0)
    const last = out.next ?? out
    const ends = op.t === 'cancel' || last.error !== undefined || (last.poll !== undefined && !(typeof last.poll === 'object' && 'Request' in last.poll))
    out.snapshot = snapshotOf(l.exec, ends)
    asTimeout(l, out)
  }
  send({ t: 'answer', ...out })
}

port.on('message', (m: ToThread) => {
  switch (m.t) {
    case 'resolve': {
      const l = live.get(m.id)
      try { l?.exec.resolveRequest(m.requestId, m.resolution) } catch { /* the execution ended meanwhile, or the request was cancelled */ }
      return
    }
    case 'dispose':
      drop(m.id)
      return
    case 'synced':
      syncs.get(m.seq)?.()
      syncs.delete(m.seq)
      return
    default:
      void handle(m)
  }
})
