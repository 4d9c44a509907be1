/**
 * `ajsc inspect <run-dir|trace.json>…`: the web inspector on 127.0.0.1 for
 * CLI runs and workflow runs, with no server and no token (it listens on the
 * loopback address only, on a random port unless --port).
 *
 * Inputs: a JSON report of `ajsc run --json --trace` (or any RunResult, or a
 * bare array of trace entries); a workflow run directory (`run.json` +
 * `journal.jsonl`, as `ajsc workflow run` writes under .ajs/runs); or a
 * directory holding several of either (e.g. `.ajs/runs`). `--source` gives
 * the program text for code frames of run errors and each timeline step's line.
 */
import { createServer, type Server } from 'node:http'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import type { Command } from 'commander'
import { CliError, readText, usageError, type CliIO } from '../io.ts'
import { notFoundHint } from '../not-found.ts'
import { defaultRunsDir } from '../../workflows/drivers/defaults.ts'
import { Reporter } from '../report.ts'
import { inspectReport } from '../inspect-report.ts'

export interface InspectItem {
  kind: 'run' | 'workflow'
  id: string
  state: string
  label?: string
  at?: number
  /** Runs: the RunResult. */
  result?: unknown
  source?: string
  /** Workflows. */
  requests?: Array<{ id: string; prompt?: string; options?: unknown }>
  journal?: Array<Record<string, unknown>>
  error?: unknown
  budget?: number | null
}

export interface InspectData {
  title: string
  items: InspectItem[]
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function readJson(file: string, shown: string = file): unknown {
  const text = readText(file, shown)
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new CliError('CLI_BAD_JSON', `${shown}: ${(e as Error).message}`, { file: shown, hint: 'Pass the JSON of `ajsc run --json --trace`, a RunResult, or a workflow run directory.' })
  }
}

/** A run from a report, a RunResult or a trace array. */
export function runItem(value: unknown, id: string, source?: string, at?: number): InspectItem | undefined {
  let result: Record<string, unknown>
  if (Array.isArray(value)) result = { result: null, fuelUsed: value.at(-1)?.fuelTotal ?? 0, trace: value }
  else if (isObject(value) && ('fuelUsed' in value || 'trace' in value || 'result' in value)) result = value
  else return undefined
  // A CLI report carries the run's error as its first error diagnostic (with the code frame).
  if (!result['error'] && Array.isArray(result['diagnostics'])) {
    const d = (result['diagnostics'] as Array<Record<string, unknown>>).find((x) => x['severity'] === 'error')
    if (d) {
      result = { ...result, error: {
        name: 'AgentError', code: d['code'], message: d['message'], ...(d['hint'] ? { hint: d['hint'] } : {}),
        ...(d['line'] !== undefined ? { location: `${d['file'] ?? '<ajs>'}:${d['line']}:${d['column'] ?? 1}` } : {}), ...(d['frame'] ? { frame: d['frame'] } : {}),
      } }
    }
  }
  const error = result['error']
  return { kind: 'run', id, state: error ? 'failed' : 'ok', label: typeof result['command'] === 'string' ? `ajsc ${result['command']}` : 'run', result, ...(source !== undefined ? { source } : {}), ...(at !== undefined ? { at } : {}) }
}

/** A workflow run directory: its state, pending requests, journal (with the budget spent so far on each entry). */
export function workflowItem(dir: string): InspectItem {
  const run = readJson(join(dir, 'run.json')) as Record<string, unknown>
  const journalText = existsSync(join(dir, 'journal.jsonl')) ? readFileSync(join(dir, 'journal.jsonl'), 'utf8') : ''
  const journal: Array<Record<string, unknown>> = []
  for (const line of journalText.split('\n')) {
    if (!line.trim()) continue
    try { journal.push(JSON.parse(line) as Record<string, unknown>) } catch { journal.push({ t: 'unreadable', line: line.slice(0, 200) }) }
  }
  const open = new Map<string, Record<string, unknown>>()
  const agentIds = new Set<string>()
  let spent = 0
  let state = 'running'
  let result: unknown
  let error: unknown
  for (const e of journal) {
    if (e['t'] === 'start' && isObject(e['budget']) && typeof e['budget']['spent'] === 'number') spent = e['budget']['spent']
    if (e['t'] === 'request' && isObject(e['request'])) {
      const r = e['request']
      open.set(String(r['id']), r)
      if (r['type'] === 'agent') agentIds.add(String(r['id']))
    }
    if (e['t'] === 'resolution') {
      open.delete(String(e['id']))
      if (agentIds.has(String(e['id']))) spent++
    }
    if (e['t'] === 'end') { state = 'done'; result = e['result'] }
    if (e['t'] === 'failed' || e['t'] === 'error' || e['t'] === 'cancelled') { state = 'failed'; error = e['error'] ?? e }
    e['budgetSpent'] = spent
  }
  const requests = [...open.values()].filter((r) => r['type'] !== 'sleep').map((r) => ({ id: String(r['id']), ...(typeof r['prompt'] === 'string' ? { prompt: r['prompt'] } : {}), options: r['options'] ?? { type: r['type'] } }))
  if (state === 'running' && requests.length > 0) state = 'waiting'
  const created = Date.parse(String(run['createdAt'] ?? ''))
  return {
    kind: 'workflow', id: String(run['runId'] ?? basename(dir)), state, label: basename(String(run['file'] ?? '')),
    ...(Number.isFinite(created) ? { at: created } : {}), requests, journal,
    ...(result !== undefined ? { result } : {}), ...(error !== undefined ? { error } : {}),
    budget: typeof run['budget'] === 'number' ? run['budget'] : null,
  }
}

