/** POST /v1/procedures, GET and DELETE /v1/procedures/:token. */
import type { FastifyInstance } from 'fastify'
import type { ServerContext } from '../context.ts'
import type { ProcedureBody } from '../procedures.ts'
import { authErrors, errorBody, procedureBody, procedureCreated, procedureInfo, tokenParams } from '../schemas.ts'

export function procedureRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post<{ Body: ProcedureBody }>('/v1/procedures', {
    schema: { summary: 'Store a program under a proc_ token (with a TTL)', body: procedureBody },
    config: {
      responses: {
        201: { description: 'Stored; run it with POST /v1/runs { token }.', schema: procedureCreated },
        400: { description: 'Malformed body.', schema: errorBody },
        413: { description: 'Too large.', schema: errorBody },
        422: { description: 'The program is refused (invalid AST, source that does not compile).', schema: errorBody },
        ...authErrors,
      },
    },
  }, async (req, reply) => reply.code(201).send(await ctx.procedures.store(req.tenant!.id, req.body)))

  app.get<{ Params: { token: string } }>('/v1/procedures/:token', {
    schema: { summary: 'A stored procedure (its AST and expiry)', params: tokenParams },
    config: { responses: { 200: { description: 'The procedure.', schema: procedureInfo }, 404: { description: 'Unknown, expired, or another tenant\'s token.', schema: errorBody }, ...authErrors } },
  }, async (req, reply) => {
    const p = await ctx.procedures.get(req.tenant!.id, req.params.token)
    // The stored AST text goes out as stored: the event loop neither parses nor re-serializes it.
    const head = JSON.stringify({ token: p.token, createdAt: p.createdAt, expiresAt: p.expiresAt })
    return reply.type('application/json; charset=utf-8').serializer((x: unknown) => x as string).send(`${head.slice(0, -1)},"ast":${p.astText}}`)
  })

  app.delete<{ Params: { token: string } }>('/v1/procedures/:token', {
    schema: { summary: 'Delete a stored procedure', params: tokenParams },
    config: { responses: { 204: { description: 'Deleted.' }, 404: { description: 'Unknown, expired, or another tenant\'s token.', schema: errorBody }, ...authErrors } },
  }, async (req, reply) => {
    await ctx.procedures.delete(req.tenant!.id, req.params.token)
    return reply.code(204).send()
  })
}
