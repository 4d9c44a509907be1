/**
 * The host bridge: how guest runs in worker threads reach state that must be
 * shared by every worker — a tenant's agent memory (`store*` atoms) and its
 * stored procedures (`storeProcedure`, `agentRun` by token), and the MCP
 * servers the host is connected to (`mcp.call`, src/server/mcp.ts), and the
 * process's seen-set of spent budget tokens (`budget.*`, src/server/budget.ts:
 * a token spent in one thread is spent for all, and with PostgreSQL for every
 * process of the deployment). Workers send
 * requests on a BroadcastChannel; the host (the thread that owns the pool)
 * answers from its tenant stores, which are in memory or in Postgres. Only
 * runs that touch a store pay for a message; pure runs never do.
 */

/** The operations a worker may ask of the host, each scoped to one tenant by the host. */
export type BridgeMethod =
  | 'store.get' | 'store.set' | 'store.delete' | 'store.has' | 'store.query' | 'store.vectorSearch' | 'store.addVector'
  | 'procedures.get' | 'procedures.set' | 'procedures.delete' | 'procedures.clearExpired'
  | 'mcp.call'
  | 'budget.claim' | 'budget.answer' | 'budget.recall' | 'budget.abandon'

export type BridgeHandler = (tenant: string, method: BridgeMethod, args: unknown[]) => unknown

interface Request { kind: 'req'; id: number; from: number; tenant: string; method: BridgeMethod; args: unknown[] }
interface Reply { kind: 'res'; id: number; to: number; ok: boolean; value?: unknown; error?: { code?: string; message: string } }

/** Host side: answers every worker's requests. */
export class BridgeHost {
  private readonly channel: BroadcastChannel

  constructor(readonly name: string, private readonly handler: BridgeHandler) {
    this.channel = new BroadcastChannel(name)
    unref(this.channel)
    this.channel.onmessage = (ev: MessageEvent) => { void this.answer(ev.data as Request) }
  }

  private async answer(req: Request): Promise<void> {
    if (!req || req.kind !== 'req') return
    let reply: Reply
    try {
      reply = { kind: 'res', id: req.id, to: req.from, ok: true, value: await this.handler(req.tenant, req.method, req.args) }
    } catch (e) {
      const err = e as { code?: unknown; message?: unknown }
      reply = { kind: 'res', id: req.id, to: req.from, ok: false, error: { code: typeof err?.code === 'string' ? err.code : undefined, message: String(err?.message ?? e) } }
    }
    this.channel.postMessage(reply)
  }

  close(): void {
    this.channel.close()
  }
}

/** Worker side: one client per worker thread. */
export class BridgeClient {
  private readonly channel: BroadcastChannel
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>()
  private nextId = 1
  private readonly self = Math.floor(Math.random() * 2 ** 31)

  constructor(name: string, private readonly makeError: (code: string | undefined, message: string) => Error) {
    this.channel = new BroadcastChannel(name)
    this.channel.onmessage = (ev: MessageEvent) => {
      const r = ev.data as Reply
      if (!r || r.kind !== 'res' || r.to !== this.self) return
      const p = this.pending.get(r.id)
      if (!p) return
      this.pending.delete(r.id)
      if (this.pending.size === 0) unref(this.channel)
      if (r.ok) p.resolve(r.value)
      else p.reject(this.makeError(r.error?.code, r.error?.message ?? 'host bridge error'))
    }
    unref(this.channel)
  }

  call(tenant: string, method: BridgeMethod, args: unknown[]): Promise<unknown> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      ref(this.channel)
      this.channel.postMessage({ kind: 'req', id, from: this.self, tenant, method, args } satisfies Request)
    })
  }
}

// A channel must not keep a process alive on its own (Node has ref/unref on BroadcastChannel; other runtimes may not).
function unref(c: BroadcastChannel): void {
  (c as unknown as { unref?: () => void }).unref?.()
}
function ref(c: BroadcastChannel): void {
  (c as unknown as { ref?: () => void }).ref?.()
}
