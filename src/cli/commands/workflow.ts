/**
 * `ajsc workflow run | resume | ls | show | host --stdio`: durable workflow
 * runs on this machine (src/workflows/drivers/local.ts) and the JSON-RPC host of the
 * runtime boundary (src/workflows/drivers/stdio-host.ts).
 *
 * stdout carries only the product (the result, the listing, the JSON
 * report, or JSON-RPC); the run id, log lines and phases go to stderr.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Command } from 'commander'
import { createOpenAICompatibleLLM } from '../../capabilities/llm.ts'
import { TranspileError } from '../../diagnostics/index.ts'
import { WorkflowError } from '../../workflows/engine/errors.ts'
import type { LocalDriverOptions } from '../../workflows/drivers/local.ts'
import type { WorkflowTimeouts } from '../../workflows/engine/timeouts.ts'
import type { RunFilter, RunSummary } from '../../workflows/drivers/runs.ts'
import type { SearchInfo } from '../../workflows/engine/search.ts'
import { defaultMaxAgents, defaultRunsDir, RUN_STATES } from '../../workflows/drivers/defaults.ts'
import type { WorkflowCall } from '../../workflows/engine/types.ts'
import { palette } from '../colors.ts'
import { CliError, EXIT, readText, usageError, type CliIO } from '../io.ts'
import { atomsOption, intOption, jsonObjectFlag, llmUrlOption } from '../options.ts'
import { runAtoms } from './run.ts'
import { fromCliError, fromTranspileError, Reporter, type JsonDiagnostic } from '../report.ts'
import { argKeyWarnings, argKeysRead, type DeclaredArgs } from '../args-keys.ts'

/** The engine and local driver (workflow-engine.ts): loaded by the `workflow` command's preAction hook, before any subcommand's action uses it. */
let engine: typeof import('./workflow-engine.ts')

interface DriverFlags {
  /** `--atoms` values: modules of defineAtom exports (journaled custom atoms). */
  atoms?: string[]
  llm?: string
  model?: string
  runsDir?: string
  maxAgents?: string
  retry?: string
  json?: boolean
}

interface RunFlags extends DriverFlags {
  args?: string
  budget?: string
  timeouts?: string
  name?: string
  tag?: string[]
  attr?: string[]
}

/** `--tag` / `--attr`, repeatable. */
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value]

/** `--name`, `--tag` and `--attr k=v` of `workflow run` (checked by startLocalRun: SEARCH_ATTRIBUTES_*). */
function searchFlags(flags: RunFlags): SearchInfo {
  return {
    ...(flags.name !== undefined ? { name: flags.name } : {}),
    ...(flags.tag ? { tags: flags.tag } : {}),
    ...(flags.attr ? { attributes: engine.attributesOfFlags(flags.attr, '--attr') } : {}),
  }
}

/** `--timeouts <json>`: the run's deadline and default request timeout. */
function timeoutsFlag(text: string | undefined): { timeouts?: WorkflowTimeouts } {
  if (text === undefined) return {}
  let value: unknown
  try { value = JSON.parse(text) } catch (e) { throw new CliError('CLI_USAGE', `--timeouts is not valid JSON: ${(e as Error).message}`) }
  try {
    return { timeouts: engine.checkTimeouts(value, '--timeouts')! }
  } catch (e) {
    throw new CliError('CLI_USAGE', (e as Error).message)
  }
}

/** The keys of args the module reads (args-keys.ts); none known when it does not compile (the run reports why). */
function moduleArgKeys(file: string, atoms: LocalDriverOptions['atoms']): DeclaredArgs | undefined {
  try {
    const keys = argKeysRead(engine.compileWorkflow(readFileSync(file, 'utf8'), { sourceName: file, atoms: atoms ?? [] }).ast)
    return keys && { entry: 'the workflow', keys, reads: true }
  } catch {
    return undefined
  }
}

function runsDir(flags: DriverFlags, io: CliIO): string {
  return flags.runsDir ? resolve(io.cwd, flags.runsDir) : defaultRunsDir(io.cwd)
}

