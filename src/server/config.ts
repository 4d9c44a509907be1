/**
 * The serve config (`ajsc serve --config ajs-serve.json`): tenants with
 * their token hashes, run context, limits and capabilities, plus the
 * server-wide request limits. Validated once at start-up: unknown keys and
 * wrong types are refused with the JSON path of the problem; the result is
 * frozen. Tokens are never stored in clear, only their SHA-256. `atoms`
 * names host modules of custom atoms (defineAtom exports), resolved from the
 * config file's directory; they are loaded at start-up (atoms.ts), not here.
 */
import { parseBudgetTokensConfig, type BudgetTokensConfig } from './budget.ts'
import { createHash } from 'node:crypto'
import { resolve } from 'node:path'
import { isModuleItem } from '../host/atoms-module.ts'
import { unknownKeyMessage } from '../host/unknown-key.ts'
import { parsePlanPolicy, type PlanPolicy } from '../codemode/policy.ts'

/** Per-tenant limits; `null` means unlimited. */
export interface TenantLimits {
  /** Largest fuel budget of one run (requests asking for more are capped). Default 10,000. */
  fuelPerRun: number
  /** Fuel a tenant may use per UTC day. Default unlimited. */
  fuelPerDay: number | null
  /**
   * Work in progress at once (runs queued or running, async runs, workflow steps, compilations).
   * Default (null): the pool size minus one (at least 1) when the config has several tenants, so
   * one tenant can never hold every worker; 32 when it has one.
   */
  concurrentRuns: number | null
  /** Requests per minute (token bucket). Default unlimited. */
  requestsPerMinute: number | null
  /** Longest wall-clock time of one run in ms (requests asking for more are capped). Default 30,000. */
  timeoutMs: number
  /** Stored procedures the tenant may hold at once (live, not expired). Default 1,000. */
  maxProcedures: number
  /** Bytes of stored procedure ASTs (as JSON text) the tenant may hold. Default 16 MiB. */
  maxProcedureBytes: number
  /** Async run records the tenant may hold (queued, running, or finished within runRetentionMs). Default 1,000. */
  maxAsyncRuns: number
  /** Bytes of async run requests and results the tenant may hold. Default 64 MiB. */
  maxAsyncRunBytes: number
  /** Workflows the tenant may hold (any state). Default 1,000. */
  maxWorkflows: number
  /** Bytes of workflow sources, arguments and journals the tenant may hold. Default 64 MiB. */
  maxWorkflowBytes: number
  /** Workflow schedules the tenant may hold (POST /v1/schedules). Default 100. */
  maxSchedules: number
  /** Bytes of those schedules as created (their workflows' sources and modules, arguments, specs) the tenant may hold. Default 16 MiB. */
  maxScheduleBytes: number
  /** The shortest time between two fires of one of its schedules (everyMs, or a cron's closest fires), ms. Default 60,000. */
  minScheduleIntervalMs: number
  /** The most fires one POST /v1/schedules/{id}/backfill may cover. Default 100. */
  maxBackfillFires: number
}

/** What a tenant's programs may reach. */
export interface TenantCapabilities {
  /** `httpFetch`: hosts allowed (`*.example.com`, `*`); private addresses only if listed in allowPrivateHosts. */
  fetch?: { allowedHosts: string[]; allowPrivateHosts?: string[] }
  /** `llmPredict` and the chat batteries: an OpenAI-compatible endpoint; the API key is read from the named env variable. */
  llm?: { baseUrl: string; model?: string; apiKeyEnv?: string }
}

export interface TenantConfig {
  id: string
  /** Hex SHA-256 of the tenant's bearer token. */
  tokenSha256: string
  /** What atoms read as `ctx.context` (never visible to guest code). */
  context: Record<string, unknown>
  limits: TenantLimits
  capabilities: TenantCapabilities
  /**
   * The custom atoms (from the server's `atoms` modules) this tenant's programs may call, by name;
   * absent: all of them. The others are unknown atoms for this tenant (UNKNOWN_ATOM, AJS3002).
   */
  atoms?: string[]
  /**
   * A policy every program's plan (analyzeProgram) must satisfy before it runs: `maxFuel`, `allow`
   * (the io atoms it may call), `deny`, `maxCalls`, `reach` (e.g. `{ "network": false }`).
   * A program whose plan exceeds it is refused (422 PLAN_REFUSED) and never runs.
   */
  plan?: PlanPolicy
}

