/**
 * `ajsc serve` and `ajsc worker`: the remote VM (src/server). serve answers
 * HTTP until SIGINT/SIGTERM; worker runs Graphile Worker jobs from the
 * shared Postgres until then. Both load the same config file. Without
 * --config, serve makes one tenant whose token comes from $AJS_SERVE_TOKEN
 * or is generated and printed once (the server keeps only its SHA-256).
 * `--atoms ./atoms.mjs` (and the config's `atoms`) give the server custom
 * atoms; they are loaded here first, so a broken module stops the command
 * with the same error as `ajsc run --atoms`, before anything listens.
 */
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Command } from 'commander'
import { loadCliAtoms, type AtomsFlag } from '../atoms-module.ts'
import { CliError, readText, usageError, type CliIO } from '../io.ts'
import { jsonMemberAt, jsonSyntaxAt } from '../json-text.ts'
import { atomsOption } from '../options.ts'
import { runAtoms } from './run.ts'
import { loadOptional } from '../../host/optional.ts'
import type { ServeConfig } from '../../server/config.ts'
import { mcpOption, mcpUrlOption, type McpFlags } from '../mcp.ts'
import { splitCommand } from './flowlang-session.ts'

/**
 * The server entry, loaded on use so fastify, pg and graphile-worker stay out of every other ajsc
 * command's start-up: src/server/index.ts under Bun, dist/server.js next to the bundled CLI. The
 * specifier is computed (never user input) so the bundler leaves the import alone. Its npm
 * dependencies are optional peers of ajs-lang (docs/packaging.md).
 */
function server(): Promise<typeof import('../../server/index.ts')> {
  const candidates = ['../../server/index.ts', './server.js', '../server.js'].map((p) => new URL(p, import.meta.url))
  const found = candidates.find((u) => existsSync(fileURLToPath(u)))
  if (!found) throw new CliError('CLI_INTERNAL', 'the server module is missing (dist/server.js)', { hint: 'Run `npm run build` in the ajs-lang package.' })
  // fastify, pg and graphile-worker are optional dependencies: a missing one is named with its install command.
  return loadOptional('server', () => import(found.href))
}

export interface ServeCommandOptions extends McpFlags {
  config?: string
  host?: string
  port?: string
  poolSize?: string
  queueSize?: string
  grace?: string
  workflowThreads?: string
  database?: string
  jobConcurrency?: string
  deadAfter?: string
  log?: boolean
  atoms?: AtomsFlag
}

export interface WorkerCommandOptions extends McpFlags {
  config?: string
  database?: string
  poolSize?: string
  workflowThreads?: string
  concurrency?: string
  deadAfter?: string
  atoms?: AtomsFlag
}

/** The server's config module (server/config.ts): loaded by the `serve` and `worker` commands' preAction hook, not by every `ajsc`. */
let configs: typeof import('../../server/config.ts')
const loadConfigs = async () => { configs ??= await import('../../server/config.ts') }

function integer(value: string | undefined, flag: string, min = 0): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < min) throw usageError(`${flag} must be an integer >= ${min}, got "${value}"`)
  return n
}

function loadConfig(file: string, io: CliIO): ServeConfig {
  const path = resolve(io.cwd, file)
  const text = readText(path, file)
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    throw new CliError('CLI_BAD_JSON', `--config ${file}: not valid JSON: ${(e as Error).message}`, { file, hint: 'See docs/serve.md for the config file format.', ...jsonSyntaxAt(text) })
  }
  try {
    return configs.parseServeConfig(raw, { baseDir: dirname(path) })
  } catch (e) {
    if (e instanceof configs.ServeConfigError) throw configError(e, file, io, text)
    throw e
  }
}