function driverOptions(flags: DriverFlags, io: CliIO): LocalDriverOptions {
  if (flags.model && !flags.llm) throw usageError('--model needs --llm <url>')
  llmUrlOption(flags.llm)
  const c = palette(io.color)
  const onCall = (call: WorkflowCall, runId: string) => {
    if (flags.json) return
    const who = runId.includes('/children/') ? c.dim(`[${runId.slice(runId.lastIndexOf('/') + 1)}] `) : ''
    if (call.type === 'phase') io.err(`${who}${c.cyan('phase')} ${call.name}\n`)
    else io.err(`${who}${call.values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' ')}\n`)
  }
  const apiKey = io.env['AJS_LLM_API_KEY']
  return {
    runsDir: runsDir(flags, io),
    maxAgents: intOption(flags.maxAgents, '--max-agents', 1) ?? defaultMaxAgents(),
    onCall,
    ...retryFlag(flags.retry),
    ...(flags.llm ? { llm: createOpenAICompatibleLLM({ baseUrl: flags.llm, model: flags.model ?? 'default', timeoutMs: 120_000, ...(apiKey ? { apiKey } : {}) }) } : {}),
  }
}

/** `--retry <json>`: the run's retry policy. */
function retryFlag(text: string | undefined): Pick<LocalDriverOptions, 'retry'> {
  if (text === undefined) return {}
  let value: unknown
  try { value = JSON.parse(text) } catch (e) { throw new CliError('CLI_USAGE', `--retry is not valid JSON: ${(e as Error).message}`) }
  try {
    return { retry: engine.checkRetryPolicy(value, '--retry', true)! }
  } catch (e) {
    throw new CliError('CLI_USAGE', (e as Error).message)
  }
}

function fromWorkflowError(e: WorkflowError): JsonDiagnostic {
  const cause = e.cause
  if (cause) {
    return {
      severity: 'error', code: cause.code, message: cause.message, ...(cause.hint ? { hint: cause.hint } : {}),
      ...(cause.file ? { file: cause.file } : {}), ...(cause.line ? { line: cause.line, column: cause.column } : {}), ...(cause.op ? { op: cause.op } : {}),
    }
  }
  return { severity: 'error', code: e.code, message: e.message, hint: e.hint }
}

/** The exit status of a command that failed with `e`: a CliError's own (2 for a usage error), else 1. */
const exitOf = (e: unknown): number => (e instanceof CliError ? e.exitCode : EXIT.failure)

/** Run a driver call and report its outcome the CLI way. */
async function report(command: string, flags: DriverFlags, io: CliIO, work: () => Promise<{ runId: string; result: unknown }>, runIdHint?: string, warnings: readonly JsonDiagnostic[] = []): Promise<number> {
  const reporter = new Reporter(io, command, flags.json === true)
  reporter.add(...warnings)
  try {
    const { runId, result } = await work()
    if (!flags.json) io.out(`${JSON.stringify(result, null, 2)}\n`)
    return reporter.finish({ runId, result })
  } catch (e) {
    if (e instanceof TranspileError) reporter.add(...fromTranspileError(e))
    else if (e instanceof WorkflowError) reporter.add(fromWorkflowError(e))
    else if (e instanceof CliError) reporter.add(fromCliError(e))
    else reporter.add({ severity: 'error', code: 'CLI_READ', message: (e as Error).message ?? String(e), hint: 'Check the workflow file path.' })
    const resumable = runIdHint !== undefined && existsSync(join(runsDir(flags, io), runIdHint, 'journal.jsonl'))
    // No "resume with" when resume itself is what refused the run (resuming again would give the same error).
    const refused = e instanceof WorkflowError && ['WORKFLOW_RUN_NOT_FOUND', 'JOURNAL_INVALID', 'JOURNAL_MISMATCH', 'WORKFLOW_VERSION_MISMATCH'].includes(e.code)
    if (resumable && !flags.json && !refused) {
      // A failed run is retried from its failed step (a resume would replay the same failure).
      const how = e instanceof WorkflowError && e.code === 'WORKFLOW_FAILED' ? 'retry' : 'resume'
      io.err(`${how} with: ajsc workflow ${how} ${runIdHint}${flags.runsDir ? ` --runs-dir ${flags.runsDir}` : ''}${how === 'retry' ? ' (with a new --llm, --atoms or --retry if needed)' : ''}\n`)
    }
    return reporter.finish({ ...(runIdHint ? { runId: runIdHint } : {}) }, exitOf(e))
  }
}

