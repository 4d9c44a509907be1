/**
 * A pool worker thread: runs guest programs off the server's event loop.
 * Each tenant gets its own AgentVM here (its procedures and agent memory are
 * reached through the host bridge, its fetch hosts and LLM endpoint come
 * from the serve config). Parsed programs are cached by hash, so a program
 * sent again is neither parsed nor compiled again. The server's custom atoms
 * are functions, which cannot be posted to a thread: the worker imports
 * their modules itself, once, when it starts (the host already loaded them,
 * so a broken module failed the start instead).
 */
import { readlinkSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { AgentVM } from '../../full-vm.ts'
import { vmError, VmError } from '../../vm/errors.ts'
import { loadHostAtoms } from '../../host/atoms-module.ts'
import type { AtomDef } from '../../vm/atoms/types.ts'
import type { AjsProgram } from '../../ast/types.ts'
import type { RunResult } from '../../vm/result.ts'
import { BridgeClient } from './bridge.ts'
import { tenantRuntimes, type TenantRuntime } from './tenant-runtime.ts'
import { serveJobs } from './job-loop.ts'
import { MissingProgram, SLOT, SLOTS } from './run-protocol.ts'
import type { CompileOutcome, CompileTask, PlanOutcome, PlanTask, RunTask, WorkerData, WorkflowCompileOutcome, WorkflowCompileTask } from './task.ts'
import { compileServerWorkflow } from '../workflow-programs.ts'
import { programFromBody } from '../procedures.ts'
import { HttpError } from '../errors.ts'
import type { ServerLimits } from '../config.ts'
import { mcpProxyAtoms } from '../mcp.ts'
import { analyzeProgram } from '../../codemode/plan.ts'
import { checkPlan } from '../../codemode/policy.ts'
import { WORKFLOW_PLAN_ATOMS } from '../plan-gate.ts'
import { BudgetTokens } from '../../codemode/budget-token.ts'
import { bridgedSeenTokens } from '../budget.ts'
import { budgetCapability } from '../../codemode/budget-atoms.ts'
import { transpile } from '../../transpiler/index.ts'
import type { AgentError } from '../../vm/errors.ts'

const data = workerData as WorkerData
const bridge = new BridgeClient(data.bridge, (code, message) => (code ? new VmError(code, message) : new Error(message)))
/**
 * The deployment's budget tokens (mint, local sub-runs, receipts); absent: the budget atoms are not offered.
 * Spent tokens go to the host's seen-set, which every thread and the HTTP side share.
 */
const budgetTokens = data.budget ? new BudgetTokens({ ...data.budget, seen: bridgedSeenTokens((method, args) => bridge.call('', method, args)) }) : undefined

/** The custom atoms, imported once per worker; a failure (the module changed since the host loaded it) rejects every run of this worker. */
const customAtoms: Promise<AtomDef[]> = (data.atomModules ?? []).length === 0
  ? Promise.resolve([])
  : loadHostAtoms(data.atomModules, process.cwd()).then((loaded) => loaded.atoms)
customAtoms.catch(() => { /* reported by runTask */ })

/** Parsed programs by key or text, least recently used first; bounded in count and in text bytes. */
const MAX_PROGRAMS = 512
const MAX_PROGRAM_BYTES = 64 * 1024 * 1024
const programs = new Map<string, { program: AjsProgram; bytes: number }>()
let programBytes = 0

const runtimeOf = tenantRuntimes(data, bridge)

function programOf(task: RunTask): AjsProgram | string {
  if (task.source !== undefined) return task.source
  const text = task.astText!
  const key = task.key ?? text
  const hit = programs.get(key)
  if (hit) {
    programs.delete(key)
    programs.set(key, hit)
    return hit.program
  }
  let program: AjsProgram
  try {
    program = JSON.parse(text) as AjsProgram
  } catch {
    throw vmError('AST_INVALID', 'The AST is not valid JSON')
  }
  const bytes = key.length + text.length
  while (programs.size > 0 && (programs.size >= MAX_PROGRAMS || programBytes + bytes > MAX_PROGRAM_BYTES)) {
    const [oldKey, old] = programs.entries().next().value!
    programs.delete(oldKey)
    programBytes -= old.bytes
  }
  programs.set(key, { program, bytes })
  programBytes += bytes
  return program
}

/** Whether this VM understands the `interrupt` run option (older VMs refuse unknown options). */
const interruptSupported = (() => {
  const probe = new AgentVM()
  let supported = false
  void probe.run({ ajs: 1, op: 'seq', steps: [] }, {}, { interrupt: new Int32Array(new SharedArrayBuffer(4)) } as object).then((r) => { supported = !r.error })
  return () => supported
})()

/** This thread's OS id (Linux: /proc/thread-self -> <pid>/task/<tid>); 0 where unknown. */
const threadId = (() => {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop()) || 0
  } catch {
    return 0
  }
})()