/** `config.tenants[0].limits.fuel` (a ServeConfigError's path) as the JSON pointer `/tenants/0/limits/fuel`; undefined for a path outside the file (`--mcp`). */
function configPointer(path: string): string | undefined {
  if (path !== 'config' && !path.startsWith('config.') && !path.startsWith('config[')) return undefined
  return [...path.slice('config'.length).matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)]
    .map((m) => `/${(m[1] ?? m[2]!).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')
}

/**
 * A config that is JSON but not a valid config: a bad input file (CLI_CONFIG,
 * exit 1, as a config that is not JSON), located at the offending key when
 * the error names one. `text` is the file's, when at hand (else read again).
 */
function configError(e: InstanceType<typeof configs.ServeConfigError>, file: string, io: CliIO, text?: string, hint?: string): CliError {
  const pointer = configPointer(e.path)
  let where = {}
  if (pointer !== undefined) {
    try {
      where = jsonMemberAt(text ?? readText(resolve(io.cwd, file), file), pointer)
    } catch { /* the file changed or went away since it was loaded: the key path in the message still says where */ }
  }
  return new CliError('CLI_CONFIG', `--config ${file}: ${e.message}`, { file, ...where, ...(hint ? { hint } : {}) })
}

/**
 * The config with the modules of `--atoms` added, every module loaded (the
 * server loads them again from the import cache; loading them here first
 * reports a broken one as this CLI's error, as `ajsc run --atoms` does).
 */
async function withAtoms(command: 'serve' | 'worker', config: ServeConfig, flag: AtomsFlag, configFile: string | undefined, io: CliIO, mcp: McpFlags = {}): Promise<ServeConfig> {
  config = configs.withMcpServers(config, mcpFlagServers(mcp, io))
  const fromFlag = await runAtoms(flag, io)
  if (config.atoms.length > 0) {
    await loadCliAtoms(config.atoms, io.cwd).catch((e: unknown) => {
      if (!(e instanceof CliError) || e.code !== 'CLI_ATOMS_NOT_FOUND') throw e
      throw new CliError(e.code, `--config ${configFile}: "atoms": ${e.message}`, { file: e.file, hint: `Paths in the config's "atoms" are resolved from the config file's directory (${dirname(resolve(io.cwd, configFile ?? '.'))}).` })
    })
  }
  const merged = configs.withAtomModules(config, fromFlag.modules, io.cwd)
  // With MCP servers the tenants' allowlists are checked by the server once it has listed their tools.
  if (merged.mcp?.length) return merged
  if (merged.atoms.length === 0 && !merged.tenants.some((t) => t.atoms !== undefined)) return merged
  const { atoms } = await loadCliAtoms(merged.atoms, io.cwd)
  try {
    configs.checkTenantAtoms(merged, atoms.map((a) => a.op))
  } catch (e) {
    if (e instanceof configs.ServeConfigError) throw configFile ? configError(e, configFile, io, undefined, TENANT_ATOMS_HINT) : usageError(e.message, TENANT_ATOMS_HINT)
    throw e
  }
  if (atoms.length > 0) io.err(`ajsc ${command}: custom atoms ${atoms.map((a) => a.op).join(', ')}\n`)
  return merged
}

const TENANT_ATOMS_HINT = 'A tenant\'s "atoms" lists names of atoms exported by the modules of "atoms" or --atoms.'

/** `--mcp "<command>"` and `--mcp-url <url>` as the config's `mcp` entries. */
function mcpFlagServers(flags: McpFlags, io: CliIO) {
  const raw = [
    ...(flags.mcp ?? []).map((cmd) => {
      const [command, ...args] = splitCommand(cmd)
      if (!command) throw usageError('--mcp needs a command, e.g. --mcp "node tools-server.mjs"')
      return { command, args }
    }),
    ...(flags.mcpUrl ?? []).map((url) => ({ url })),
  ]
  try {
    return configs.mcpServersOf(raw, io.cwd, '--mcp')
  } catch (e) {
    if (e instanceof configs.ServeConfigError) throw usageError(e.message)
    throw e
  }
}

/** Resolves on SIGINT or SIGTERM (long-running commands stop cleanly on either). */
export function untilSignal(): Promise<string> {
  return new Promise((done) => {
    const on = (sig: string) => () => {
      process.off('SIGINT', onInt)
      process.off('SIGTERM', onTerm)
      done(sig)
    }
    const onInt = on('SIGINT')
    const onTerm = on('SIGTERM')
    process.once('SIGINT', onInt)
    process.once('SIGTERM', onTerm)
  })
}

function poolOptions(opts: { poolSize?: string; queueSize?: string; grace?: string; workflowThreads?: string }) {
  return {
    size: integer(opts.poolSize, '--pool-size', 1),
    queueSize: integer(opts.queueSize, '--queue-size', 1),
    graceMs: integer(opts.grace, '--grace', 0),
    workflowThreads: integer(opts.workflowThreads, '--workflow-threads', 1),
  }
}

/** Error codes of a database that cannot be reached or used: the network's and PostgreSQL's (28xxx auth, 3D000 no database). */
const DATABASE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', '28P01', '28000', '3D000', '57P03'])

/** The first error code in an error, its cause or its aggregated errors. */
function errorCode(e: unknown, depth = 0): string | undefined {
  if (typeof e !== 'object' || e === null || depth > 4) return undefined
  const code = (e as { code?: unknown }).code
  if (typeof code === 'string' && DATABASE_CODES.has(code)) return code
  for (const inner of [(e as { cause?: unknown }).cause, ...((e as { errors?: unknown[] }).errors ?? [])]) {
    const found = errorCode(inner, depth + 1)
    if (found) return found
  }
  return undefined
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')
  }
}

/** A database that cannot be reached or used is the user's CLI_DATABASE (exit 1), never an internal error. */
function databaseError(e: unknown, database: string | undefined): unknown {
  const code = database === undefined ? undefined : errorCode(e)
  if (code === undefined) return e
  const reason = (e as Error).message || (e as { errors?: Error[] }).errors?.[0]?.message || code
  return new CliError('CLI_DATABASE', `cannot use the database ${redactUrl(database!)}: ${reason} (${code})`)
}

function databaseOf(flag: string | undefined, io: CliIO): string | undefined {
  const url = flag ?? io.env['AJS_DATABASE_URL']
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url)) throw usageError(`--database must be a postgres:// URL, got "${url.slice(0, 40)}"`)
  return url
}

