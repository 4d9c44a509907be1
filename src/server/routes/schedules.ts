/**
 * Workflow schedules: POST /v1/schedules, GET /v1/schedules (the tenant's, by id), GET | PATCH /v1/schedules/:id,
 * POST /v1/schedules/:id/pause | unpause | trigger | backfill, DELETE /v1/schedules/:id. A schedule starts
 * the workflow POST /v1/workflows would start, on a cron or every N ms (src/server/schedules/).
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { ServerContext } from '../context.ts'
import { HttpError } from '../errors.ts'
import { authErrors, errorBody } from '../schemas.ts'
import type { CreateScheduleBody, UpdateScheduleBody } from '../schedules/service.ts'
import { OVERLAPS, type Overlap } from '../schedules/store.ts'
import { workflowBody } from './workflows.ts'

const { args: _args, ...startFields } = workflowBody.properties
const overlap = { type: 'string', enum: OVERLAPS, description: 'While the run it started last is going: skip (the default: the fire is skipped), bufferOne (one fire waits for it to end, more are skipped), allowAll (start anyway).' } as const
const scheduleId = { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,64}$' } as const
const time = { anyOf: [{ type: 'number' }, { type: 'string', maxLength: 64 }], description: 'ms since the epoch, or an ISO 8601 time.' } as const

const createBody = {
  type: 'object', additionalProperties: false, required: ['workflow', 'spec'],
  properties: {
    id: { ...scheduleId, description: 'The schedule\'s id (1-64 letters, digits, _ . : -); default: a new sch_… id.' },
    workflow: { ...workflowBody, properties: startFields, description: 'What to start: the body of POST /v1/workflows without args (source, name, tags, attributes, budget, retry, timeouts, workflows).' },
    args: { type: 'object', description: 'The workflow\'s `args` at every fire.' },
    spec: {
      description: 'When it fires: { cron, timezone? } (five fields minute-first, or six seconds-first; timezone: IANA, default UTC) or { everyMs } (times that are multiples of everyMs since the epoch).',
      oneOf: [
        { type: 'object', additionalProperties: false, required: ['cron'], properties: { cron: { type: 'string', minLength: 1, maxLength: 200 }, timezone: { type: 'string', minLength: 1, maxLength: 64 } } },
        { type: 'object', additionalProperties: false, required: ['everyMs'], properties: { everyMs: { type: 'integer', minimum: 1 } } },
      ],
    },
    overlap,
    catchupWindowMs: { type: 'integer', minimum: 1000, description: 'Fires missed (the servers were down) by at most this long still fire when they come back, by the overlap policy; older ones are skipped and counted (default 60000).' },
    jitterMs: { type: 'integer', minimum: 0, maximum: 3_600_000, description: 'Each fire starts up to this long after its time (the same delay on every server; the run keeps the nominal time).' },
    paused: { type: 'boolean', description: 'Created paused (no fires until POST …/unpause).' },
    note: { type: 'string', maxLength: 1000 },
  },
} as const
/** PATCH: POST's fields but the id, each optional (at least one). */
const { id: _id, ...patchFields } = createBody.properties
const patchBody = {
  type: 'object', additionalProperties: false, minProperties: 1,
  properties: { ...patchFields, paused: { type: 'boolean', description: 'Pause (true) or unpause (false: it fires next at its next time after now).' } },
} as const
const noteBody = { type: 'object', additionalProperties: false, properties: { note: { type: 'string', maxLength: 1000, description: 'Why (shown by GET).' } } } as const
/** A schedule answered with its conflictToken as the ETag, which the If-Match of a PATCH, pause or unpause names. */
const tagged = (reply: FastifyReply, schedule: Record<string, unknown>): Record<string, unknown> => {
  reply.header('etag', `"${String(schedule['conflictToken'])}"`)
  return schedule
}
const ifMatchHeader = {
  type: 'object',
  properties: { 'if-match': { type: 'string', maxLength: 1000, description: 'The schedule\'s ETag (its conflictToken in quotes) as GET answered it: the change is made only if nobody changed the schedule since (409 SCHEDULE_CONFLICT otherwise). Without it, the change is made whatever changed since.' } },
} as const
const backfillBody = {
  type: 'object', additionalProperties: false, required: ['from', 'to'],
  properties: { from: time, to: time, overlap: { ...overlap, description: 'The overlap policy of this backfill (default: the schedule\'s).' } },
} as const
const params = { type: 'object', required: ['id'], properties: { id: scheduleId } } as const
const listQuery = {
  type: 'object', additionalProperties: false,
  properties: { limit: { type: 'string', pattern: '^[0-9]{1,3}$', description: 'Schedules per page: 1 to 100 (default 20).' }, cursor: { type: 'string', maxLength: 200, description: 'The `nextCursor` of the previous page.' } },
} as const