function formatSummary(s: RunSummary): string {
  const budget = s.budget ? `${s.budget.spent}${s.budget.total === null ? ' spent (no limit)' : ` of ${s.budget.total} spent`}` : '-'
  const lines = [
    `run       ${s.runId}`,
    `file      ${s.file}`,
    `created   ${s.createdAt}`,
    `state     ${s.state}`,
    `phases    ${s.phases.join(' → ') || '-'}`,
    `budget    ${budget}`,
    `requests  ${s.requests.resolved}/${s.requests.total} resolved${s.requests.inFlight.length ? `, in flight: ${s.requests.inFlight.join(', ')}` : ''}`,
    ...(s.atoms.total > 0 ? [`atoms     ${s.atoms.total} journaled${s.atoms.errors ? ` (${s.atoms.errors} threw)` : ''}`] : []),
    ...(s.chain !== undefined ? [`chain     run ${s.chain} of its chain, continues ${s.previous}`] : []),
    ...(s.continuedAsNew ? [`continued as new with ${JSON.stringify(s.continuedAsNew.args)}`] : []),
    ...(s.name !== undefined ? [`name      ${s.name}`] : []),
    ...(s.tags ? [`tags      ${s.tags.join(', ')}`] : []),
    ...(s.attributes ? [`attrs     ${Object.entries(s.attributes).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}`] : []),
    s.state === 'invalid' ? 'journal   damaged (see error)'
      : s.entries === 0 && s.state === 'running' ? 'journal   0 entries: stopped before its start entry was written; resume starts it from the beginning'
        : `journal   ${s.entries} entries, ${s.logs} log lines`,
  ]
  if (s.state === 'complete') lines.push(`result    ${JSON.stringify(s.result)}`)
  if (s.state === 'failed') lines.push(`error     ${JSON.stringify(s.error)}`)
  if (s.state === 'invalid') lines.push(`error     ${(s.error as { code: string; message: string }).code}: ${(s.error as { message: string }).message}`)
  return `${lines.join('\n')}\n`
}

const driverFlags = (cmd: Command) => cmd
  .addOption(atomsOption('custom atoms the workflow calls: a module of defineAtom exports (./atoms.mjs); repeatable. Each result is journaled: a resume does not call it again'))
  .option('--llm <url>', 'OpenAI-compatible endpoint for agent() calls, e.g. http://127.0.0.1:1234/v1 (API key from $AJS_LLM_API_KEY)')
  .option('--model <name>', 'model name for --llm (default "default")')
  .option('--runs-dir <dir>', 'where run directories live (default .ajs/runs under the working directory)')
  .option('--retry <json>', 'the run\'s retry policy, e.g. \'{"maximumAttempts":5,"agent":{"initialIntervalMs":2000}}\' (default: 3 attempts of transient errors)')
  .option('--max-agents <n>', `agent calls at once (default min(16, cores - 2), at least 1; here ${defaultMaxAgents()})`)
  .option('--json', 'print one JSON report (runId, result, diagnostics) on stdout')