export async function serveCommand(opts: ServeCommandOptions, io: CliIO): Promise<number> {
  const port = integer(opts.port ?? '8787', '--port', 0)!
  const host = opts.host ?? '127.0.0.1'
  let config: ServeConfig
  let announce = ''
  if (opts.config) config = loadConfig(opts.config, io)
  else {
    const given = io.env['AJS_SERVE_TOKEN']
    const token = given && given.length > 0 ? given : `ajs_${randomBytes(24).toString('base64url')}`
    config = configs.singleTenantConfig(token)
    announce = given ? 'ajsc serve: no --config; one tenant "default" with the token in $AJS_SERVE_TOKEN\n' : `ajsc serve: no --config; one tenant "default", token (shown once): ${token}\n`
  }
  // Before the token is shown: a start that fails on a broken atoms module or database prints no token.
  config = await withAtoms('serve', config, opts.atoms, opts.config, io, opts)
  const database = databaseOf(opts.database, io)
  const { startServe } = await server()
  const served = await startServe({
    config,
    pool: poolOptions(opts),
    database,
    jobConcurrency: integer(opts.jobConcurrency, '--job-concurrency', 0),
    deadAfterMs: integer(opts.deadAfter, '--dead-after', 100),
    logger: opts.log === true,
  }).catch((e: unknown) => {
    // A tenant's allowlist naming no tool of the MCP servers is known only once they are listed.
    if (e instanceof configs.ServeConfigError) {
      const hint = 'A tenant\'s "atoms" lists names of custom atoms and MCP tools (as atoms: see `ajsc atoms --mcp`).'
      throw opts.config ? configError(e, opts.config, io, undefined, hint) : usageError(e.message, hint)
    }
    throw databaseError(e, database)
  })
  if (announce) io.err(announce)
  let url: string
  try {
    url = await served.listen({ host, port })
  } catch (e) {
    await served.close()
    throw new CliError('CLI_INTERNAL', `cannot listen on ${host}:${port}: ${(e as Error).message}`, { hint: 'Pick another --port, or stop what listens there.' })
  }
  io.out(`ajsc serve: listening on ${url} (${config.tenants.length} tenant${config.tenants.length === 1 ? '' : 's'}, ${served.pool.size} worker threads, ${database ? 'Postgres' : 'in memory'})\n`)
  const sig = await untilSignal()
  io.err(`ajsc serve: ${sig}, stopping\n`)
  await served.close()
  return 0
}

