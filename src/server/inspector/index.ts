/**
 * The web inspector's routes on `ajsc serve`: GET /ui (the page), /ui/app.js
 * and /ui/app.css. The files hold no data, so they need no token; every
 * piece of data the page shows comes from the API with the tenant's bearer
 * token (typed into the page, or passed once as `/ui#token=…` — a fragment,
 * never sent to the server or its logs — and kept in sessionStorage).
 * A strict Content-Security-Policy: the page loads only its own files.
 */
import type { FastifyInstance } from 'fastify'
import { INSPECTOR_CSS, INSPECTOR_HTML, INSPECTOR_JS } from './assets.ts'

export const INSPECTOR_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

/** The three static files: path → [content type, body]. */
export const INSPECTOR_FILES: Readonly<Record<string, readonly [string, string]>> = {
  '/ui': ['text/html; charset=utf-8', INSPECTOR_HTML],
  '/ui/app.js': ['text/javascript; charset=utf-8', INSPECTOR_JS],
  '/ui/app.css': ['text/css; charset=utf-8', INSPECTOR_CSS],
}

export function inspectorRoutes(app: FastifyInstance): void {
  for (const [path, [type, body]] of Object.entries(INSPECTOR_FILES)) {
    app.get(path, {
      schema: { summary: path === '/ui' ? 'The web inspector (runs, workflows and schedules); its data comes from the API with a token' : `The web inspector's ${path.slice(4)}` },
      config: { auth: false, responses: { 200: { description: 'A static file of the inspector.', contentType: type.split(';')[0] } } },
    }, async (_req, reply) => reply.type(type).header('content-security-policy', INSPECTOR_CSP).header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache').send(body))
  }
}
