/**
 * `ajsc workflow host --stdio`: the boundary over a JSON pipe, JSON-RPC 2.0
 * with one message per line. Methods and params use the seed's names
 * (`start_module { source, source_name, args, budget }`, `poll`,
 * `take_pending_requests`, `resolve_request { id, resolution }`) and results
 * are the serde encodings, so a host written against the seed drives this
 * runtime unchanged. Several executions are told apart by `execution` (the
 * id `start_module` returns; optional while only one exists). Extras:
 * `start_module`'s `timeouts` and `retry` (journaled in the start entry, as
 * startWorkflow's options), `resume_module { source, source_name, journal }`,
 * `pending_request_ids` (what a request's timeout or the deadline ended is
 * no longer in it: the host stops that work), `journal`, `dispose`.
 *
 * Messages are handled one at a time, in order; a bad message gets a
 * JSON-RPC error and never ends the host.
 */
import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { TranspileError } from '../../diagnostics/diagnostic.ts'
import { WorkflowError } from '../engine/errors.ts'
import type { WorkflowExecution } from '../engine/execution.ts'
import type { JournalEntry } from '../engine/journal.ts'
import type { RunRetryPolicy } from '../engine/retry.ts'
import type { WorkflowTimeouts } from '../engine/timeouts.ts'
import { resumeWorkflow, startWorkflow } from './start.ts'

/** JSON-RPC 2.0 error codes; -32000 carries a workflow or transpile error in `data`. */
export const RPC_ERRORS = Object.freeze({ parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, workflow: -32000 })

class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message)
  }
}

type Params = Record<string, unknown>

const isRecord = (v: unknown): v is Params => v !== null && typeof v === 'object' && !Array.isArray(v)

export class StdioHost {
  private readonly executions = new Map<string, WorkflowExecution>()

  private target(p: Params): WorkflowExecution {
    const id = p['execution']
    if (id === undefined) {
      if (this.executions.size === 1) return [...this.executions.values()][0]!
      throw new RpcError(RPC_ERRORS.invalidParams, `params.execution is required (${this.executions.size} executions are open)`)
    }
    const ex = typeof id === 'string' ? this.executions.get(id) : undefined
    if (!ex) throw new RpcError(RPC_ERRORS.invalidParams, `No execution ${JSON.stringify(id)}`)
    return ex
  }

  private source(p: Params): { source: string; sourceName: string } {
    if (typeof p['source'] !== 'string') throw new RpcError(RPC_ERRORS.invalidParams, 'params.source must be the workflow source text')
    const name = p['source_name'] ?? '<workflow>'
    if (typeof name !== 'string') throw new RpcError(RPC_ERRORS.invalidParams, 'params.source_name must be a string')
    return { source: p['source'], sourceName: name }
  }

  private readonly methods: Record<string, (p: Params) => unknown> = {
    start_module: (p) => {
      const { source, sourceName } = this.source(p)
      const budget = p['budget'] as { total?: number | null; spent?: number } | undefined
      // Checked by startWorkflow (WORKFLOW_OPTIONS_INVALID, -32000): the run's deadline and request timeouts are
      // sleep requests this host answers like any sleep; a resume_module keeps them (they are in the start entry).
      const ex = startWorkflow(source, {
        sourceName, args: p['args'] ?? {}, ...(budget !== undefined ? { budget } : {}),
        ...(p['timeouts'] !== undefined ? { timeouts: p['timeouts'] as WorkflowTimeouts } : {}),
        ...(p['retry'] !== undefined ? { retry: p['retry'] as RunRetryPolicy } : {}),
      })
      this.executions.set(ex.id, ex)
      return { execution: ex.id }
    },
    resume_module: async (p) => {
      const { source, sourceName } = this.source(p)
      const ex = await resumeWorkflow(source, p['journal'] as JournalEntry[], { sourceName })
      this.executions.set(ex.id, ex)
      return { execution: ex.id }
    },
    poll: (p) => this.target(p).poll(),
    take_pending_requests: (p) => this.target(p).takePendingRequests(),
    resolve_request: (p) => {
      if (typeof p['id'] !== 'string') throw new RpcError(RPC_ERRORS.invalidParams, 'params.id must be a request id')
      this.target(p).resolveRequest(p['id'], p['resolution'])
      return null
    },
    pending_request_ids: (p) => this.target(p).pendingRequestIds(),
    journal: (p) => this.target(p).journal(),
    dispose: (p) => {
      const ex = this.target(p)
      ex.dispose()
      this.executions.delete(ex.id)
      return null
    },
  }

  /** Handle one line; returns the response line (or null for a notification). */
  async handle(line: string): Promise<string | null> {
    let msg: unknown
    try {
      msg = JSON.parse(line)
    } catch (e) {
      return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: RPC_ERRORS.parse, message: `Parse error: ${(e as Error).message}` } })
    }
    const id = isRecord(msg) && (typeof msg['id'] === 'string' || typeof msg['id'] === 'number') ? msg['id'] : null
    try {
      if (!isRecord(msg) || msg['jsonrpc'] !== '2.0' || typeof msg['method'] !== 'string') {
        throw new RpcError(RPC_ERRORS.invalidRequest, 'Invalid request: expected {"jsonrpc":"2.0","method":...,"params":{...},"id":...}')
      }
      const method = Object.prototype.hasOwnProperty.call(this.methods, msg['method']) ? this.methods[msg['method']] : undefined
      if (!method) throw new RpcError(RPC_ERRORS.methodNotFound, `Method not found: ${msg['method']} (methods: ${Object.keys(this.methods).join(', ')})`)
      const params = msg['params'] ?? {}
      if (!isRecord(params)) throw new RpcError(RPC_ERRORS.invalidParams, 'params must be an object')
      const result = await method(params)
      return 'id' in msg ? JSON.stringify({ jsonrpc: '2.0', id, result: result ?? null }) : null
    } catch (e) {
      return JSON.stringify({ jsonrpc: '2.0', id, error: toRpcError(e) })
    }
  }

  /** Dispose every execution. */
  close(): void {
    for (const ex of this.executions.values()) ex.dispose()
    this.executions.clear()
  }
}

function toRpcError(e: unknown): { code: number; message: string; data?: unknown } {
  if (e instanceof RpcError) return { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) }
  if (e instanceof WorkflowError) return { code: RPC_ERRORS.workflow, message: e.message, data: e.toJSON() }
  if (e instanceof TranspileError) {
    const d = e.diagnostic
    return { code: RPC_ERRORS.workflow, message: e.message, data: { code: d.code, message: d.message, hint: d.hint, file: d.file, line: d.line, column: d.column + 1, frame: e.frame } }
  }
  return { code: RPC_ERRORS.workflow, message: e instanceof Error ? e.message : String(e), data: { code: 'INTERNAL' } }
}

/** Serve JSON-RPC on a line stream until it ends; resolves when the input is closed. */
export async function serveStdio(input: Readable, output: Writable): Promise<void> {
  const host = new StdioHost()
  const lines = createInterface({ input, crlfDelay: Infinity })
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue
      const reply = await host.handle(line)
      if (reply !== null) output.write(`${reply}\n`)
    }
  } finally {
    host.close()
  }
}
