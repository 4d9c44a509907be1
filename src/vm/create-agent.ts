/** createAgent: an agent as an ordinary async function. */
import type { AgentVM } from './agent-vm.ts'
import type { RunOptions } from './limits.ts'
import type { AgentError } from './errors.ts'

/** Thrown by agents made with createAgent when their run fails. */
export class AgentRunError extends Error {
  constructor(readonly error: AgentError, readonly fuelUsed: number) {
    super(`${error.code}: ${error.message}${error.location ? ` (${error.location})` : ''}`)
    this.name = 'AgentRunError'
  }
}

/** Wrap a program (AST, token or source) so calling it runs it on `vm` with `options`. */
export function createAgent<T = unknown>(program: unknown, vm: AgentVM, options: RunOptions = {}) {
  return async (args: Record<string, unknown> = {}, overrides: RunOptions = {}): Promise<T> => {
    const r = await vm.run<T>(program, args, { ...options, ...overrides })
    if (r.error) throw new AgentRunError(r.error, r.fuelUsed)
    return r.result as T
  }
}
