/**
 * `createServer`: the HTTP API (fastify 5) over the run pool and the
 * stores. One error channel: every failure becomes an HttpError with a
 * stable code, answered as `{ error }`, counted in /metrics.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type onRequestHookHandler } from 'fastify'
import type { ServerContext } from './context.ts'
import { HttpError } from './errors.ts'
import { Metrics } from './metrics.ts'
import { OpenApiCollector } from './openapi.ts'
import type { RunPool } from './pool/pool.ts'
import { createHost, type Host, type HostOptions } from './host.ts'
import { loadServerAtoms } from './atoms.ts'
import { RunService, astKey, localExecutor, type RunExecutor } from './runs.ts'
import { procedureRoutes } from './routes/procedures.ts'
import { isAsyncQuery, runRoutes } from './routes/runs.ts'
import { systemRoutes } from './routes/system.ts'
import { workflowRoutes } from './routes/workflows.ts'
import { scheduleRoutes } from './routes/schedules.ts'
import { ScheduleService } from './schedules/service.ts'
import { ScheduleLoop } from './schedules/loop.ts'
import { MemoryScheduleStore, type ScheduleStore } from './schedules/store.ts'
import { systemClock, type SchedulerClock } from '../flows/schedule/scheduler.ts'
import { inspectorRoutes } from './inspector/index.ts'
import type { ServerStores } from './stores/types.ts'
import type { Tenants } from './tenants.ts'
import { workflowsBackend, type WorkflowRoutesBackend } from './workflows.ts'
import { packageVersion } from '../host/version.ts'
import { moduleUrl } from './module-url.ts'
import { scanJson, SeenValues } from './raw-json.ts'
import { planGate } from './plan-gate.ts'
import { missingBodyHook } from './body.ts'
import { schemaRefusal, type SchemaError } from './validation.ts'

export interface ServeOptions extends HostOptions {
  /** A host built by the caller (distributed mode shares it with the job runner); default: one from these options. */
  host?: Host
  /** Where runs execute; default: this process's pool. */
  executor?: (host: Host) => RunExecutor
  workflows?: (host: Host) => WorkflowRoutesBackend | undefined
  /** Log requests (pino, JSON lines on stdout). Default false. */
  logger?: boolean
  /** Extra facts for /healthz. */
  health?: () => Record<string, unknown>
  /** Called by close() after the HTTP server and the pool stop. */
  onClose?: () => Promise<void>
  /** Workflow schedules: where they are kept (default in memory), the clock firing reads (default the real one), how often it looks (ms, default 1000). */
  schedules?: ScheduleOptions
}

export interface ScheduleOptions {
  store?: (host: Host) => ScheduleStore
  clock?: SchedulerClock
  pollMs?: number
}

export interface AjsServer {
  app: FastifyInstance
  pool: RunPool
  context: ServerContext
  /** Start listening; resolves to the base URL (e.g. http://127.0.0.1:8787). */
  listen(options?: { host?: string; port?: number }): Promise<string>
  close(): Promise<void>
}

/** Codes of fastify's own errors, mapped to ours. */
const FASTIFY_CODES: Record<string, HttpError['code']> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BAD_REQUEST',
  FST_ERR_CTP_INVALID_JSON_BODY: 'BAD_REQUEST',
}

function toHttpError(err: FastifyError | HttpError | Error, req: FastifyRequest): HttpError {
  if (err instanceof HttpError) return err
  const fe = err as FastifyError
  if (fe.validation) return schemaRefusal(fe.validation as SchemaError[], fe.validationContext, { method: req.method, url: req.routeOptions.url })
  const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined
  if (mapped) return new HttpError(mapped, mapped === 'BAD_REQUEST' ? `Invalid request: ${fe.message}` : undefined)
  if (err instanceof SyntaxError || (fe.statusCode === 400)) return new HttpError('BAD_REQUEST', `Invalid request: ${err.message}`)
  return new HttpError('SERVER_ERROR')
}

/** Deepest JSON nesting of a request body: room for the deepest AST the server accepts (an AST level takes up to 2 JSON levels). */
export const maxRequestDepth = (maxAstDepth: number): number => 4 * maxAstDepth + 64

/** Whether `v` nests deeper than `max` (arrays and objects), without recursion. */
export function jsonDepthOver(v: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[v, 0]]
  while (stack.length > 0) {
    const [x, d] = stack.pop()!
    if (x === null || typeof x !== 'object') continue
    if (d >= max) return true
    for (const child of Array.isArray(x) ? x : Object.values(x)) if (child !== null && typeof child === 'object') stack.push([child, d + 1])
  }
  return false
}

