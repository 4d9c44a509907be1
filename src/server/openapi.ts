/**
 * /openapi.json, generated from the routes as they are registered: their
 * body/params/querystring schemas and the documented responses in each
 * route's config. Nothing is written twice.
 */
import type { RouteOptions } from 'fastify'

interface Operation {
  summary?: string
  security?: Array<Record<string, string[]>>
  parameters?: unknown[]
  requestBody?: unknown
  responses: Record<string, unknown>
}

/**
 * Query parameters whose names follow a pattern (`?attr.<name>=<value>`): OpenAPI names each
 * parameter literally, so they are one object parameter in the form style, exploded, which
 * serializes each property as its own `name=value` pair; `propertyNames` gives the pattern.
 * The schema's `title` (`attr.<name>`) names it for readers; the pattern when it has none.
 */
function patternParameter(pattern: string, s: { title?: string; description?: string }): Record<string, unknown> {
  const { title, description, ...value } = s
  const out: Record<string, unknown> = { name: title ?? pattern, in: 'query', required: false, style: 'form', explode: true }
  if (description !== undefined) out.description = description
  out.schema = { type: 'object', propertyNames: { pattern }, additionalProperties: value }
  return out
}

export class OpenApiCollector {
  private readonly paths: Record<string, Record<string, Operation>> = {}

  /** Fastify onRoute hook: record one route. */
  add(route: RouteOptions): void {
    if (route.method === 'HEAD' || (Array.isArray(route.method) && route.method.length !== 1)) return
    const method = String(Array.isArray(route.method) ? route.method[0] : route.method).toLowerCase()
    if (method === 'head') return
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
    const schema = (route.schema ?? {}) as {
      summary?: string; body?: unknown; params?: { properties?: Record<string, unknown>; required?: string[] }
      querystring?: { properties?: Record<string, unknown>; patternProperties?: Record<string, { title?: string; description?: string }> }
      headers?: { properties?: Record<string, { description?: string }> }
    }
    const config = (route.config ?? {}) as { auth?: boolean; bodyOptional?: boolean; responses?: Record<number, { description: string; schema?: unknown; contentType?: string }> }
    const op: Operation = { responses: {} }
    if (schema.summary) op.summary = schema.summary
    if (config.auth !== false) op.security = [{ bearer: [] }]
    const params: unknown[] = []
    for (const [name, s] of Object.entries(schema.params?.properties ?? {})) params.push({ name, in: 'path', required: true, schema: s })
    for (const [name, s] of Object.entries(schema.querystring?.properties ?? {})) params.push({ name, in: 'query', required: false, schema: s })
    for (const [pattern, s] of Object.entries(schema.querystring?.patternProperties ?? {})) params.push(patternParameter(pattern, s))
    for (const [name, { description, ...s }] of Object.entries(schema.headers?.properties ?? {})) params.push({ name, in: 'header', required: false, ...(description ? { description } : {}), schema: s })
    if (params.length > 0) op.parameters = params
    if (schema.body) op.requestBody = { required: config.bodyOptional !== true, content: { 'application/json': { schema: schema.body } } }
    for (const [status, r] of Object.entries(config.responses ?? { 200: { description: 'OK' } })) {
      op.responses[status] = r.schema || r.contentType
        ? { description: r.description, content: { [r.contentType ?? 'application/json']: r.schema ? { schema: r.schema } : {} } }
        : { description: r.description }
    }
    ;(this.paths[path] ??= {})[method] = op
  }

  document(version: string): Record<string, unknown> {
    return {
      openapi: '3.1.0',
      info: { title: 'ajs-lang remote VM (ajsc serve)', version, description: 'Run AJS programs on a server: tenants with bearer tokens, worker-thread isolation, optional Postgres. See docs/serve.md.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A tenant token; the server stores only its SHA-256.' } } },
      paths: this.paths,
    }
  }
}
