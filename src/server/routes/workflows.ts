/** POST /v1/workflows, GET /v1/workflows/:id, POST /v1/workflows/:id/requests/:rid (durable workflows). */
import type { FastifyInstance } from 'fastify'
import type { ServerContext } from '../context.ts'
import { HttpError } from '../errors.ts'
import { authErrors, errorBody, idParams } from '../schemas.ts'

const workflowBody = {
  type: 'object',
  additionalProperties: false,
  required: ['source'],
  description: 'A workflow module (top-level statements; agent(), sleep(), log(), phase()).',
  properties: {
    source: { type: 'string', description: 'The workflow module source.' },
    args: { type: 'object', description: 'The module\'s `args`.' },
    budget: { type: 'integer', minimum: 0, description: 'Agent calls allowed (default unlimited).' },
  },
} as const
const resolveBody = { type: 'object', additionalProperties: false, required: ['value'], properties: { value: {} } } as const
const requestParams = { type: 'object', required: ['id', 'rid'], properties: { id: { type: 'string', maxLength: 200 }, rid: { type: 'string', maxLength: 200 } } } as const

export function workflowRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const backend = () => {
    if (!ctx.workflows) throw new HttpError('NOT_AVAILABLE', 'Durable workflows are not available in this build of the server')
    return ctx.workflows
  }
  app.post<{ Body: { source: string; args?: Record<string, unknown>; budget?: number } }>('/v1/workflows', {
    schema: { summary: 'Start a durable workflow', body: workflowBody },
    config: { responses: { 201: { description: 'The workflow, created; its first step is scheduled (state running).' }, 400: { description: 'Malformed body.', schema: errorBody }, 422: { description: 'Program refused.', schema: errorBody }, ...authErrors } },
  }, async (req, reply) => reply.code(201).send(await backend().start(req.tenant!.id, req.body)))

  app.get<{ Params: { id: string } }>('/v1/workflows/:id', {
    schema: { summary: 'A workflow: its state, open requests and result', params: idParams },
    config: { responses: { 200: { description: 'The workflow.' }, 404: { description: 'No such workflow for this tenant.', schema: errorBody }, ...authErrors } },
  }, async (req) => backend().get(req.tenant!.id, req.params.id))

  app.post<{ Params: { id: string; rid: string }; Body: { value: unknown } }>('/v1/workflows/:id/requests/:rid', {
    schema: { summary: 'Resolve an open request of a workflow (an approval, an answer)', params: requestParams, body: resolveBody },
    config: { responses: { 200: { description: 'The workflow after the answer (its next step is scheduled).' }, 404: { description: 'No such workflow, or no such external request, for this tenant.', schema: errorBody }, 409: { description: 'The request is already answered (ALREADY_RESOLVED), or the workflow is taking a step (WORKFLOW_BUSY; see Retry-After).', schema: errorBody }, ...authErrors } },
  }, async (req) => backend().resolve(req.tenant!.id, req.params.id, req.params.rid, req.body.value))
}