/**
 * Compile a tenant's source (transpile, then validate against the server's AST limits) in this
 * thread, so the server's event loop never runs guest-derived work (issue 23, class 2). The
 * program comes back as JSON text, the refusal as the HTTP error the server answers with.
 */
export async function compileTask(task: CompileTask): Promise<CompileOutcome> {
  try {
    const ast = programFromBody({ source: task.source }, { maxAstNodes: task.maxAstNodes, maxAstDepth: task.maxAstDepth } as ServerLimits, task.file, task.atoms)
    return { astText: JSON.stringify(ast) }
  } catch (e) {
    if (e instanceof HttpError) return { error: { code: e.code, message: e.message, ...(e.agentError ? { agentError: e.agentError } : {}) } }
    return { error: { code: 'PROGRAM_REJECTED', message: `Compiling failed: ${(e as Error)?.message ?? e}` } }
  }
}

/**
 * Compile a workflow module in this thread (the server's event loop only waits). The custom atoms
 * come by name; this worker's definitions of them (imported modules, MCP tools) give their fields,
 * so the module is checked as the host would check it. The program comes back as JSON text.
 */
export async function compileWorkflowTask(task: WorkflowCompileTask): Promise<WorkflowCompileOutcome> {
  try {
    const custom = await customAtoms.catch(() => [] as AtomDef[])
    const defs = new Map<string, AtomDef | string>([...custom, ...mcpProxyAtoms(data.mcpTools ?? [], () => Promise.reject(new Error('not callable while compiling')))].map((a) => [a.op, a]))
    const program = compileServerWorkflow(task.source, task.sourceName, task.atoms.map((n) => defs.get(n) ?? n), { maxAstNodes: task.maxAstNodes, maxAstDepth: task.maxAstDepth })
    return { programText: JSON.stringify(program) }
  } catch (e) {
    if (e instanceof HttpError) return { error: { code: e.code, message: e.message, ...(e.agentError ? { agentError: e.agentError } : {}) } }
    return { error: { code: 'PROGRAM_REJECTED', message: `Compiling failed: ${(e as Error)?.message ?? e}` } }
  }
}

export default async function runTask(task: RunTask): Promise<RunResult> {
  const rt = runtimeOf(task.tenant, await customAtoms)
  let program: AjsProgram | string
  try {
    program = programOf(task)
  } catch (e) {
    return { result: null, error: (e as VmError).toAgentError(), fuelUsed: 0 }
  }
  const options: Record<string, unknown> = {
    fuel: task.fuel,
    timeoutMs: task.acceptedAt === undefined ? task.timeoutMs : Math.max(0, task.timeoutMs - (Date.now() - task.acceptedAt)),
    trace: task.trace,
    capabilities: rt.capabilities,
    context: rt.context,
    limits: { maxAstNodes: task.maxAstNodes, maxAstDepth: task.maxAstDepth },
  }
  if (task.maxHeapBytes !== undefined) options['maxHeapBytes'] = task.maxHeapBytes
  if (task.interrupt && interruptSupported()) options['interrupt'] = task.interrupt
  if (budgetTokens) {
    // Per run: the tokens it mints (settled against its own meter) and its nesting depth.
    // A local sub-run (budgetRun) shares the run's thread: the host's interrupt must stop it too.
    const runOptions = { limits: options['limits'], ...(task.maxHeapBytes !== undefined ? { maxHeapBytes: task.maxHeapBytes } : {}), ...(options['interrupt'] ? { interrupt: options['interrupt'] } : {}) }
    options['capabilities'] = { ...rt.capabilities, budget: budgetCapability(budgetTokens, { depth: task.budget?.depth ?? 0, runner: rt.vm, runOptions }) }
    if (task.budget?.quotas) options['quotas'] = task.budget.quotas
  }
  if (rt.plan) {
    const checked = planCheck(rt, program, task.tenant)
    if (checked.refused) return { result: null, error: checked.refused, fuelUsed: 0 }
    program = checked.program
  }
  if (!options['quotas']) return rt.vm.run(program, task.args, options)
  // A token with quotas pays for the run: the calls it makes are counted (its own ledger) for the receipt.
  const budgetCalls: Record<string, number> = {}
  options['quotaUsed'] = budgetCalls
  return { ...await rt.vm.run(program, task.args, options), budgetCalls } as RunResult
}

