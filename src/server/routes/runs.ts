/** POST /v1/runs, GET /v1/runs (the tenant's async runs), GET /v1/runs/:id, GET /v1/runs/:id/events (Server-Sent Events). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ServerContext } from '../context.ts'
import type { RunBody } from '../runs.ts'
import { authErrors, errorBody, idParams, runBody, runRecord, runResult, runsQuery } from '../schemas.ts'
import type { RunRecord, RunState } from '../stores/types.ts'
import { StopController } from '../stop-signal.ts'
import { BUDGET_HEADER, RECEIPT_HEADER, keepReceipt, renewRequestLease, runLeaseMs, spendRequestToken, takeBudgetCalls } from '../budget.ts'
import { HttpError } from '../errors.ts'
import { listQuerySchema, listRuns, RUN_STATES, type ListParams } from '../listing.ts'

/** How long an SSE stream waits for a run before it gives up (the client may reconnect). */
const EVENTS_MAX_WAIT_MS = 10 * 60_000
const HEARTBEAT_MS = 15_000

/** ?async=1 (or true) on POST /v1/runs: answer 202 at once. */
export const isAsyncQuery = (query: unknown): boolean => {
  const v = (query as { async?: unknown } | null)?.async
  return v === '1' || v === 'true'
}

const publicRecord = (r: RunRecord) => {
  const out: Record<string, unknown> = { id: r.id, state: r.state, createdAt: r.createdAt }
  if (r.startedAt !== undefined) out['startedAt'] = r.startedAt
  if (r.finishedAt !== undefined) out['finishedAt'] = r.finishedAt
  if (r.result !== undefined) out['result'] = r.result
  return out
}

const runList = {
  type: 'object',
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object', required: ['id', 'state', 'createdAt'],
        properties: { id: { type: 'string' }, state: { type: 'string', enum: ['queued', 'running', 'done'] }, createdAt: { type: 'number' }, startedAt: { type: 'number' }, finishedAt: { type: 'number' }, fuelUsed: { type: 'number' }, error: { type: 'string' } },
      },
    },
    nextCursor: { type: 'string' },
  },
} as const

/** A stop signal raised when the client goes away before its answer is written (the pool stops the run). */
function untilGone(reply: FastifyReply): StopController {
  const gone = new StopController()
  const res = reply.raw
  // on, not once: 'close' comes once per response, and once would wrap the listener in another closure.
  res.on('close', () => { if (!res.writableEnded) gone.abort() })
  return gone
}

