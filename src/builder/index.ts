/**
 * The TypedBuilder: programs assembled by code, emitting the same "ajs/1"
 * ASTs as the transpiler.
 *
 *     Agent.take(s.object({ url: s.string }))
 *       .httpFetch({ url: e.ident('url') }).as('res')
 *       .return(e.parse('res.body'))
 *       .toJSON()
 *
 * `Agent` knows the core atoms; `vm.Agent` (on the full package's AgentVM)
 * also the VM's custom atoms. Both are Proxies derived from the atom table.
 */
import type { FieldSpec } from '../ast/nodes.ts'
import type { AjsProgram } from '../ast/types.ts'
import type { AtomDef } from '../vm/atoms/types.ts'
import type { CoreAtoms } from './core-atoms.ts'
import { rootBuilder, stateOf } from './proxy.ts'
import type { AgentRoot } from './types.ts'

export { e, type ExprLike, type SourceExpr, type TypedExpr, type ExprHelpers } from './expr.ts'
export { BuilderError, isBuilderError, type BuilderErrorCode } from './errors.ts'
/** Expression strings (`e.parse`, conditions) are transpiled: a refused one throws TranspileError. */
export { TranspileError, isTranspileError } from '../diagnostics/diagnostic.ts'
export type { CoreAtoms, AtomSig } from './core-atoms.ts'
export type { Builder, AgentRoot, Arg, AtomInput, AnyBuilder, Cond, SchemaVars } from './types.ts'
export type { VarMap } from './resolve.ts'

type InferSchema<S> = S extends { _type: infer T } ? T : unknown

/** The signature of an atom definition: input/output as typed by defineAtom. */
export type SigOf<D> = D extends AtomDef<infer I, infer O> ? { input: unknown extends I ? Record<string, unknown> : I & object; output: O } : never

/** The atom definitions held by a VM's custom-atom argument (a record or a list). */
type DefsOf<C> = C extends readonly unknown[] ? C[number] : C[keyof C]

/** Signatures of custom atoms by op name (atoms whose op is only known as `string` add no typed method). */
export type CustomAtoms<C> = {
  [D in DefsOf<C> as D extends { op: infer O extends string } ? (string extends O ? never : O) : never]: SigOf<D>
}

/** The atom table of a VM with custom atoms `C` (`any`: untyped). */
export type VmAtoms<C> = 0 extends 1 & C ? any : CoreAtoms & CustomAtoms<C>

/** The builder root over the core atoms. */
export const Agent: AgentRoot<CoreAtoms> = rootBuilder() as AgentRoot<CoreAtoms>

/** A builder root over the core atoms plus the given atoms (this is what `vm.Agent` returns). */
export function createBuilder<C extends Record<string, AtomDef> | readonly AtomDef[]>(atoms: C | Iterable<AtomDef>): AgentRoot<VmAtoms<C>> {
  const list: Array<{ op: string; fields: Record<string, FieldSpec> }> =
    Symbol.iterator in Object(atoms) ? [...(atoms as Iterable<AtomDef>)] : Object.values(atoms as Record<string, AtomDef>)
  return rootBuilder(list) as AgentRoot<VmAtoms<C>>
}

/** Is `v` a builder? */
export const isBuilder = (v: unknown): boolean => stateOf(v) !== undefined

/** The AST of a builder (same as `builder.toJSON()`). */
export const toAst = (b: { toJSON(): AjsProgram }): AjsProgram => b.toJSON()

