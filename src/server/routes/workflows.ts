/**
 * Durable workflows: POST /v1/workflows, GET /v1/workflows (the tenant's, newest first), GET /v1/workflows/:id,
 * GET /v1/workflows/:id/journal (pages of its journal), POST /v1/workflows/:id/requests/:rid,
 * POST /v1/workflows/:id/retry | signal | cancel, GET /v1/workflows/:id/query/:name,
 * GET /v1/workflows/:id/approvals, POST /v1/workflows/:id/approvals/:aid (code mode: calls of
 * atoms that require approval wait durably on the journal until answered here).
 */
import type { FastifyInstance } from 'fastify'
import type { ServerContext } from '../context.ts'
import { HttpError } from '../errors.ts'
import { authErrors, errorBody, idParams } from '../schemas.ts'
import type { StartWorkflowBody } from '../workflows.ts'
import { journalQuerySchema, workflowListQuerySchema, type WorkflowListParams } from '../listing.ts'
import { SEARCH_LIMITS } from '../../workflows/engine/search.ts'

const retryPolicy = {
  type: 'object',
  description: 'A retry policy (docs/workflows.md#retries): maximumAttempts, initialIntervalMs, backoffCoefficient, maximumIntervalMs, retryableCodes, nonRetryableCodes, and per kind agent / workflow / atom.',
} as const
const retryBody = { type: 'object', additionalProperties: false, properties: { retry: retryPolicy } } as const
const signalBody = {
  type: 'object', additionalProperties: false, required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'What `await signal(name)` waits for.' },
    value: { description: 'The payload the wait gets (JSON).' },
    id: { type: 'string', minLength: 1, maxLength: 200, description: 'Makes sending idempotent: a signal whose id the workflow has is not taken twice.' },
  },
} as const
const approvalBody = {
  type: 'object', additionalProperties: false, required: ['approve'],
  properties: {
    approve: { type: 'boolean', description: 'true: the call runs; false: it throws APPROVAL_REJECTED in the workflow (catchable).' },
    input: { type: 'object', description: 'With approve: the call\'s arguments, edited (checked against the atom\'s input schema).' },
    reason: { type: 'string', maxLength: 1000, description: 'Without approve: why (in the error\'s message).' },
  },
} as const
const approvalParams = { type: 'object', required: ['id', 'aid'], properties: { id: { type: 'string', maxLength: 200 }, aid: { type: 'string', minLength: 1, maxLength: 100 } } } as const
const cancelBody = { type: 'object', additionalProperties: false, properties: { reason: { type: 'string', maxLength: 1000 } } } as const
const queryParams = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string', maxLength: 200 }, name: { type: 'string', minLength: 1, maxLength: 200 } } } as const
export const workflowBody = {
  type: 'object',
  additionalProperties: false,
  required: ['source'],
  description: 'A workflow module (top-level statements; agent(), sleep(), log(), phase()).',
  properties: {
    source: { type: 'string', description: 'The workflow module source.' },
    args: { type: 'object', description: 'The module\'s `args`.' },
    budget: { type: 'integer', minimum: 0, description: 'Agent calls allowed (default unlimited).' },
    retry: retryPolicy,
    timeouts: {
      type: 'object', additionalProperties: false,
      properties: { runMs: { type: 'number', exclusiveMinimum: 0 }, requestMs: { type: 'number', exclusiveMinimum: 0 } },
      description: 'runMs: the run\'s deadline after it starts (WORKFLOW_TIMEOUT past it); requestMs: the default timeout of one attempt of an agent or child-workflow request (TIMEOUT, retried by default). docs/workflows.md#timeouts',
    },
    name: { type: 'string', description: `A name to find the workflow by (GET /v1/workflows?name=; at most ${SEARCH_LIMITS.nameLength} characters).` },
    tags: { type: 'array', items: { type: 'string' }, description: `Tags to find it by (?tag=; at most ${SEARCH_LIMITS.tags} of ${SEARCH_LIMITS.tagLength} characters: letters, digits and _ . : / -).` },
    attributes: {
      type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
      description: `Search attributes (?attr.<name>=<value>; at most ${SEARCH_LIMITS.attributes}, ${SEARCH_LIMITS.attributeBytes} bytes as JSON); the workflow changes them with upsertAttributes({ name: value }). docs/workflows.md#listing-and-search`,
    },
    workflows: {
      type: 'object', maxProperties: 32, propertyNames: { maxLength: 200 }, additionalProperties: { type: 'string' },
      description: 'Modules its `workflow(name, args)` calls may start as child workflows, by name (children get the same).',
    },
  },
} as const
const resolveBody = { type: 'object', additionalProperties: false, required: ['value'], properties: { value: {} } } as const
const requestParams = { type: 'object', required: ['id', 'rid'], properties: { id: { type: 'string', maxLength: 200 }, rid: { type: 'string', maxLength: 200 } } } as const

