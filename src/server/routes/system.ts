/** GET /healthz, GET /metrics, GET /openapi.json: no token needed. */
import type { FastifyInstance } from 'fastify'
import type { ServerContext } from '../context.ts'
import type { OpenApiCollector } from '../openapi.ts'
import { tokenSha256 } from '../config.ts'

/** Who asks for /metrics: the operator sees every tenant, a tenant itself and the totals, anyone else the totals. */
function metricsScope(ctx: ServerContext, header: string | undefined): 'all' | 'aggregate' | { tenant: string } {
  const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!m) return 'aggregate'
  const hash = tokenSha256(m[1]!)
  if (ctx.config.operatorTokenSha256 !== undefined && hash === ctx.config.operatorTokenSha256) return 'all'
  const tenant = ctx.tenants.all.find((t) => t.config.tokenSha256 === hash)
  return tenant ? { tenant: tenant.id } : 'aggregate'
}

export function systemRoutes(app: FastifyInstance, ctx: ServerContext, openapi: OpenApiCollector): void {
  app.get('/healthz', {
    schema: { summary: 'Liveness and basic facts (no token)' },
    config: { auth: false, responses: { 200: { description: '{ ok: true, version, pool, database }' } } },
  }, async () => ({ ok: true, version: ctx.version, ...ctx.health() }))

  app.get('/metrics', {
    schema: { summary: 'Prometheus metrics (totals without a token; every tenant with the operator token)' },
    config: { auth: false, responses: { 200: { description: 'Prometheus text format 0.0.4. Without a token: totals only (tenant "*"); with a tenant\'s token: totals and its own series; with the operator token (operatorTokenSha256): every tenant.', contentType: 'text/plain' } } },
  }, async (req, reply) => reply.type('text/plain; version=0.0.4; charset=utf-8').send(ctx.metrics.render(metricsScope(ctx, req.headers.authorization))))

  let doc: Record<string, unknown> | undefined
  app.get('/openapi.json', {
    schema: { summary: 'This API as OpenAPI 3.1 (no token)' },
    config: { auth: false, responses: { 200: { description: 'The OpenAPI document.' } } },
  }, async () => (doc ??= openapi.document(ctx.version)))
}