/** Server-wide limits on requests. */
export interface ServerLimits {
  /** Largest request body in bytes (413 beyond). Default 1 MiB. */
  maxBodyBytes: number
  /** Largest AST in nodes (422 beyond). Default 100,000. */
  maxAstNodes: number
  /** Deepest AST nesting (422 beyond). Default 200. */
  maxAstDepth: number
  /** Default and largest procedure TTL in ms. Default 1 hour / 30 days. */
  procedureTtlMs: number
  maxProcedureTtlMs: number
  /** How long finished async runs stay readable, in ms. Default 1 hour. */
  runRetentionMs: number
  /** How long finished (done or failed) workflows stay readable, in ms. Default 7 days. */
  workflowRetentionMs: number
}

export interface ServeConfig {
  tenants: TenantConfig[]
  /**
   * Hex SHA-256 of the operator's token: `GET /metrics` with it shows every tenant's series.
   * Without it, /metrics shows totals only (tenant "*"); with a tenant's token, totals and its own.
   */
  operatorTokenSha256?: string
  limits: ServerLimits
  /** Absolute paths of the host modules of custom atoms every pool worker installs (shared by all tenants). */
  atoms: string[]
  /**
   * MCP servers whose tools are atoms of every tenant (narrowed by a tenant's `atoms`): the host
   * connects to each once at start-up and closes them on exit (src/server/mcp.ts).
   */
  mcp?: McpServerConfig[]
  /**
   * Budget tokens (issue 25): runs mint tokens for sub-runs, and this server accepts tokens of its
   * deployment on POST /v1/runs (header x-ajs-budget). The key is read from `keyEnv` (src/server/budget.ts).
   */
  budgetTokens?: BudgetTokensConfig
}

/** An MCP server of the config: a command over stdio, or a streamable HTTP URL. */
export interface McpServerConfig {
  command?: string
  args?: string[]
  /** Environment added to the server process's. */
  env?: Record<string, string>
  /** Working directory of the server process (relative: from the config file's directory). */
  cwd?: string
  url?: string
  headers?: Record<string, string>
  /** Put before every tool's atom name. */
  prefix?: string
  /** Only these tools. */
  include?: string[]
  /** Per-call time limit in ms (default 60,000). */
  timeoutMs?: number
  /** Which tools' calls wait for approval: "destructive" (default), "all", "none", or tool names. */
  approval?: 'destructive' | 'all' | 'none' | string[]
}

export interface ParseServeConfigOptions {
  /** Where relative `atoms` paths are resolved from: the config file's directory (default: the current directory). */
  baseDir?: string
}

export const DEFAULT_TENANT_LIMITS: Readonly<TenantLimits> = Object.freeze({
  fuelPerRun: 10_000,
  fuelPerDay: null,
  concurrentRuns: null,
  requestsPerMinute: null,
  timeoutMs: 30_000,
  maxProcedures: 1_000,
  maxProcedureBytes: 16 * 1_048_576,
  maxAsyncRuns: 1_000,
  maxAsyncRunBytes: 64 * 1_048_576,
  maxWorkflows: 1_000,
  maxWorkflowBytes: 64 * 1_048_576,
  maxSchedules: 100,
  maxScheduleBytes: 16 * 1_048_576,
  minScheduleIntervalMs: 60_000,
  maxBackfillFires: 100,
})

/** concurrentRuns of a config with one tenant and no explicit value. */
export const SINGLE_TENANT_CONCURRENT_RUNS = 32

export const DEFAULT_SERVER_LIMITS: Readonly<ServerLimits> = Object.freeze({
  maxBodyBytes: 1_048_576,
  maxAstNodes: 100_000,
  maxAstDepth: 200,
  procedureTtlMs: 3_600_000,
  maxProcedureTtlMs: 30 * 86_400_000,
  runRetentionMs: 3_600_000,
  workflowRetentionMs: 7 * 86_400_000,
})

/** A config problem, with the JSON path that caused it. */
export class ServeConfigError extends Error {
  constructor(readonly path: string, message: string) {
    super(`${path}: ${message}`)
    this.name = 'ServeConfigError'
  }
}

/** Hex SHA-256 of a token: what the config stores and the server compares. */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