const scheduleAnswer = '{ id, workflow, args, spec, overlap, catchupWindowMs, jitterMs, paused, note?, createdAt, updatedAt, revision, revisedAt?, conflictToken (also the ETag header; changed by PATCH, pause and unpause), nextFireTimes, nextFireAt (the first one with its jitter; null: paused or none), lastRunId?, buffered?, counts: { started, skipped: { <reason>: n } }, lastAction (actions[0], or null), outsideLimits? ({ code: SCHEDULE_OUTSIDE_LIMITS, message, hint }: active on a spec the tenant\'s limits.minScheduleIntervalMs, raised since it was set, no longer allows), actions: [{ at, nominalAt, via, outcome: started|skipped|buffered, runId?, reason?, message? }] } (actions: the last 20, newest first).'
const outsideLimits = { description: 'The schedule would be left active (not paused) on a spec it kept that the tenant\'s limits.minScheduleIntervalMs, raised since it was set, no longer allows (SCHEDULE_OUTSIDE_LIMITS).', schema: errorBody }
const notFound = { 404: { description: 'No such schedule for this tenant.', schema: errorBody } }
const conflict = 'If-Match names a version the schedule no longer is: someone changed it since (SCHEDULE_CONFLICT)'

export function scheduleRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const schedules = () => {
    if (!ctx.schedules) throw new HttpError('NOT_AVAILABLE', 'Workflow schedules are not available in this build of the server')
    return ctx.schedules
  }

  app.post<{ Body: CreateScheduleBody }>('/v1/schedules', {
    schema: { summary: 'Create a schedule that starts a workflow on a cron or every N ms', body: createBody },
    config: { responses: {
      201: { description: `The schedule: ${scheduleAnswer}` },
      400: { description: 'A bad body (BAD_REQUEST), cron (SCHEDULE_INVALID), time zone (SCHEDULE_TIMEZONE), fires closer than limits.minScheduleIntervalMs (SCHEDULE_TOO_FREQUENT), or workflow (as POST /v1/workflows).', schema: errorBody },
      409: { description: 'The tenant has a schedule of this id (SCHEDULE_EXISTS).', schema: errorBody },
      422: { description: 'The workflow\'s program is refused (as POST /v1/workflows).', schema: errorBody },
      ...authErrors,
    } },
  }, async (req, reply) => reply.code(201).send(tagged(reply, await schedules().create(req.tenant!.id, req.body))))

  app.get<{ Querystring: { limit?: string; cursor?: string } }>('/v1/schedules', {
    schema: { summary: 'The tenant\'s schedules, by id, a page at a time', querystring: listQuery },
    config: { responses: { 200: { description: '{ items: [the schedule with its lastAction (what it did last: at, nominalAt, via, outcome, runId? of the run it started, reason? the code of a skip, message?; null: nothing yet) and nextFireAt and outsideLimits? as GET has them, without its actions and its workflow\'s source and modules], nextCursor? }: one read of the store per page.' }, 400: { description: 'A bad limit or cursor.', schema: errorBody }, ...authErrors } },
  }, async (req) => schedules().list(req.tenant!.id, req.query))

  app.get<{ Params: { id: string } }>('/v1/schedules/:id', {
    schema: { summary: 'A schedule: its spec, next fire times, counts and last actions with the runs they started', params },
    config: { responses: { 200: { description: scheduleAnswer }, ...notFound, ...authErrors } },
  }, async (req, reply) => tagged(reply, await schedules().get(req.tenant!.id, req.params.id)))

  app.patch<{ Params: { id: string }; Body: UpdateScheduleBody; Headers: { 'if-match'?: string } }>('/v1/schedules/:id', {
    schema: { summary: 'Change a schedule: the fields given (as POST takes them, but the id) replace its own, all or none; a new spec fires next at its first time after now', params, body: patchBody, headers: ifMatchHeader },
    config: { responses: {
      200: { description: `The schedule, its revision one more: ${scheduleAnswer}` },
      400: { description: 'As POST: a bad body (BAD_REQUEST), cron (SCHEDULE_INVALID), time zone (SCHEDULE_TIMEZONE), fires closer than limits.minScheduleIntervalMs (SCHEDULE_TOO_FREQUENT), or workflow.', schema: errorBody },
      409: { description: `${conflict}; or ${outsideLimits.description}`, schema: errorBody },
      422: { description: 'The workflow\'s program is refused (as POST /v1/workflows).', schema: errorBody },
      ...notFound, ...authErrors,
      429: { description: 'Over the tenant\'s request rate (RATE_LIMITED), or the changed schedule would take it over limits.maxScheduleBytes (STORE_QUOTA_EXCEEDED).', schema: errorBody },
    } },
  }, async (req, reply) => tagged(reply, await schedules().update(req.tenant!.id, req.params.id, req.body, req.headers['if-match'])))

  app.delete<{ Params: { id: string } }>('/v1/schedules/:id', {
    schema: { summary: 'Delete a schedule (the runs it started go on)', params },
    config: { responses: { 204: { description: 'Deleted.' }, ...notFound, ...authErrors } },
  }, async (req, reply) => {
    await schedules().delete(req.tenant!.id, req.params.id)
    return reply.code(204).send()
  })

  app.post<{ Params: { id: string }; Body: { note?: string }; Headers: { 'if-match'?: string } }>('/v1/schedules/:id/pause', {
    schema: { summary: 'Pause a schedule: no fires until it is unpaused', params, body: noteBody, headers: ifMatchHeader },
    config: { bodyOptional: true, responses: { 200: { description: 'The schedule.' }, 409: { description: conflict, schema: errorBody }, ...notFound, ...authErrors } },
  }, async (req, reply) => tagged(reply, await schedules().pause(req.tenant!.id, req.params.id, req.body.note, req.headers['if-match'])))

  app.post<{ Params: { id: string }; Body: { note?: string }; Headers: { 'if-match'?: string } }>('/v1/schedules/:id/unpause', {
    schema: { summary: 'Unpause a schedule: it fires next at its next time after now (fires missed while paused are not run)', params, body: noteBody, headers: ifMatchHeader },
    config: { bodyOptional: true, responses: { 200: { description: 'The schedule.' }, 409: { description: `${conflict}; or ${outsideLimits.description}`, schema: errorBody }, ...notFound, ...authErrors } },
  }, async (req, reply) => tagged(reply, await schedules().unpause(req.tenant!.id, req.params.id, req.body.note, req.headers['if-match'])))

  app.post<{ Params: { id: string } }>('/v1/schedules/:id/trigger', {
    schema: { summary: 'Fire a schedule now (its nominal time: now), by its overlap policy, paused or not', params },
    config: { responses: { 200: { description: 'The schedule; its newest action says what the fire did.' }, ...notFound, ...authErrors } },
  }, async (req, reply) => tagged(reply, await schedules().trigger(req.tenant!.id, req.params.id)))

  app.post<{ Params: { id: string }; Body: { from: number | string; to: number | string; overlap?: Overlap } }>('/v1/schedules/:id/backfill', {
    schema: { summary: 'Fire each time of the spec from `from` to `to` (past times, both included), in order, by the overlap policy', params, body: backfillBody },
    config: { responses: {
      200: { description: 'The schedule; its newest actions say what each fire did.' },
      400: { description: 'from after to, or to in the future (SCHEDULE_INVALID), or more fires than limits.maxBackfillFires (SCHEDULE_BACKFILL_LIMIT).', schema: errorBody },
      ...notFound, ...authErrors,
    } },
  }, async (req, reply) => tagged(reply, await schedules().backfill(req.tenant!.id, req.params.id, req.body)))
}
