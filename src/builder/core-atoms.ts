/**
 * Types of the core atoms for the builder: what each takes and returns.
 *
 * The vocabulary table (`ast/nodes.ts`) declares field *kinds* but not value
 * types, so the types live here. Drift is impossible to miss in both
 * directions: `CORE_ATOM_FIELDS` below must match `CoreAtoms` exactly (tsc
 * checks every field and whether it is optional), and a test checks
 * `CORE_ATOM_FIELDS` against `CORE_OPS`.
 */
import type { AjsProgram } from '../ast/types.ts'

/** An atom signature: its input object and its output. */
export interface AtomSig {
  input: object
  output: unknown
}

type Obj = Record<string, unknown>

/** A program: an AST, or a builder (embedded as its AST). */
export type ProgramArg = AjsProgram | { toJSON(): AjsProgram }

/** Core ops whose fields are all values: each is a builder method taking its input object. */
export interface CoreAtoms {
  push: { input: { list: unknown[]; item: unknown }; output: number }
  len: { input: { value: unknown }; output: number }
  split: { input: { value: string; separator: string }; output: string[] }
  join: { input: { items: unknown[]; separator?: string }; output: string }
  pick: { input: { object: Obj; keys: string[] }; output: Obj }
  omit: { input: { object: Obj; keys: string[] }; output: Obj }
  merge: { input: { objects: Obj[] }; output: Obj }
  keys: { input: { object: Obj }; output: string[] }
  template: { input: { template: string; vars?: Obj }; output: string }
  regexMatch: { input: { pattern: string; value: string; flags?: string }; output: string[] | null }
  jsonParse: { input: { text: string }; output: unknown }
  jsonStringify: { input: { value: unknown; indent?: number }; output: string }
  httpFetch: {
    input: { url: string; method?: string; headers?: Record<string, string>; body?: unknown }
    output: { status: number; ok: boolean; headers: Record<string, string>; body: unknown }
  }
  storeGet: { input: { key: string }; output: unknown }
  storeSet: { input: { key: string; value: unknown }; output: null }
  storeQuery: { input: { query: unknown }; output: unknown }
  storeVectorSearch: { input: { collection?: string; vector: number[]; k?: number; filter?: Obj }; output: unknown[] }
  llmPredict: { input: { prompt: string; system?: string; model?: string; options?: Obj }; output: unknown }
  agentRun: { input: { agentId: string | ProgramArg; input?: Obj }; output: unknown }
  storeProcedure: { input: { ast: ProgramArg; ttl?: number; maxSize?: number }; output: string }
  releaseProcedure: { input: { token: string }; output: boolean }
  clearExpiredProcedures: { input: {}; output: number }
  random: { input: { min?: number; max?: number }; output: number }
  uuid: { input: {}; output: string }
  hash: { input: { value: unknown }; output: string }
  consoleLog: { input: { message: unknown }; output: null }
  consoleWarn: { input: { message: unknown }; output: null }
  consoleError: { input: { message: unknown }; output: null }
  Error: { input: { message: string; name?: string; data?: unknown }; output: never }
}

/** `'opt'`/`'req'` per field, from the `?` modifier of a signature's input type. */
type Presence<I> = { [F in keyof I]-?: {} extends Pick<I, F> ? 'opt' : 'req' }

/** Runtime mirror of `CoreAtoms` (field names and presence); tsc keeps the two identical. */
export const CORE_ATOM_FIELDS: { readonly [K in keyof CoreAtoms]: Presence<CoreAtoms[K]['input']> } = {
  push: { list: 'req', item: 'req' },
  len: { value: 'req' },
  split: { value: 'req', separator: 'req' },
  join: { items: 'req', separator: 'opt' },
  pick: { object: 'req', keys: 'req' },
  omit: { object: 'req', keys: 'req' },
  merge: { objects: 'req' },
  keys: { object: 'req' },
  template: { template: 'req', vars: 'opt' },
  regexMatch: { pattern: 'req', value: 'req', flags: 'opt' },
  jsonParse: { text: 'req' },
  jsonStringify: { value: 'req', indent: 'opt' },
  httpFetch: { url: 'req', method: 'opt', headers: 'opt', body: 'opt' },
  storeGet: { key: 'req' },
  storeSet: { key: 'req', value: 'req' },
  storeQuery: { query: 'req' },
  storeVectorSearch: { collection: 'opt', vector: 'req', k: 'opt', filter: 'opt' },
  llmPredict: { prompt: 'req', system: 'opt', model: 'opt', options: 'opt' },
  agentRun: { agentId: 'req', input: 'opt' },
  storeProcedure: { ast: 'req', ttl: 'opt', maxSize: 'opt' },
  releaseProcedure: { token: 'req' },
  clearExpiredProcedures: {},
  random: { min: 'opt', max: 'opt' },
  uuid: {},
  hash: { value: 'req' },
  consoleLog: { message: 'req' },
  consoleWarn: { message: 'req' },
  consoleError: { message: 'req' },
  Error: { message: 'req', name: 'opt', data: 'opt' },
}
