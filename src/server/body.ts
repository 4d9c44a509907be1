/**
 * A request without a body, the one policy of every route that takes one. A POST without a body
 * (`curl -X POST url`) and one sent as `Content-Type: application/json` with nothing in it (the JSON
 * parser in app.ts answers `undefined` for an empty text) are the same request: no body.
 * - A route whose body is all optional says `config.bodyOptional`: no body is `{}`, checked against its schema.
 * - Any other route answers 400 BAD_REQUEST naming what the body needs (its schema's required fields,
 *   or what its description asks for), where fastify would check `undefined` against the object
 *   schema ("body must be object", a message that says nothing of the fields).
 * Routes without a body schema take no body: nothing to do.
 */
import type { FastifyRequest, RouteOptions } from 'fastify'
import { HttpError } from './errors.ts'

interface BodySchema { required?: readonly string[]; minProperties?: number; properties?: Record<string, unknown>; description?: string }

/** `/v1/workflows/:id/signal` as /openapi.json spells it: `/v1/workflows/{id}/signal`. */
export const openApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

const list = (names: readonly string[]): string => names.map((n) => `\`${n}\``).join(', ')

/** What a body of this schema must hold, in a few words (the hint of its 400). */
export function bodyNeeds(schema: BodySchema): string {
  if (schema.required && schema.required.length > 0) return `with ${list(schema.required)}`
  const fields = Object.keys(schema.properties ?? {})
  if (schema.description) return `(${schema.description.replace(/\.$/, '')}; its fields: ${list(fields)})`
  return `with at least one of ${list(fields)}`
}

/** The route's preValidation for a missing body; undefined for a route that takes none. */
export function missingBodyHook(route: Pick<RouteOptions, 'method' | 'url' | 'schema' | 'config'>): ((req: FastifyRequest) => Promise<void>) | undefined {
  const schema = route.schema?.body as BodySchema | undefined
  if (!schema) return undefined
  if ((route.config as { bodyOptional?: boolean } | undefined)?.bodyOptional === true) {
    return async (req) => { if (req.body === undefined) req.body = {} }
  }
  const method = Array.isArray(route.method) ? route.method.join('|') : route.method
  const where = `${method} ${openApiPath(route.url)}`
  const hint = `Send \`Content-Type: application/json\` and a JSON object ${bodyNeeds(schema)}; the body's schema: ${where} in GET /openapi.json.`
  return async (req) => {
    if (req.body === undefined) throw new HttpError('BAD_REQUEST', `Invalid request: ${where} needs a JSON body, and none was sent`, { hint })
  }
}
