/**
 * defineAtom: the public way to add an atom. Input and output are
 * tosijs-schema schemas (or plain JSON Schema); the VM validates the input
 * before `fn` runs and the output after.
 */
import type { FieldSpec } from '../../ast/nodes.ts'
import { CORE_OPS, ATOM_NAME, FORBIDDEN_NAMES } from '../../ast/nodes.ts'
import type { AtomDef, AtomEffects, AtomFn, CostSpec, JsonSchema } from './types.ts'
import type { Run } from '../runtime.ts'
import type { AtomContext } from './types.ts'
import { ATOM_COSTS } from '../fuel.ts'

/** A tosijs-schema builder or a plain JSON Schema object. */
export type SchemaLike = { readonly schema: object } | JsonSchema

export function toJsonSchema(s: SchemaLike | undefined): JsonSchema | undefined {
  if (s === undefined || s === null) return undefined
  const maybe = s as { schema?: unknown }
  if (maybe.schema && typeof maybe.schema === 'object') return maybe.schema as JsonSchema
  return s as JsonSchema
}

export interface DefineAtomOptions<I> {
  cost?: CostSpec<I>
  timeoutMs?: number
  docs?: string
  /** Set when `fn` never returns a Promise (keeps callers on the fast synchronous path). */
  sync?: boolean
  /** `'pure'` or `'io'` (the default): see AtomDef.effects. */
  effects?: AtomEffects
  /** Calls wait for approval (see AtomDef.requiresApproval). */
  requiresApproval?: boolean | ((input: I) => boolean)
}

/**
 * The core ops whose calls reach outside the run: I/O capabilities and the
 * procedure store (the vocabulary's `io` and `procedure` categories), the
 * cache (the store capability), the log and the sources of randomness. Every
 * other core atom is tagged `effects: 'pure'`.
 */
export const EFFECTFUL_CORE_OPS: ReadonlySet<string> = new Set([
  ...Object.keys(CORE_OPS).filter((op) => CORE_OPS[op]!.category === 'io' || CORE_OPS[op]!.category === 'procedure'),
  'cache', 'random', 'uuid', 'consoleLog', 'consoleWarn', 'consoleError',
])

/**
 * The TypeScript type a schema describes: tosijs-schema builders carry it
 * (`Infer<typeof schema>`); a plain JSON Schema gives `unknown`.
 */
export type InferSchema<S> = S extends { _type: infer T } ? T : unknown

/**
 * Define an atom. `op` must be an identifier (or a vendor-namespaced name
 * such as `slack:send_message`) and not a core op name. Input
 * and output types are inferred from tosijs-schema builders, so `fn` is
 * checked against them and `vm.Agent` types the atom's builder method.
 */
export function defineAtom<
  const Op extends string,
  IS extends SchemaLike,
  OS extends SchemaLike | undefined,
  I = InferSchema<IS>,
  O = OS extends SchemaLike ? InferSchema<OS> : unknown,
>(
  op: Op,
  inputSchema: IS,
  outputSchema: OS,
  fn: AtomFn<I, O>,
  options: DefineAtomOptions<I> = {},
): AtomDef<I, O> & { op: Op } {
  if (!ATOM_NAME.test(op) || FORBIDDEN_NAMES.has(op)) throw new TypeError(`defineAtom: invalid op name ${JSON.stringify(op)}`)
  if (typeof fn !== 'function') throw new TypeError(`defineAtom(${op}): fn must be a function`)
  const effects = options.effects ?? 'io'
  if (effects !== 'pure' && effects !== 'io') throw new TypeError(`defineAtom(${op}): bad effects`)
  const input = toJsonSchema(inputSchema)
  const fields: Record<string, FieldSpec> = {}
  const props = (input?.properties ?? {}) as Record<string, unknown>
  const required = new Set((input?.required as string[] | undefined) ?? [])
  for (const k of Object.keys(props)) fields[k] = { kind: 'value', optional: !required.has(k) }
  return {
    op,
    fields,
    inputSchema: input,
    outputSchema: toJsonSchema(outputSchema as SchemaLike | undefined),
    cost: options.cost ?? 1,
    timeoutMs: options.timeoutMs ?? 1000,
    docs: options.docs,
    fn,
    sync: options.sync,
    effects,
    ...(options.requiresApproval !== undefined ? { requiresApproval: options.requiresApproval } : {}),
  }
}

/** For core atoms: the internal run behind a context. */
export const runOf = (ctx: AtomContext): Run => (ctx as unknown as { rt: Run }).rt

/** Core atom definition helper: fields from the vocabulary table. */
export function coreAtom(op: string, fn: AtomFn, extra: Partial<AtomDef> = {}): AtomDef {
  const spec = CORE_OPS[op]
  if (!spec) throw new Error(`coreAtom: ${op} is not in CORE_OPS`)
  return { op, fields: spec.fields, cost: ATOM_COSTS[op] ?? 1, fn, docs: spec.doc, effects: EFFECTFUL_CORE_OPS.has(op) ? 'io' : 'pure', ...extra }
}