type Obj = Record<string, unknown>

function object(v: unknown, path: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ServeConfigError(path, 'must be an object')
  return v as Obj
}

function onlyKeys(o: Obj, keys: readonly string[], path: string): void {
  for (const k of Object.keys(o)) {
    if (!keys.includes(k)) throw new ServeConfigError(`${path}.${k}`, unknownKeyMessage(k, keys))
  }
}

function count(v: unknown, path: string, nullable: boolean): number | null {
  if (v === null && nullable) return null
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new ServeConfigError(path, `must be a positive number${nullable ? ' or null (unlimited)' : ''}`)
  return v
}

function strings(v: unknown, path: string): string[] {
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s === '')) throw new ServeConfigError(path, 'must be an array of non-empty strings')
  return [...v] as string[]
}

function text(v: unknown, path: string): string {
  if (typeof v !== 'string' || v === '') throw new ServeConfigError(path, 'must be a non-empty string')
  return v
}

function limitsOf<T extends object>(raw: unknown, defaults: Readonly<T>, nullable: ReadonlySet<string>, path: string): T {
  if (raw === undefined) return { ...defaults }
  const o = object(raw, path)
  onlyKeys(o, Object.keys(defaults), path)
  const out: Record<string, number | null> = { ...(defaults as Record<string, number | null>) }
  for (const [k, v] of Object.entries(o)) out[k] = count(v, `${path}.${k}`, nullable.has(k))
  return out as T
}

function capabilitiesOf(raw: unknown, path: string): TenantCapabilities {
  if (raw === undefined) return {}
  const o = object(raw, path)
  onlyKeys(o, ['fetch', 'llm'], path)
  const caps: TenantCapabilities = {}
  if (o.fetch !== undefined) {
    const f = object(o.fetch, `${path}.fetch`)
    onlyKeys(f, ['allowedHosts', 'allowPrivateHosts'], `${path}.fetch`)
    caps.fetch = { allowedHosts: strings(f.allowedHosts, `${path}.fetch.allowedHosts`) }
    if (f.allowPrivateHosts !== undefined) caps.fetch.allowPrivateHosts = strings(f.allowPrivateHosts, `${path}.fetch.allowPrivateHosts`)
  }
  if (o.llm !== undefined) {
    const l = object(o.llm, `${path}.llm`)
    onlyKeys(l, ['baseUrl', 'model', 'apiKeyEnv'], `${path}.llm`)
    caps.llm = { baseUrl: text(l.baseUrl, `${path}.llm.baseUrl`) }
    if (l.model !== undefined) caps.llm.model = text(l.model, `${path}.llm.model`)
    if (l.apiKeyEnv !== undefined) caps.llm.apiKeyEnv = text(l.apiKeyEnv, `${path}.llm.apiKeyEnv`)
  }
  return caps
}

const TENANT_ID = /^[A-Za-z0-9_.-]{1,64}$/
const SHA256_HEX = /^[0-9a-f]{64}$/

function tenantOf(raw: unknown, path: string): TenantConfig {
  const o = object(raw, path)
  onlyKeys(o, ['id', 'tokenSha256', 'context', 'limits', 'capabilities', 'atoms', 'plan'], path)
  if (typeof o.id !== 'string' || !TENANT_ID.test(o.id)) throw new ServeConfigError(`${path}.id`, 'must be 1-64 letters, digits, _ . or -')
  if (typeof o.tokenSha256 !== 'string' || !SHA256_HEX.test(o.tokenSha256.toLowerCase())) {
    throw new ServeConfigError(`${path}.tokenSha256`, 'must be the hex SHA-256 of the token (64 hex digits), e.g. from `printf %s "$TOKEN" | sha256sum`')
  }
  const tenant: TenantConfig = {
    id: o.id,
    tokenSha256: o.tokenSha256.toLowerCase(),
    context: o.context === undefined ? {} : structuredClone(object(o.context, `${path}.context`)),
    limits: limitsOf(o.limits, DEFAULT_TENANT_LIMITS, new Set(['fuelPerDay', 'requestsPerMinute', 'concurrentRuns']), `${path}.limits`),
    capabilities: capabilitiesOf(o.capabilities, `${path}.capabilities`),
  }
  // An empty list is allowed: a tenant that may call none of the server's custom atoms.
  if (o.atoms !== undefined) tenant.atoms = [...new Set(strings(o.atoms, `${path}.atoms`))]
  if (o.plan !== undefined) {
    try {
      tenant.plan = parsePlanPolicy(o.plan, `${path}.plan`)
    } catch (e) {
      const m = /^([^:]+): (.*)$/s.exec((e as Error).message)
      throw new ServeConfigError(m?.[1] ?? `${path}.plan`, m?.[2] ?? (e as Error).message)
    }
  }
  return tenant
}

