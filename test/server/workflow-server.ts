/**
 * Test helper: an in-memory `ajsc serve` (one pool thread) whose tenants reach a fake LLM, plus the
 * HTTP helpers the workflow tests share: a request with a tenant token, polling a workflow until a
 * state, and starting one again while the tenant's slots are taken (429 TENANT_BUSY).
 */
import { startFakeLlm, type FakeLlm } from '../workflows/fake-llm.ts'
import { createServer, parseServeConfig, tokenSha256, type AjsServer } from '../../src/server/index.ts'

export interface WorkflowTestServer {
  llm: FakeLlm
  server: AjsServer
  url: string
  req(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }>
  until(id: string, pred: (wf: any) => boolean, token?: string): Promise<any>
  start(body: unknown): Promise<{ status: number; json: any }>
  close(): Promise<void>
}

type TenantConfig = Record<string, unknown>

/**
 * A tenant's requests to a running server at `url` (token `ops-token` unless given), and polling a
 * workflow until `pred` holds (`tries` × `intervalMs`: a PostgreSQL server's steps take longer).
 */
export function workflowClient(url: string, { tries = 500, intervalMs = 10 } = {}): Pick<WorkflowTestServer, 'req' | 'until'> {
  const req: WorkflowTestServer['req'] = async (method, path, body, token = 'ops-token') => {
    const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
    return { status: res.status, json: await res.json() as any }
  }
  const until: WorkflowTestServer['until'] = async (id, pred, token = 'ops-token') => {
    let wf: any
    for (let i = 0; i < tries; i++) {
      wf = (await req('GET', `/v1/workflows/${id}`, undefined, token)).json
      if (pred(wf)) return wf
      await Bun.sleep(intervalMs)
    }
    throw new Error(`workflow ${id} did not reach the expected state: ${JSON.stringify(wf)}`)
  }
  return { req, until }
}

/** Tenants `ops` (token `ops-token`, the fake LLM) and `other` (`other-token`), unless `tenants` gives others. */
export async function startWorkflowServer(tenants?: (llm: FakeLlm) => TenantConfig[]): Promise<WorkflowTestServer> {
  const llm = await startFakeLlm()
  const server = await createServer({
    config: parseServeConfig({
      tenants: tenants?.(llm) ?? [
        { id: 'ops', tokenSha256: tokenSha256('ops-token'), capabilities: { llm: { baseUrl: llm.baseUrl, model: 'fake' } } },
        { id: 'other', tokenSha256: tokenSha256('other-token') },
      ],
    }),
    pool: { size: 1 },
  })
  const url = await server.listen({ port: 0 })
  const { req, until } = workflowClient(url)
  return {
    llm,
    server,
    url,
    req,
    until,
    async start(body) {
      for (;;) {
        const r = await req('POST', '/v1/workflows', body)
        if (r.json?.error?.code !== 'TENANT_BUSY') return r
        await Bun.sleep(50)
      }
    },
    async close() {
      await server.close()
      await llm.close()
    },
  }
}
