/** GET /healthz, GET /metrics, GET /openapi.json: no token needed. */
import type { FastifyInstance } from 'fastify'
import type { ServerContext } from '../context.ts'
import type { OpenApiCollector } from '../openapi.ts'

export function systemRoutes(app: FastifyInstance, ctx: ServerContext, openapi: OpenApiCollector): void {
  app.get('/healthz', {
    schema: { summary: 'Liveness and basic facts (no token)' },
    config: { auth: false, responses: { 200: { description: '{ ok: true, version, pool, database }' } } },
  }, async () => ({ ok: true, version: ctx.version, ...ctx.health() }))

  app.get('/metrics', {
    schema: { summary: 'Prometheus metrics (no token)' },
    config: { auth: false, responses: { 200: { description: 'Prometheus text format 0.0.4.', contentType: 'text/plain' } } },
  }, async (_req, reply) => reply.type('text/plain; version=0.0.4; charset=utf-8').send(ctx.metrics.render()))

  let doc: Record<string, unknown> | undefined
  app.get('/openapi.json', {
    schema: { summary: 'This API as OpenAPI 3.1 (no token)' },
    config: { auth: false, responses: { 200: { description: 'The OpenAPI document.' } } },
  }, async () => (doc ??= openapi.document(ctx.version)))
}