/** The top-level `atoms`: module paths (never bare names: the server needs the atoms' code), made absolute. */
function atomModulesOf(raw: unknown, baseDir: string): string[] {
  if (raw === undefined) return []
  const items = strings(raw, 'config.atoms')
  items.forEach((item, i) => {
    if (!isModuleItem(item)) {
      throw new ServeConfigError(`config.atoms[${i}]`, `"${item}" is not a module path: the server needs the atoms themselves, so name the module that exports them (e.g. "./atoms.mjs")`)
    }
  })
  return [...new Set(items.map((item) => resolve(baseDir, item)))]
}

function stringMap(v: unknown, path: string): Record<string, string> {
  const o = object(v, path)
  for (const [k, x] of Object.entries(o)) if (typeof x !== 'string') throw new ServeConfigError(`${path}.${k}`, 'must be a string')
  return { ...o } as Record<string, string>
}

/** The top-level `mcp`: servers as `{ command, args?, env?, cwd? }` or `{ url, headers? }`, with prefix, include, timeoutMs, approval. */
export function mcpServersOf(raw: unknown, baseDir: string, at = 'config.mcp'): McpServerConfig[] {
  if (raw === undefined) return []
  if (!Array.isArray(raw)) throw new ServeConfigError(at, 'must be an array of MCP servers ({ "command": ..., "args": [...] } or { "url": ... })')
  return raw.map((item, i) => {
    const path = `${at}[${i}]`
    const o = object(item, path)
    onlyKeys(o, ['command', 'args', 'env', 'cwd', 'url', 'headers', 'prefix', 'include', 'timeoutMs', 'approval'], path)
    if ((o.command === undefined) === (o.url === undefined)) throw new ServeConfigError(path, 'needs exactly one of "command" (stdio) and "url" (streamable HTTP)')
    const out: McpServerConfig = {}
    if (o.command !== undefined) {
      out.command = text(o.command, `${path}.command`)
      if (o.args !== undefined) out.args = Array.isArray(o.args) && o.args.every((a) => typeof a === 'string') ? [...o.args] as string[] : (() => { throw new ServeConfigError(`${path}.args`, 'must be an array of strings') })()
      if (o.env !== undefined) out.env = stringMap(o.env, `${path}.env`)
      out.cwd = resolve(baseDir, o.cwd === undefined ? '.' : text(o.cwd, `${path}.cwd`))
    } else {
      const url = text(o.url, `${path}.url`)
      try { new URL(url) } catch { throw new ServeConfigError(`${path}.url`, `"${url}" is not a URL`) }
      out.url = url
      if (o.headers !== undefined) out.headers = stringMap(o.headers, `${path}.headers`)
    }
    if (o.prefix !== undefined) out.prefix = text(o.prefix, `${path}.prefix`)
    if (o.include !== undefined) out.include = strings(o.include, `${path}.include`)
    if (o.timeoutMs !== undefined) {
      if (typeof o.timeoutMs !== 'number' || !Number.isInteger(o.timeoutMs) || o.timeoutMs < 0) throw new ServeConfigError(`${path}.timeoutMs`, 'must be an integer >= 0')
      out.timeoutMs = o.timeoutMs
    }
    if (o.approval !== undefined) {
      if (Array.isArray(o.approval)) out.approval = strings(o.approval, `${path}.approval`)
      else if (o.approval === 'destructive' || o.approval === 'all' || o.approval === 'none') out.approval = o.approval
      else throw new ServeConfigError(`${path}.approval`, 'must be "destructive", "all", "none" or a list of tool names')
    }
    return out
  })
}