export async function createServer(options: ServeOptions): Promise<AjsServer> {
  const { config } = options
  const maxBodyDepth = maxRequestDepth(config.limits.maxAstDepth)
  // Atom modules are imported before anything starts: a broken one fails createServer with the CLI's error.
  const host = options.host ?? createHost({ ...options, atoms: options.atoms ?? await loadServerAtoms(config) })
  const { stores, tenants, procedures, pool } = host
  const metrics = new Metrics()
  const executor = options.executor ? options.executor(host) : localExecutor(pool, stores)
  const runs = new RunService({ stores, tenants, metrics, limits: config.limits, executor, plan: planGate(pool, tenants) })
  const workflows = options.workflows ? options.workflows(host) : workflowsBackend(host)
  const version = packageVersion(moduleUrl(import.meta.url))
  const clock = options.schedules?.clock ?? systemClock
  const schedules = workflows ? new ScheduleService(options.schedules?.store?.(host) ?? new MemoryScheduleStore(), workflows, tenants, clock, (tenant, a) => metrics.scheduleAction(tenant, a.outcome)) : undefined
  const scheduleLoop = schedules && new ScheduleLoop(schedules, clock, options.schedules?.pollMs, (e) => app.log.error(e))
  const context: ServerContext = {
    config, tenants, stores, runs, procedures, metrics, workflows, version, ...(host.budget ? { budget: host.budget } : {}),
    ...(schedules ? { schedules, scheduleLoop: scheduleLoop! } : {}),
    health: () => ({ pool: { threads: pool.size, queued: pool.queueSize }, ...options.health?.() }),
  }

  host.onBudgetTokenLost((tenant) => metrics.budgetTokenLost(tenant))
  metrics.gauge('ajs_pool_queue_size', 'Runs waiting for a free worker.', () => [{ value: pool.queueSize }])
  metrics.gauge('ajs_pool_threads', 'Worker threads in the pool.', () => [{ value: pool.size }])
  metrics.gauge('ajs_pool_workers_terminated', 'Workers terminated because a run ignored its interrupt (since start).', () => [{ value: pool.terminated }])
  metrics.gauge('ajs_workflow_threads_recycled', 'Workflow threads terminated because a step overran its time or memory (since start); their other workflows replay once.', () => [{ value: pool.workflows.recycled }])
  metrics.gauge('ajs_pool_long_runs_deprioritized', 'Runs whose thread got a lower CPU priority for running long (since start).', () => [{ value: pool.deprioritized }])
  metrics.gauge('ajs_pool_handoff_messages', 'Messages between the event loop and the run threads (since start): out carries runs to the threads, back their outcomes.', () => [
    { labels: { direction: 'out' }, value: pool.handoffs.sent.messages }, { labels: { direction: 'back' }, value: pool.handoffs.received.messages }])
  metrics.gauge('ajs_pool_handoff_jobs', 'Runs (and compilations) those messages carried (since start); divided by ajs_pool_handoff_messages: runs per message.', () => [
    { labels: { direction: 'out' }, value: pool.handoffs.sent.jobs }, { labels: { direction: 'back' }, value: pool.handoffs.received.jobs }])
  metrics.gauge('ajs_runs_in_progress', 'Runs admitted and not finished, by tenant.', () => tenants.all.map((t) => ({ labels: { tenant: t.id }, value: t.inFlight })))

  /** Every answer outside 2xx: counted in /metrics, sent as `{ error }`. */
  function refuse(http: HttpError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
    metrics.refused(req.tenant?.id ?? '', http.agentError?.code ?? http.code)
    if (http.retryAfter !== undefined) reply.header('retry-after', String(http.retryAfter))
    if (http.status === 401) reply.header('www-authenticate', 'Bearer')
    return reply.code(http.status).send(http.toBody())
  }
  const app = Fastify({
    logger: options.logger === true,
    bodyLimit: config.limits.maxBodyBytes,
    // Unknown keys are refused, never silently dropped; nothing is coerced. verbose: a refusal
    // carries the schema and the value it broke, for its message (validation.ts); only the code building an error changes.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, verbose: true } },
    return503OnClosing: true,
    forceCloseConnections: true,
    // A path parameter's own schema bounds it (200 characters, as decoded); the router's bound
    // (raw, so up to 3 bytes a character) stays out of its way, so the schema's refusal is the one sent.
    routerOptions: { maxParamLength: 600 },
    // A path the router cannot take (a parameter longer still, a bad %-escape) answers as every refusal does.
    frameworkErrors: (err, req, reply) => refuse(new HttpError('BAD_REQUEST', err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `Invalid request: a path parameter of ${req.method} ${req.url.split('?')[0]!.slice(0, 80)}… is longer than 600 characters`
      : `Invalid request: ${err.message}`), req, reply),
  })
  app.decorateRequest('tenant', null)
  app.decorateRequest('rawAst', undefined)
  app.decorateRequest('astUnparsed', false)
  app.decorateRequest('runRoute', false)
  // Bodies are JSON only (415 otherwise). POST /v1/runs passes the AST on as the text sent; the rest
  // of the body's text is not kept (a request holding it would carry 7.7 KB through every scavenge).
  app.removeContentTypeParser(['text/plain', 'application/json'])
  // A tenant's ASTs sent again (with other args) are not scanned again: see SeenValues.
  const seenAsts = new SeenValues()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string
    // Content-Type: application/json and nothing sent is a request without a body (body.ts decides per route).
    if (text.length === 0) {
      done(null, undefined)
      return
    }
    // Depth is bounded where data enters: nothing later (validation, cloning, rewriting) recurses deeper.
    // One pass over the text measures it and finds the AST's text (no walk of the parsed value).
    const scan = scanJson(text, maxBodyDepth, 'ast', req.tenant ? { values: seenAsts, owner: req.tenant.id } : undefined)
    const seen = scan.seen
    if (seen) seen.key ??= astKey(seen.text)
    req.rawAst = seen ? { text: seen.text, key: seen.key! } : scan.member !== undefined ? { text: scan.member } : undefined
    // A run answered now: its AST goes to a worker as the text sent and is parsed there, so here
    // only the rest of the body is (the AST's place holds {}). A worker that finds the text is not
    // JSON gets the request the same 400 (RunService.runNow): the body is JSON exactly when both parts are.
    const deferAst = scan.member !== undefined && !scan.tooDeep && req.runRoute && !isAsyncQuery(req.query)
    let value: unknown
    try {
      value = JSON.parse(deferAst ? text.slice(0, scan.start) + '{}' + text.slice(scan.end) : text)
    } catch (e) {
      done(new HttpError('BAD_REQUEST', `Invalid request: the body is not JSON (${(e as Error).message})`), undefined)
      return
    }
    if (scan.tooDeep) {
      done(new HttpError('REQUEST_TOO_DEEP', `The request body nests deeper than ${maxBodyDepth} levels`), undefined)
      return
    }
    if (deferAst) {
      const placeholder = (value as { ast?: unknown } | null)?.ast
      if (placeholder !== null && typeof placeholder === 'object' && !Array.isArray(placeholder) && Object.keys(placeholder).length === 0) req.astUnparsed = true
      else value = JSON.parse(text)
    }
    done(null, value)
  })
  const openapi = new OpenApiCollector()
  app.addHook('onRoute', (route) => openapi.add(route))
  // A missing body: {} for a route whose body is all optional, a 400 naming what it needs otherwise (body.ts).
  app.addHook('onRoute', (route) => {
    const hook = missingBodyHook(route)
    if (!hook) return
    const own = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation]
    route.preValidation = [hook, ...own]
  })

  // Auth and the rate limit: a hook of each route that needs a token, chosen when the route is
  // added (a global hook would read req.routeOptions, an object fastify builds at each read). A
  // callback hook, not an async one: no promise and no microtask turn per request.
  const authenticate = (req: FastifyRequest, done: (e?: Error) => void) => {
    try {
      const tenant = tenants.authenticate(req.headers.authorization)
      req.tenant = tenant
      tenants.limitRate(tenant)
    } catch (e) {
      done(e as Error)
      return
    }
    done()
  }
  const authHook: onRequestHookHandler = (req, _reply, done) => authenticate(req, done)
  const runAuthHook: onRequestHookHandler = (req, _reply, done) => {
    req.runRoute = true
    authenticate(req, done)
  }
  app.addHook('onRoute', (route) => {
    if (route.config?.auth === false) return
    const hook = route.url === '/v1/runs' && route.method === 'POST' ? runAuthHook : authHook
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
    route.onRequest = [hook, ...own]
  })

  app.setErrorHandler((err: FastifyError | HttpError, req, reply) => {
    const http = toHttpError(err, req)
    if (http.code === 'SERVER_ERROR') req.log.error(err)
    return refuse(http, req, reply)
  })
  app.setNotFoundHandler((req, reply) => {
    const http = new HttpError('ROUTE_NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}`)
    return reply.code(404).send(http.toBody())
  })

  systemRoutes(app, context, openapi)
  runRoutes(app, context)
  procedureRoutes(app, context)
  workflowRoutes(app, context)
  scheduleRoutes(app, context)
  inspectorRoutes(app)

  const prune = setInterval(() => {
    const now = Date.now()
    void stores.procedures.clearExpired(now)
    void stores.runs.prune(now - config.limits.runRetentionMs)
    void workflows?.prune?.(now - config.limits.workflowRetentionMs).catch(() => {})
  }, 60_000)
  prune.unref()

  await app.ready()
  scheduleLoop?.start()
  return {
    app,
    pool,
    context,
    async listen({ host = '127.0.0.1', port = 8787 } = {}) {
      await app.listen({ host, port })
      const addr = app.server.address()
      const p = typeof addr === 'object' && addr ? addr.port : port
      return `http://${host.includes(':') ? `[${host}]` : host}:${p}`
    },
    async close() {
      clearInterval(prune)
      await scheduleLoop?.stop()
      await app.close()
      await workflows?.close?.()
      await options.onClose?.()
      await host.close()
    },
  }
}