export async function workerCommand(opts: WorkerCommandOptions, io: CliIO): Promise<number> {
  const database = databaseOf(opts.database, io)
  if (!database) throw usageError('ajsc worker needs --database postgres://… (or $AJS_DATABASE_URL): workers share jobs through Postgres')
  if (!opts.config) throw usageError('ajsc worker needs --config <file>: the same tenants file as ajsc serve (capabilities and limits per tenant)')
  const config = await withAtoms('worker', loadConfig(opts.config, io), opts.atoms, opts.config, io, opts)
  const { startWorker } = await server()
  const worker = await startWorker({
    config,
    database,
    pool: { size: integer(opts.poolSize, '--pool-size', 1), workflowThreads: integer(opts.workflowThreads, '--workflow-threads', 1) },
    concurrency: integer(opts.concurrency, '--concurrency', 1),
    deadAfterMs: integer(opts.deadAfter, '--dead-after', 100),
  }).catch((e: unknown) => { throw databaseError(e, database) })
  io.out(`ajsc worker: running jobs as ${worker.jobs.nodeId} (${worker.host.pool.size} worker threads)\n`)
  const sig = await untilSignal()
  io.err(`ajsc worker: ${sig}, stopping\n`)
  await worker.stop()
  // What its workflow steps cost (benches and tests read it): steps that replayed a journal, entries replayed.
  const w = worker.workflowSteps
  io.err(`ajsc worker: workflow steps: ${w.hits + w.misses} (${w.hits} continued a live execution, ${w.caughtUp} of them after another process's steps; ${w.misses} replayed the journal); ${w.replayedEntries} journal entries replayed\n`)
  return 0
}

const SERVE_ATOMS = 'custom atoms every tenant may call: a module of defineAtom exports (./atoms.mjs), added to the config\'s "atoms"; repeatable'

/** `ajsc serve` and `ajsc worker` (registered by program.ts). */
export function registerServeCommands(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program.command('serve')
    .hook('preAction', loadConfigs)
    .description('serve the remote VM over HTTP (see docs/serve.md): in memory by default, on Postgres with --database')
    .option('--config <file>', 'tenants, token hashes, limits and capabilities (JSON); default: one tenant, token from $AJS_SERVE_TOKEN or printed')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--port <n>', 'port (default 8787; 0 picks a free one)')
    .option('--pool-size <n>', 'worker threads running programs (default: CPU count)')
    .option('--queue-size <n>', 'runs waiting for a thread before 503 (default 1000)')
    .option('--grace <ms>', 'how long a run may ignore cancellation before its thread is replaced (default 1000)')
    .option('--workflow-threads <n>', 'threads running workflow steps, each holding the live workflows its id hash picks (default: pool size)')
    .option('--database <url>', 'postgres://… : stores in Postgres, async runs and workflows as jobs (also $AJS_DATABASE_URL)')
    .option('--job-concurrency <n>', 'with --database: jobs this process runs at once (default: pool size; 0 = only serve)')
    .option('--dead-after <ms>', 'with --database: a process silent this long has its jobs taken over (default 5000)')
    .option('--log', 'log every request as JSON lines')
    .addOption(atomsOption(SERVE_ATOMS))
    .addOption(mcpOption())
    .addOption(mcpUrlOption())
    .action(async (opts: ServeCommandOptions) => setCode(await serveCommand(opts, io)))

  program.command('worker')
    .hook('preAction', loadConfigs)
    .description('run jobs (async runs, workflow resumes) from the Postgres of `ajsc serve --database`; start as many as needed')
    .option('--database <url>', 'postgres://… shared with ajsc serve (also $AJS_DATABASE_URL)')
    .option('--config <file>', 'the same tenants file as ajsc serve')
    .option('--pool-size <n>', 'worker threads (default: CPU count)')
    .option('--workflow-threads <n>', 'threads running workflow steps (default: pool size)')
    .option('--concurrency <n>', 'jobs at once (default: pool size)')
    .option('--dead-after <ms>', 'a process silent this long has its jobs taken over (default 5000)')
    .addOption(atomsOption(`${SERVE_ATOMS}; the same as ajsc serve's`))
    .addOption(mcpOption())
    .addOption(mcpUrlOption())
    .action(async (opts: WorkerCommandOptions) => setCode(await workerCommand(opts, io)))
}