export function runRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post<{ Body: RunBody; Querystring: { async?: string } }>('/v1/runs', {
    schema: { summary: 'Run a program (AST, source or procedure token); with header x-ajs-budget, under a budget token, answered with x-ajs-budget-receipt', body: runBody, querystring: runsQuery },
    config: {
      responses: {
        200: { description: 'The RunResult (also when the program failed: the error is in the result).', schema: runResult },
        202: { description: 'With ?async=1: the run was accepted.', schema: { type: 'object', properties: { id: { type: 'string' } } } },
        400: { description: 'Malformed body (BAD_REQUEST).', schema: errorBody },
        403: { description: 'A budget token (header x-ajs-budget) that is forged, changed or expired (BUDGET_TOKEN_INVALID, BUDGET_TOKEN_EXPIRED).', schema: errorBody },
        404: { description: 'Unknown procedure token (NOT_FOUND).', schema: errorBody },
        409: { description: 'A budget token already spent: by a run that has ended (BUDGET_TOKEN_ANSWERED, with that run\'s receipt in x-ajs-budget-receipt: a retry settles it), by a run still going (BUDGET_TOKEN_IN_FLIGHT; Retry-After: when its lease ends), by a run lost with its server past its lease (BUDGET_TOKEN_LOST, with a receipt of the whole grant; also the answer of a run whose lease a retry found passed before the run started: it is not started), or whose receipt was not kept (BUDGET_TOKEN_REPLAYED).', schema: errorBody },
        413: { description: 'Body too large (BODY_TOO_LARGE).', schema: errorBody },
        422: { description: 'The program or arguments are refused (AST_INVALID, AST_TOO_DEEP, ARGS_INVALID, AJS1xxx, ...).', schema: errorBody },
        ...authErrors,
        501: { description: 'A budget token sent to a server without budgetTokens in its config (NOT_AVAILABLE).', schema: errorBody },
        503: { description: 'Pool queue full (QUEUE_FULL); see Retry-After.', schema: errorBody },
      },
    },
  }, (req, reply) => {
    const budgetHeader = req.headers[BUDGET_HEADER]
    // The common case, a run answered now without a budget token: runNow's promise is the answer
    // (no async wrapper around it, no await of a token that is not there).
    if (budgetHeader === undefined && !isAsyncQuery(req.query)) return ctx.runs.runNow(req.tenant!, req.body, untilGone(reply), req.rawAst, req.astUnparsed)
    return runOtherwise(req, reply, budgetHeader)
  })

  const runOtherwise = async (req: FastifyRequest<{ Body: RunBody; Querystring: { async?: string } }>, reply: FastifyReply, budgetHeader: string | string[] | undefined) => {
    const tenant = req.tenant!
    if (isAsyncQuery(req.query)) {
      if (budgetHeader !== undefined) throw new HttpError('BAD_REQUEST', `A budget token (header ${BUDGET_HEADER}) pays for a run answered now: send it without ?async=1`)
      const id = await ctx.runs.start(tenant, req.body, req.rawAst)
      return reply.code(202).header('location', `/v1/runs/${id}`).send({ id })
    }
    // A retry of a token whose run has ended is answered with that run's receipt (409 BUDGET_TOKEN_ANSWERED), of one
    // whose run was lost (past its lease, no receipt) with a receipt of the whole grant (409 BUDGET_TOKEN_LOST).
    const graceMs = ctx.config.budgetTokens?.leaseGraceMs ?? 0
    const lease = ctx.config.budgetTokens && runLeaseMs(req.body?.options?.timeoutMs, tenant.config.limits.timeoutMs, graceMs)
    const answered = (receipt: string) => reply.header(RECEIPT_HEADER, receipt)
    const spentAt = ctx.budget?.now() ?? 0
    const grant = await spendRequestToken(ctx.budget, budgetHeader, answered, lease, () => ctx.metrics.budgetTokenLost(tenant.id)).catch((e) => {
      // The operator's trace of a run that died with its server (each retry of its token says so again).
      if (e instanceof HttpError && e.code === 'BUDGET_TOKEN_LOST') req.log.warn({ tenant: tenant.id }, `budget tokens: ${e.message}`)
      throw e
    })
    const gone = untilGone(reply)
    if (!grant) return ctx.runs.runNow(tenant, req.body, gone, req.rawAst, req.astUnparsed)
    // The receipt of what the run used goes back with every answer, a refusal included (then nothing was used),
    // and is kept with the spent token for a retry, before the answer leaves. A run found lost before it
    // started is answered with the receipt its retry was given, and nothing is kept.
    let used = 0
    let calls: Record<string, number> = {}
    let lost = false
    // Admission may have waited (a stored program or the day's fuel read from the database): the lease
    // runs from the run's start, with the time limit it was admitted with.
    const foundLost = (receipt: string) => {
      lost = true
      answered(receipt)
      req.log.warn({ tenant: tenant.id }, `budget tokens: the run of ${grant.id} was not started: a retry found its lease passed while it waited to be admitted`)
    }
    const starting = (task: { timeoutMs: number }) => renewRequestLease(ctx.budget!, grant, spentAt, task.timeoutMs, graceMs, foundLost,
      (e) => req.log.error({ err: e }, 'budget tokens: the lease of a spent token was not renewed as its run started'))
    try {
      const result = await ctx.runs.runNow(tenant, req.body, gone, req.rawAst, req.astUnparsed, grant, starting)
      used = result.fuelUsed
      calls = takeBudgetCalls(result, grant)
      return result
    } finally {
      if (!lost) {
        const receipt = ctx.budget!.receipt(grant, used, calls)
        reply.header(RECEIPT_HEADER, receipt)
        await keepReceipt(ctx.budget!, grant, receipt, (e) => req.log.error({ err: e }, 'budget tokens: the receipt of a spent token was not kept'))
      }
    }
  }

  app.get<{ Querystring: ListParams<RunState> }>('/v1/runs', {
    schema: { summary: 'The tenant\'s async runs, newest first, a page at a time (state filter, opaque cursor)', querystring: listQuerySchema(RUN_STATES) },
    config: {
      responses: {
        200: { description: '{ items: [{ id, state, createdAt, startedAt?, finishedAt?, fuelUsed?, error? }], nextCursor? } (error: the failed run\'s code; nextCursor: absent on the last page).', schema: runList },
        400: { description: 'A bad state, limit (1 to 100) or cursor (BAD_REQUEST).', schema: errorBody },
        ...authErrors,
      },
    },
  }, async (req) => listRuns(ctx.stores.runs, req.tenant!.id, req.query))

  app.get<{ Params: { id: string } }>('/v1/runs/:id', {
    schema: { summary: 'A run\'s state and result', params: idParams },
    config: { responses: { 200: { description: 'The run.', schema: runRecord }, 404: { description: 'No such run for this tenant.', schema: errorBody }, ...authErrors } },
  }, async (req) => publicRecord(await ctx.runs.get(req.tenant!, req.params.id)))

  app.get<{ Params: { id: string } }>('/v1/runs/:id/events', {
    schema: { summary: 'Server-Sent Events: the run\'s state, its trace entries and its result', params: idParams },
    config: {
      responses: {
        200: { description: 'text/event-stream: `state` events, then one `trace` event per trace entry (runs with options.trace), then `result` (the RunResult without its trace).', contentType: 'text/event-stream' },
        404: { description: 'No such run for this tenant.', schema: errorBody },
        ...authErrors,
      },
    },
  }, async (req, reply) => {
    const tenant = req.tenant!
    const first = await ctx.runs.get(tenant, req.params.id)
    reply.hijack()
    const res = reply.raw
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' })
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    const gone = new AbortController()
    res.once('close', () => gone.abort())
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS)
    try {
      send('state', { id: first.id, state: first.state })
      let rec = first
      const until = Date.now() + EVENTS_MAX_WAIT_MS
      let lastState = rec.state
      while (rec.state !== 'done' && !gone.signal.aborted && Date.now() < until) {
        rec = await ctx.runs.waitDone(tenant, rec.id, Math.min(until - Date.now(), 5_000), gone.signal)
        if (rec.state !== lastState) {
          lastState = rec.state
          if (rec.state !== 'done') send('state', { id: rec.id, state: rec.state })
        }
      }
      if (rec.state === 'done' && rec.result && !gone.signal.aborted) {
        send('state', { id: rec.id, state: 'done' })
        const { trace, ...result } = rec.result
        for (const entry of trace ?? []) send('trace', entry)
        send('result', result)
      }
    } finally {
      clearInterval(heartbeat)
      res.end()
    }
  })
}