/** Validate a parsed config file; throws ServeConfigError naming the path of the first problem. */
export function parseServeConfig(raw: unknown, options: ParseServeConfigOptions = {}): ServeConfig {
  const o = object(raw, 'config')
  onlyKeys(o, ['tenants', 'limits', 'atoms', 'mcp', 'operatorTokenSha256', 'budgetTokens'], 'config')
  if (!Array.isArray(o.tenants) || o.tenants.length === 0) throw new ServeConfigError('config.tenants', 'must be a non-empty array')
  const tenants = o.tenants.map((t, i) => tenantOf(t, `config.tenants[${i}]`))
  const ids = new Set<string>()
  const hashes = new Set<string>()
  tenants.forEach((t, i) => {
    if (ids.has(t.id)) throw new ServeConfigError(`config.tenants[${i}].id`, `duplicate tenant id "${t.id}"`)
    if (hashes.has(t.tokenSha256)) throw new ServeConfigError(`config.tenants[${i}].tokenSha256`, 'two tenants share a token')
    ids.add(t.id)
    hashes.add(t.tokenSha256)
  })
  const limits = limitsOf(o.limits, DEFAULT_SERVER_LIMITS, new Set(), 'config.limits')
  const atoms = atomModulesOf(o.atoms, options.baseDir ?? process.cwd())
  const mcp = mcpServersOf(o.mcp, options.baseDir ?? process.cwd())
  let operatorTokenSha256: string | undefined
  if (o.operatorTokenSha256 !== undefined) {
    if (typeof o.operatorTokenSha256 !== 'string' || !SHA256_HEX.test(o.operatorTokenSha256.toLowerCase())) throw new ServeConfigError('config.operatorTokenSha256', 'must be the hex SHA-256 of the operator token (64 hex digits)')
    operatorTokenSha256 = o.operatorTokenSha256.toLowerCase()
    if (hashes.has(operatorTokenSha256)) throw new ServeConfigError('config.operatorTokenSha256', 'the operator token must differ from every tenant\'s')
  }
  let budgetTokens: BudgetTokensConfig | undefined
  if (o.budgetTokens !== undefined) {
    try {
      budgetTokens = parseBudgetTokensConfig(o.budgetTokens)
    } catch (e) {
      const m = /^([^:]+): (.*)$/s.exec((e as Error).message)
      throw new ServeConfigError(m?.[1] ?? 'config.budgetTokens', m?.[2] ?? (e as Error).message)
    }
  }
  return deepFreeze({ tenants, limits, atoms, ...(mcp.length > 0 ? { mcp } : {}), ...(operatorTokenSha256 ? { operatorTokenSha256 } : {}), ...(budgetTokens ? { budgetTokens } : {}) })
}

/** The config with more atom modules (`--atoms` of the command line, resolved from the current directory). */
export function withAtomModules(config: ServeConfig, modules: readonly string[], baseDir: string = process.cwd()): ServeConfig {
  if (modules.length === 0) return config
  const atoms = [...new Set([...config.atoms, ...modules.map((m) => resolve(baseDir, m))])]
  return deepFreeze({ ...config, atoms })
}

/** The config with more MCP servers (`ajsc serve --mcp`). */
export function withMcpServers(config: ServeConfig, servers: readonly McpServerConfig[]): ServeConfig {
  if (servers.length === 0) return config
  return deepFreeze({ ...config, mcp: [...(config.mcp ?? []), ...servers] })
}

/**
 * Every tenant's `atoms` names an atom the server loaded (a typo would
 * otherwise only show when a program calls it). Throws ServeConfigError.
 */
export function checkTenantAtoms(config: ServeConfig, loaded: readonly string[]): void {
  config.tenants.forEach((t, i) => {
    t.atoms?.forEach((name, j) => {
      if (loaded.includes(name)) return
      const have = loaded.length > 0 ? `the loaded ones: ${loaded.join(', ')}` : 'none is loaded: add a module to "atoms" or pass --atoms ./atoms.mjs'
      throw new ServeConfigError(`config.tenants[${i}].atoms[${j}]`, `no custom atom "${name}" (${have})`)
    })
  })
}

/** A one-tenant config for a given token (what `ajsc serve` uses without --config). */
export function singleTenantConfig(token: string, id = 'default'): ServeConfig {
  return parseServeConfig({ tenants: [{ id, tokenSha256: tokenSha256(token) }] })
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const child of Object.values(v)) deepFreeze(child)
    Object.freeze(v)
  }
  return v
}