/**
 * The tenant's plan policy checked alone, before an async run or a workflow is accepted (the
 * server answers 422 PLAN_REFUSED at once instead of accepting a run that will be refused). The
 * parsed program and its verdict stay cached, so the run itself is not parsed or checked again.
 */
export async function planTask(task: PlanTask): Promise<PlanOutcome> {
  const rt = runtimeOf(task.tenant, await customAtoms)
  if (!rt.plan) return {}
  let program: AjsProgram | string
  try {
    program = programOf(task as RunTask)
  } catch {
    return {} // not JSON: the run reports it as it does for every run
  }
  const { refused } = planCheck(rt, program, task.tenant, task.workflow ? WORKFLOW_PLAN_ATOMS : undefined)
  return refused ? { refused } : {}
}

/** Verdicts of the tenant's plan policy on parsed programs (the cached ones are checked once). */
const verdicts = new WeakMap<object, AgentError | null>()

/**
 * The tenant's plan policy (config `tenants[].plan`) checked before the run: the program's plan
 * (analyzeProgram over this VM's atoms) must satisfy it, else the run is refused (PLAN_REFUSED,
 * 422) without starting. A source is compiled here first (its compile error is left to the run).
 */
function planCheck(rt: TenantRuntime, program: AjsProgram | string, tenantId: string, hostAtoms?: Readonly<Record<string, unknown>>): { program: AjsProgram | string; refused?: AgentError } {
  let ast: AjsProgram
  if (typeof program === 'string') {
    try {
      ast = transpile(program, { atoms: [...rt.vm.atoms.keys()] }).ast as AjsProgram
    } catch {
      return { program }
    }
  } else ast = program
  let verdict = verdicts.get(ast)
  if (verdict === undefined) {
    verdict = null
    try {
      const violations = checkPlan(analyzeProgram(ast, { ...Object.fromEntries(rt.vm.atoms), ...hostAtoms }), rt.plan!)
      if (violations.length > 0) {
        const first = violations[0]!
        verdict = {
          name: 'AgentError', code: 'PLAN_REFUSED',
          message: `The program's plan exceeds this tenant's plan policy: ${violations.map((v) => `${v.message}${v.loc ? ` (at ${v.loc})` : ''} [plan.${v.key}]`).join('; ')}`,
          hint: `Rewrite the program within the policy (the plan is what \`ajsc check --plan\` prints), or have the operator change "plan.${first.key}" of tenant "${tenantId}" in the serve config.`,
          details: violations.map((v) => ({ path: `plan.${v.key}`, message: v.message })),
          ...(first.op ? { op: first.op } : {}),
        }
      }
    } catch (e) {
      verdict = { name: 'AgentError', code: 'PLAN_REFUSED', message: `The program's plan could not be read: ${(e as Error)?.message ?? e}`, hint: 'Send a valid ajs/1 program (validate it with `ajsc check`).' }
    }
    verdicts.set(ast, verdict)
  }
  return verdict ? { program: ast, refused: verdict } : { program: ast }
}

// Jobs from the run threads' main side (run-threads.ts): a run's interrupt flag is its slot in the thread's shared control words.
if (parentPort && data.control) {
  const ctl = new Int32Array(data.control)
  serveJobs(parentPort, ctl, threadId, {
    run: (task, job) => {
      const t = task as RunTask
      // Sent by key alone (this thread was sent the text before) but dropped from the cache since: ask for the text.
      if (job.byKey && !programs.has(t.key!)) throw new MissingProgram(`program ${t.key} is not held here`)
      t.interrupt = new Int32Array(ctl.buffer, 4 * (SLOT + (job.seq % SLOTS)), 1)
      return runTask(t)
    },
    compileTask: (task) => compileTask(task as CompileTask),
    compileWorkflowTask: (task) => compileWorkflowTask(task as WorkflowCompileTask),
    planTask: (task) => planTask(task as PlanTask),
  }, (task) => {
    const t = task as RunTask
    return t.key ?? t.astText ?? t.source
  })
}
