/**
 * I/O atoms. The VM has no I/O of its own: each of these calls a capability
 * the host passed in `capabilities`, and fails with CAPABILITY_MISSING
 * (naming it) when there is none.
 */
import { vmError } from '../errors.ts'
import type { AtomContext, AtomDef } from './types.ts'
import { coreAtom, runOf } from './define.ts'
import { copyOut } from '../membrane.ts'

const io = { io: true }

function capability(ctx: AtomContext, path: string): (...args: any[]) => any {
  const [root, method] = path.split('.') as [string, string | undefined]
  const cap = ctx.capabilities[root]
  const fn = method ? cap?.[method] : cap
  if (typeof fn !== 'function') {
    throw vmError('CAPABILITY_MISSING', `${ctx.op} needs capabilities.${path}`, { op: ctx.op })
  }
  return method ? fn.bind(cap) : fn
}

/** A fetch Response (or anything shaped like one) becomes plain data. */
async function responseToData(res: any): Promise<unknown> {
  if (!res || typeof res !== 'object' || typeof res.status !== 'number' || typeof res.text !== 'function') return res
  const headers: Record<string, string> = {}
  if (res.headers && typeof res.headers.forEach === 'function') res.headers.forEach((v: string, k: string) => { headers[k] = v })
  const text: string = await res.text()
  let body: unknown = text
  if ((headers['content-type'] ?? '').includes('json')) {
    try { body = JSON.parse(text) } catch { body = text }
  }
  return { status: res.status, ok: res.status >= 200 && res.status < 300, headers, body }
}

export const IO_ATOMS: AtomDef[] = [
  coreAtom('httpFetch', async ({ url, method, headers, body }, ctx) => {
    const fetchCap = capability(ctx, 'fetch')
    if (typeof url !== 'string') throw vmError('TYPE_ERROR', 'httpFetch.url must be a string', { op: 'httpFetch' })
    const init: Record<string, unknown> = { signal: ctx.signal }
    if (method !== undefined) init.method = String(method)
    if (headers !== undefined) init.headers = copyOut(headers)
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(copyOut(body))
    return responseToData(await fetchCap(url, init))
  }, { ...io, timeoutMs: 30_000 }),
  coreAtom('storeGet', ({ key }, ctx) => capability(ctx, 'store.get')(key), { ...io, timeoutMs: 10_000 }),
  coreAtom('storeSet', async ({ key, value }, ctx) => {
    await capability(ctx, 'store.set')(key, copyOut(value))
    return null
  }, { ...io, timeoutMs: 10_000 }),
  coreAtom('storeQuery', ({ query }, ctx) => capability(ctx, 'store.query')(copyOut(query)), { ...io, timeoutMs: 10_000 }),
  coreAtom('storeVectorSearch', ({ collection, vector, k, filter }, ctx) =>
    capability(ctx, 'store.vectorSearch')(copyOut({ collection, vector, k, filter })), { ...io, timeoutMs: 10_000 }),
  coreAtom('llmPredict', ({ prompt, system, model, options }, ctx) => {
    const opts = { ...(copyOut(options ?? {}) as object), system, model, signal: ctx.signal }
    return capability(ctx, 'llm.predict')(prompt, opts)
  }, { ...io, timeoutMs: 120_000 }),
  coreAtom('agentRun', ({ agentId, input }, ctx) => {
    const agentCap = ctx.capabilities.agent
    if (agentCap && typeof agentCap.run === 'function') return agentCap.run(copyOut(agentId), copyOut(input ?? {}), { signal: ctx.signal })
    const rt = runOf(ctx)
    return rt.config.host.runChild(agentId, input ?? {}, rt)
  }, { ...io, timeoutMs: 0 }),
]