/** Everything one path holds. */
/** A missing `.ajs/runs` is no typo: no workflow has run here yet (`ajsc workflow run` makes it). */
function missingHint(full: string, shown: string, cwd: string): string {
  if (full !== defaultRunsDir(cwd)) return notFoundHint(full, shown)
  return `\`ajsc workflow run <file>\` keeps its runs in ${shown}, and none has run in this directory yet: run a workflow first, or leave ${shown} out.`
}

export function loadInspectData(paths: readonly string[], cwd: string, sourceFile?: string): InspectData {
  const source = sourceFile === undefined ? undefined : readText(resolve(cwd, sourceFile), sourceFile)
  const items: InspectItem[] = []
  // `shown`: the path as the user typed it (and below it), for messages.
  const addPath = (full: string, shown: string, depth: number) => {
    if (!existsSync(full)) throw new CliError('CLI_NOT_FOUND', `${shown}: no such file or directory`, { file: shown, hint: missingHint(full, shown, cwd) })
    const st = statSync(full)
    if (st.isDirectory()) {
      if (existsSync(join(full, 'run.json'))) return void items.push(workflowItem(full))
      if (depth > 1) return
      for (const name of readdirSync(full).sort()) {
        const child = join(full, name)
        if (statSync(child).isDirectory() ? existsSync(join(child, 'run.json')) : name.endsWith('.json')) addPath(child, join(shown, name), depth + 1)
      }
      return
    }
    const item = runItem(readJson(full, shown), basename(full).replace(/\.json$/, ''), source, st.mtimeMs)
    if (item) items.push(item)
    else if (depth === 0) throw new CliError('CLI_BAD_JSON', `${shown}: not a run report, a RunResult or a trace`, { file: shown, hint: 'Make one with `ajsc run prog.ajs --trace --json > trace.json`.' })
  }
  for (const p of paths) addPath(resolve(cwd, p), p, 0)
  items.sort((a, b) => (b.at ?? 0) - (a.at ?? 0))
  return { title: paths.join(', '), items }
}

/** Serve the inspector for `data` on 127.0.0.1; resolves to the server and its URL. */
export async function serveInspector(data: InspectData, port = 0): Promise<{ server: Server; url: string }> {
  // The inspector's page and assets (~30 KB) load with this command, not with every `ajsc`.
  const { INSPECTOR_CSP, INSPECTOR_FILES } = await import('../../server/inspector/index.ts')
  const json = JSON.stringify(data)
  const html = INSPECTOR_FILES['/ui']![1].replace('<meta name="ajs-inspector-mode" content="server">', '<meta name="ajs-inspector-mode" content="local">')
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405).end()
    const file = path === '/ui/data.json' ? ['application/json; charset=utf-8', json] as const
      : path === '/ui' ? ['text/html; charset=utf-8', html] as const : INSPECTOR_FILES[path]
    if (path === '/') return void res.writeHead(302, { location: '/ui' }).end()
    if (!file) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
    res.writeHead(200, { 'content-type': file[0], 'content-security-policy': INSPECTOR_CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' }).end(file[1])
  })
  return new Promise((ok, fail) => {
    server.once('error', fail)
    server.listen(port, '127.0.0.1', () => ok({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/ui` }))
  })
}

export function registerInspectCommand(program: Command, io: CliIO, setCode: (code: number) => void, untilSignal: () => Promise<string>): void {
  program.command('inspect')
    .description('open the web inspector on 127.0.0.1 for CLI runs (ajsc run --trace --json > trace.json) and workflow run directories (.ajs/runs/<id>)')
    .argument('<paths...>', 'trace.json reports, RunResults, workflow run directories, or directories holding them (.ajs/runs)')
    .option('--port <n>', 'port on 127.0.0.1 (default: a free one)')
    .option('--source <file>', 'the program source: code frames of run errors, and each timeline step\'s line of code')
    .option('--json', 'print one JSON report of the items (state, result or error, fuel, pending requests, budget) on stdout instead of serving them')
    .action(async (paths: string[], opts: { port?: string; source?: string; json?: boolean }) => {
      const port = opts.port === undefined ? 0 : Number(opts.port)
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`--port must be an integer 0-65535, got "${opts.port}"`)
      if (opts.json && opts.port !== undefined) throw usageError('--json prints the items instead of serving them: --port has nothing to listen on', 'Leave out --port with --json, or --json to open the inspector.')
      const data = loadInspectData(paths, io.cwd, opts.source)
      if (opts.json) return setCode(new Reporter(io, 'inspect', true).finish(inspectReport(data)))
      const { server, url } = await serveInspector(data, port)
      io.out(`ajsc inspect: ${data.items.length} item${data.items.length === 1 ? '' : 's'} at ${url} (Ctrl-C stops)\n`)
      const sig = await untilSignal()
      io.err(`ajsc inspect: ${sig}, stopping\n`)
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
      setCode(0)
    })
}