/** Register `ajsc workflow ...` on the program. */
export function registerWorkflowCommands(program: Command, io: CliIO, setCode: (code: number) => void): void {
  const wf = program.command('workflow').description('durable workflows: run a workflow module, resume it after a crash, list runs, host the runtime over stdio')
    .hook('preAction', async () => { engine ??= await import('./workflow-engine.ts') })

  driverFlags(wf.command('run')
    .description('run a workflow module to completion; its journal goes to <runs-dir>/<run-id>/ (resumable after kill -9)')
    .argument('<file>', 'the workflow module (.ajs)')
    .option('-a, --args <json>', 'the args global: a JSON object, @file.json, or - for stdin (default {})')
    .option('--budget <n>', 'budget total, in agent calls (default: unlimited)')
    .option('--timeouts <json>', 'the run\'s deadline and default request timeout, e.g. \'{"runMs":3600000,"requestMs":60000}\' (journaled: a resume keeps them)')
    .option('--name <name>', 'a name to find the run by (`workflow ls --name`)')
    .option('--tag <tag>', 'a tag to find the run by (`workflow ls --tag`); repeatable', collect)
    .option('--attr <name=value>', 'a search attribute (`workflow ls --attr`); a value spelling a number or boolean is one, \'"…"\' keeps a string; repeatable', collect))
    .action(async (file: string, flags: RunFlags) => {
      const options = { ...driverOptions(flags, io), atoms: (await runAtoms(flags.atoms, io)).atoms }
      readText(resolve(io.cwd, file), file) // a missing file is CLI_NOT_FOUND before any run directory exists
      const args = await jsonObjectFlag(flags.args, '--args', io)
      const budget = intOption(flags.budget, '--budget', 0)
      const timeouts = timeoutsFlag(flags.timeouts)
      const runId = engine.newRunId()
      if (!flags.json) io.err(`${palette(io.color).dim(`run ${runId}`)}\n`)
      const warnings = argKeyWarnings(moduleArgKeys(resolve(io.cwd, file), options.atoms), args)
      setCode(await report('workflow run', flags, io, () => engine.startLocalRun({ ...options, ...timeouts, ...searchFlags(flags), file: resolve(io.cwd, file), args, runId, ...(budget !== undefined ? { budget } : {}) }), runId, warnings))
    })

  driverFlags(wf.command('resume')
    .description('continue a run from its journal: completed agent calls are not repeated, a sleep waits only what is left')
    .argument('<run-id>', 'the id printed by `workflow run` (see `workflow ls`)')
    .option('--upgrade', 'continue the run on the file as it is now (a fix shipped to a run in flight): its journal is replayed against it, a divergence is refused'))
    .action(async (runId: string, flags: DriverFlags & { upgrade?: boolean }) => {
      const atoms = (await runAtoms(flags.atoms, io)).atoms
      setCode(await report('workflow resume', flags, io, () => engine.resumeLocalRun(runId, { ...driverOptions(flags, io), atoms, ...(flags.upgrade ? { upgrade: true } : {}) }), runId))
    })

  const simple = async (command: string, flags: { json?: boolean }, work: () => Promise<Record<string, unknown>>, print: (r: Record<string, unknown>) => string): Promise<number> => {
    const reporter = new Reporter(io, command, flags.json === true)
    try {
      const r = await work()
      if (!flags.json) io.out(print(r))
      return reporter.finish(r, r['ok'] === false ? EXIT.failure : EXIT.ok)
    } catch (e) {
      if (e instanceof WorkflowError) reporter.add(fromWorkflowError(e))
      else if (e instanceof CliError) reporter.add(fromCliError(e))
      else if (e instanceof TranspileError) reporter.add(...fromTranspileError(e))
      else throw e
      return reporter.finish({}, exitOf(e))
    }
  }
  const jsonArg = (text: string | undefined, what: string): unknown => {
    if (text === undefined) return undefined
    try { return JSON.parse(text) } catch (e) { throw new CliError('CLI_USAGE', `${what} is not valid JSON: ${(e as Error).message}`) }
  }

  wf.command('signal')
    .description('send a run a named signal (await signal(name) in the workflow); the running process applies it, or its next resume does')
    .argument('<run-id>').argument('<name>')
    .option('--payload <json>', 'the signal\'s value (JSON)')
    .option('--id <id>', 'an idempotency id: the same id twice is delivered once')
    .option('--runs-dir <dir>', 'where run directories live (default .ajs/runs)')
    .option('--json', 'print a JSON report')
    .action(async (runId: string, name: string, flags: DriverFlags & { payload?: string; id?: string }) => {
      setCode(await simple('workflow signal', flags, async () => ({ runId, signal: engine.sendToLocalRun(runId, { type: 'signal', name, payload: jsonArg(flags.payload, '--payload'), ...(flags.id ? { id: flags.id } : {}) }, runsDir(flags, io)) }),
        (r) => `queued signal ${String(r['signal'])} for ${runId}\n`))
    })

  // approve | reject: the approval signal of a call waiting for approval, by its id (`ajsc workflow query <run> approvals` lists them).
  for (const verb of ['approve', 'reject'] as const) {
    const cmd = wf.command(verb)
      .description(verb === 'approve'
        ? 'approve a call waiting for approval (the signal approval:<id>); --input runs it with edited arguments'
        : 'reject a call waiting for approval (the signal approval:<id>): the call throws APPROVAL_REJECTED in the workflow')
      .argument('<run-id>').argument('<approval-id>', 'the id from `ajsc workflow query <run-id> approvals`')
    if (verb === 'approve') cmd.option('--input <json>', 'run the call with these arguments instead (checked against the atom\'s input schema)')
    else cmd.option('--reason <text>', 'why (in the error message the workflow sees)')
    cmd.option('--runs-dir <dir>', 'where run directories live (default .ajs/runs)')
      .option('--json', 'print a JSON report')
      .action(async (runId: string, approvalId: string, flags: DriverFlags & { input?: string; reason?: string }) => {
        const id = approvalId.startsWith('approval:') ? approvalId.slice('approval:'.length) : approvalId
        setCode(await simple(`workflow ${verb}`, flags, async () => {
          const input = jsonArg(flags.input, '--input')
          if (input !== undefined && (input === null || typeof input !== 'object' || Array.isArray(input))) throw new CliError('CLI_USAGE', '--input must be a JSON object: the call\'s arguments')
          const payload = verb === 'approve' ? { approve: true, ...(input !== undefined ? { input } : {}) } : { approve: false, ...(flags.reason ? { reason: flags.reason } : {}) }
          const name = `approval:${id}`
          return { runId, approval: id, approve: verb === 'approve', signal: engine.sendToLocalRun(runId, { type: 'signal', name, payload, id: name }, runsDir(flags, io)) }
        }, () => `queued ${verb === 'approve' ? 'approval' : 'rejection'} of ${id} for ${runId}\n`))
      })
  }

  wf.command('cancel')
    .description('cancel a run: its current wait throws WORKFLOW_CANCELLED, try/finally cleanup runs, it ends cancelled')
    .argument('<run-id>')
    .option('--reason <text>', 'why (the workflow sees it in the error message)')
    .option('--runs-dir <dir>', 'where run directories live (default .ajs/runs)')
    .option('--json', 'print a JSON report')
    .action(async (runId: string, flags: DriverFlags & { reason?: string }) => {
      setCode(await simple('workflow cancel', flags, async () => ({ runId, cancel: engine.sendToLocalRun(runId, { type: 'cancel', ...(flags.reason ? { reason: flags.reason } : {}) }, runsDir(flags, io)) }),
        () => `queued cancellation of ${runId}\n`))
    })

  wf.command('query')
    .description('read what a run exposes (expose(name, value) in the workflow), by replaying its journal; nothing runs')
    .argument('<run-id>').argument('[name]', 'one query (default: all)')
    .addOption(atomsOption('the custom atoms the workflow calls (as for resume)'))
    .option('--runs-dir <dir>', 'where run directories live (default .ajs/runs)')
    .option('--json', 'print a JSON report')
    .action(async (runId: string, name: string | undefined, flags: DriverFlags) => {
      const atoms = (await runAtoms(flags.atoms, io)).atoms
      setCode(await simple('workflow query', flags, async () => ({ runId, value: (await engine.queryLocalRun(runId, name, { runsDir: runsDir(flags, io), atoms })) ?? null }),
        (r) => `${JSON.stringify(r['value'], null, 2)}\n`))
    })

  wf.command('replay')
    .description('before deploying a new version: replay stored runs against it and tell which it would break (nothing runs, nothing is written)')
    .argument('[run-ids...]', 'runs to check (default: every run in --runs-dir)')
    .requiredOption('--against <file>', 'the new workflow source')
    .addOption(atomsOption('the custom atoms the workflow calls'))
    .option('--runs-dir <dir>', 'where run directories live (default .ajs/runs)')
    .option('--json', 'print a JSON report')
    .action(async (runIds: string[], flags: DriverFlags & { against: string }) => {
      const atoms = (await runAtoms(flags.atoms, io)).atoms
      setCode(await simple('workflow replay', flags, async () => {
        const runs = await engine.replayLocalRuns(resolve(io.cwd, flags.against), runIds, { runsDir: runsDir(flags, io), atoms })
        return { ok: runs.every((r) => r.ok), runs }
      }, (r) => (r['runs'] as Array<{ runId: string; ok: boolean; code?: string; message?: string }>).map((x) => `${x.runId}  ${x.ok ? 'ok' : `breaks  ${x.code}: ${x.message}`}\n`).join('')))
    })

  driverFlags(wf.command('retry')
    .description('retry a failed run from its failed step (with a new --llm, --atoms or --retry): completed steps are not repeated')
    .argument('<run-id>', 'the id of a failed run (see `workflow ls`)'))
    .action(async (runId: string, flags: DriverFlags) => {
      const atoms = (await runAtoms(flags.atoms, io)).atoms
      setCode(await report('workflow retry', flags, io, () => engine.retryLocalRun(runId, { ...driverOptions(flags, io), atoms }), runId))
    })

  wf.command('ls')
    .description('list runs with their state, phases and budget; --status, --tag, --attr and --name keep the runs that match all of them')
    .option('--status <state>', `only runs in this state: ${RUN_STATES.join(', ')}`)
    .option('--tag <tag>', 'only runs with this tag (repeatable: every one)', collect)
    .option('--attr <name=value>', 'only runs whose search attribute has this value (2 matches the number 2 and the text "2"); repeatable', collect)
    .option('--name <name>', 'only runs of this name')
    .option('--runs-dir <dir>', 'where run directories live (default .ajs/runs)')
    .option('--json', 'print the runs as JSON')
    .action((flags: DriverFlags & { status?: string; tag?: string[]; attr?: string[]; name?: string }) => {
      const reporter = new Reporter(io, 'workflow ls', flags.json === true)
      let runs: RunSummary[]
      try {
        if (flags.status !== undefined && !RUN_STATES.includes(flags.status as RunSummary['state'])) {
          throw new CliError('CLI_USAGE', `--status ${JSON.stringify(flags.status)} is not a run state (${RUN_STATES.join(', ')})`)
        }
        const filter: RunFilter = {
          ...(flags.status !== undefined ? { state: flags.status as RunSummary['state'] } : {}),
          ...(flags.tag ? { tags: flags.tag } : {}),
          ...(flags.attr ? { attributes: Object.fromEntries(flags.attr.map((a) => engine.parseAttributeFlag(a, '--attr'))) } : {}),
          ...(flags.name !== undefined ? { name: flags.name } : {}),
        }
        runs = engine.listRuns(new engine.FileJournalStore(runsDir(flags, io)), filter)
      } catch (e) {
        if (e instanceof WorkflowError) reporter.add(fromWorkflowError(e))
        else if (e instanceof CliError) reporter.add(fromCliError(e))
        else throw e
        setCode(reporter.finish({}, exitOf(e)))
        return
      }
      if (!flags.json) {
        if (runs.length === 0) io.err('no runs\n')
        for (const r of runs) {
          // "budget 2 spent" / "budget 2/5 spent": the number is what the run has used, not what it may use.
          const budget = r.budget ? `${r.budget.spent}${r.budget.total === null ? '' : `/${r.budget.total}`} spent` : '-'
          const why = r.state === 'invalid' ? `  (${(r.error as { code: string }).code}: see \`ajsc workflow show ${r.runId}\`)` : ''
          const found = [r.name !== undefined ? JSON.stringify(r.name) : '', ...(r.tags ?? []).map((t) => `#${t}`)].filter(Boolean).join(' ')
          io.out(`${r.runId}  ${r.state.padEnd(8)}  phase ${r.phases[r.phases.length - 1] ?? '-'}  budget ${budget}  ${r.file}${found ? `  ${found}` : ''}${why}\n`)
        }
      }
      setCode(reporter.finish({ runs }))
    })

  wf.command('show')
    .description('show one run: state, phases, budget, requests, result or error')
    .argument('<run-id>')
    .option('--runs-dir <dir>', 'where run directories live (default .ajs/runs)')
    .option('--json', 'print the summary as JSON')
    .action((runId: string, flags: DriverFlags) => {
      const reporter = new Reporter(io, 'workflow show', flags.json === true)
      try {
        const summary = engine.summarizeRun(new engine.FileJournalStore(runsDir(flags, io)), runId)
        if (!flags.json) io.out(formatSummary(summary))
        // A damaged run is shown, and reported as the error resume would give (exit 1).
        if (summary.state === 'invalid') reporter.add({ severity: 'error', ...(summary.error as { code: string; message: string; hint: string }) })
        setCode(reporter.finish({ run: summary }))
      } catch (e) {
        if (!(e instanceof WorkflowError)) throw e
        reporter.add(fromWorkflowError(e))
        setCode(reporter.finish({}, EXIT.failure))
      }
    })

  wf.command('host')
    .description('serve the runtime boundary as JSON-RPC 2.0, one message per line (start_module, poll, take_pending_requests, resolve_request)')
    .option('--stdio', 'speak over stdin/stdout (required)')
    .action(async (flags: { stdio?: boolean }) => {
      if (!flags.stdio) throw usageError('workflow host needs --stdio (the only transport)')
      await engine.serveStdio(process.stdin, process.stdout)
      setCode(EXIT.ok)
    })
}