export function workflowRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const backend = () => {
    if (!ctx.workflows) throw new HttpError('NOT_AVAILABLE', 'Durable workflows are not available in this build of the server')
    return ctx.workflows
  }
  app.post<{ Body: StartWorkflowBody }>('/v1/workflows', {
    schema: { summary: 'Start a durable workflow', body: workflowBody },
    config: { responses: { 201: { description: 'The workflow, created; its first step is scheduled (state running).' }, 400: { description: 'Malformed body.', schema: errorBody }, 422: { description: 'Program refused.', schema: errorBody }, ...authErrors } },
  }, async (req, reply) => reply.code(201).send(await backend().start(req.tenant!.id, req.body)))

  app.get<{ Params: { id: string } }>('/v1/workflows/:id', {
    schema: { summary: 'A workflow: its state, open requests and result', params: idParams },
    config: { responses: { 200: { description: 'The workflow.' }, 404: { description: 'No such workflow for this tenant.', schema: errorBody }, ...authErrors } },
  }, async (req) => backend().get(req.tenant!.id, req.params.id))

  const listed = () => {
    const b = backend()
    if (!b.list || !b.journal) throw new HttpError('NOT_AVAILABLE', 'Listing workflows is not available in this build of the server')
    return b as Required<Pick<typeof b, 'list' | 'journal'>>
  }

  app.get<{ Querystring: WorkflowListParams }>('/v1/workflows', {
    schema: { summary: 'The tenant\'s workflows, newest first, a page at a time (filters: state, tag, attr.<name>, name; opaque cursor)', querystring: workflowListQuerySchema },
    config: { responses: { 200: { description: '{ items: [{ id, state, createdAt, updatedAt, sourceName, requests, budget, spent?, parent?, error?, name?, tags?, attributes? }], nextCursor? } (requests: how many wait for an answer; nextCursor: absent on the last page; every filter given must match).' }, 400: { description: 'A bad state, limit (1 to 100), cursor, tag or attribute filter (BAD_REQUEST).', schema: errorBody }, ...authErrors } },
  }, async (req) => listed().list(req.tenant!.id, req.query))

  app.get<{ Params: { id: string }; Querystring: { limit?: string; cursor?: string } }>('/v1/workflows/:id/journal', {
    schema: { summary: 'A page of a workflow\'s journal, in order: requests, answers, attempts, retries, signals, phases and logs, with the budget as of each entry', params: idParams, querystring: journalQuerySchema },
    config: { responses: { 200: { description: '{ id, total, entries: [{ seq, t, …the entry, budgetSpent, budgetTotal }], nextCursor? } (seq: 1-based place in the journal; nextCursor: absent on the last page).' }, 400: { description: 'A bad limit (1 to 500) or cursor (BAD_REQUEST).', schema: errorBody }, 404: { description: 'No such workflow for this tenant.', schema: errorBody }, ...authErrors } },
  }, async (req) => listed().journal(req.tenant!.id, req.params.id, req.query))

  app.post<{ Params: { id: string; rid: string }; Body: { value: unknown } }>('/v1/workflows/:id/requests/:rid', {
    schema: { summary: 'Resolve an open request of a workflow (an approval, an answer)', params: requestParams, body: resolveBody },
    config: { responses: { 200: { description: 'The workflow after the answer (its next step is scheduled).' }, 404: { description: 'No such workflow, or no such external request, for this tenant.', schema: errorBody }, 409: { description: 'The request is already answered (ALREADY_RESOLVED), or the workflow is taking a step (WORKFLOW_BUSY; see Retry-After).', schema: errorBody }, ...authErrors } },
  }, async (req) => backend().resolve(req.tenant!.id, req.params.id, req.params.rid, req.body.value))

  const busyOrState = { 409: { description: 'A step kept the workflow for a few seconds (WORKFLOW_BUSY; see Retry-After), or its state does not allow this (WORKFLOW_STATE).', schema: errorBody } }
  const notFound = { 404: { description: 'No such workflow for this tenant.', schema: errorBody } }

  app.post<{ Params: { id: string }; Body: { retry?: unknown } }>('/v1/workflows/:id/retry', {
    schema: { summary: 'Retry a failed workflow from its failed step (completed steps are not repeated)', params: idParams, body: retryBody },
    config: { bodyOptional: true, responses: { 200: { description: 'The workflow, running again (its next step is scheduled).' }, 400: { description: 'A bad retry policy.', schema: errorBody }, ...notFound, ...busyOrState, ...authErrors } },
  }, async (req) => backend().retry(req.tenant!.id, req.params.id, req.body))

  app.post<{ Params: { id: string }; Body: { name: string; value?: unknown; id?: string } }>('/v1/workflows/:id/signal', {
    schema: { summary: 'Send a workflow a signal (journaled; buffered until a wait takes it)', params: idParams, body: signalBody },
    config: { responses: { 200: { description: 'The workflow, and `signal: { id, duplicate }` (duplicate: that id was already sent, nothing was journaled).' }, ...notFound, ...busyOrState, ...authErrors } },
  }, async (req) => backend().signal(req.tenant!.id, req.params.id, req.body))

  app.post<{ Params: { id: string }; Body: { reason?: string } }>('/v1/workflows/:id/cancel', {
    schema: { summary: 'Cancel a workflow: its current wait throws WORKFLOW_CANCELLED, cleanup runs, it ends cancelled', params: idParams, body: cancelBody },
    config: { bodyOptional: true, responses: { 200: { description: 'The workflow (with `cancelRequested` when a step held it: the next step journals the cancellation).' }, ...notFound, 409: { description: 'The workflow has ended (WORKFLOW_STATE).', schema: errorBody }, ...authErrors } },
  }, async (req) => backend().cancel(req.tenant!.id, req.params.id, req.body))

  /** The calls waiting for approval (the engine publishes them as the `approvals` query; none yet: []). */
  const approvals = async (tenant: string, id: string): Promise<Array<{ id: string }>> => {
    try {
      const out = await backend().query(tenant, id, 'approvals')
      return Array.isArray(out.value) ? out.value as Array<{ id: string }> : []
    } catch (e) {
      if (e instanceof HttpError && e.code === 'NOT_FOUND' && /has not exposed/.test(e.message)) return []
      throw e
    }
  }

  app.get<{ Params: { id: string } }>('/v1/workflows/:id/approvals', {
    schema: { summary: 'The calls of atoms that wait for approval (op, input, site, MCP tool), as of the workflow\'s last step', params: idParams },
    config: { responses: { 200: { description: '{ id, approvals: [{ id, op, input, site, mcp? }] }.' }, ...notFound, ...authErrors } },
  }, async (req) => ({ id: req.params.id, approvals: await approvals(req.tenant!.id, req.params.id) }))

  app.post<{ Params: { id: string; aid: string }; Body: { approve: boolean; input?: Record<string, unknown>; reason?: string } }>('/v1/workflows/:id/approvals/:aid', {
    schema: { summary: 'Approve (optionally with edited arguments) or reject a call waiting for approval; journaled as the signal approval:<aid>', params: approvalParams, body: approvalBody },
    config: { responses: { 200: { description: 'The workflow, and `signal: { id, duplicate }` (duplicate: this call was already answered).' }, 404: { description: 'No such workflow, or no call waiting for this approval, for this tenant.', schema: errorBody }, ...busyOrState, ...authErrors } },
  }, async (req) => {
    const { id, aid } = req.params
    const tenant = req.tenant!.id
    const { approve, input, reason } = req.body
    const value = approve ? { approve: true, ...(input !== undefined ? { input } : {}) } : { approve: false, ...(reason !== undefined ? { reason } : {}) }
    const signal = { name: `approval:${aid}`, value, id: `approval:${aid}` }
    // Only a call that waits now: a stray answer would stay buffered in the journal.
    if (!(await approvals(tenant, id)).some((a) => a.id === aid)) {
      throw new HttpError('NOT_FOUND', `Workflow ${id} has no call waiting for approval "${aid.slice(0, 48)}": already answered, or no such call (GET /v1/workflows/${id}/approvals lists them)`)
    }
    return backend().signal(tenant, id, signal)
  })

  app.get<{ Params: { id: string; name: string } }>('/v1/workflows/:id/query/:name', {
    schema: { summary: 'Read a value the workflow exposed (expose(name, value)), as of its last step', params: queryParams },
    config: { responses: { 200: { description: '{ id, name, value, state, updatedAt }.' }, 404: { description: 'No such workflow for this tenant, or it has not exposed that name.', schema: errorBody }, ...authErrors } },
  }, async (req) => backend().query(req.tenant!.id, req.params.id, req.params.name))
}
