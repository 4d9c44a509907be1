/**
 * The builder's static types. Methods are derived from an atom signature
 * table `A` (`CoreAtoms`, plus a VM's custom atoms): every atom is a method
 * whose input is typed from the atom's schema, and the builder has no index
 * signature, so an unknown method is a compile error. `V` tracks the
 * variables in scope with their types (from `take` and `.as`), `L` the
 * output type of the last step (what `.as(name)` binds).
 */
import type { AjsProgram, Expr, IdentExpr, PatternNode, Step } from '../ast/types.ts'
import type { AtomSig } from './core-atoms.ts'
import type { ExprLike, SourceExpr, Typed } from './expr.ts'
import type { VarMap } from './resolve.ts'

type Primitive = string | number | boolean | null | undefined

/** The data form of an argument: primitives as is, objects/arrays as templates whose parts may be expressions. */
type Data<T> =
  unknown extends T ? unknown
  : T extends Primitive ? T
  : T extends (...args: any[]) => any ? T
  : T extends readonly (infer U)[] ? ReadonlyArray<Arg<U>>
  : T extends object ? { [K in keyof T]: Arg<T[K]> }
  : T

/** An argument for a value of type `T`: the value itself, or an expression (typed expressions must match `T`). */
export type Arg<T> = Data<T> | ExprLike<T>

/** The input object of an atom method. */
export type AtomInput<I> = { [K in keyof I]: Arg<I[K]> }

/** Something that is a builder (what body callbacks return). */
export interface AnyBuilder {
  toJSON(): AjsProgram
}

/** A condition / iterable: AJS source text (full expression grammar) or an expression. */
export type Cond = string | ExprLike

/** The type an argument stands for: typed expressions give their type, literals widen. */
export type ValueOf<X> =
  X extends Expr | SourceExpr ? (X extends Typed<infer T> ? T : unknown)
  : X extends string ? string
  : X extends number ? number
  : X extends boolean ? boolean
  : X extends AnyBuilder ? AjsProgram
  : X

/** `V` with `N` (re)bound to `T`. */
export type Bind<V, N extends string, T> = Omit<V, N> & { [K in N]: T }

/** The variables of a take() schema: tosijs-schema builders infer, plain JSON Schema gives unknowns. */
export type SchemaVars<S> = S extends { _type: infer T } ? (T extends object ? T : {}) : Record<string, unknown>

type Body<A, V> = (b: Builder<A, V>) => AnyBuilder

export interface LoopOptions { label?: string }
export interface ForOfOptions extends LoopOptions {
  /** Declaration kind of the loop variable (default `'const'`; `null`: assign an existing variable). */
  kind?: 'let' | 'const' | null
  /** Mapping for names in the iterable source. */
  vars?: VarMap
}
export interface ItemOptions { index?: string; vars?: VarMap }

/** The builder's own methods. */
export interface BuilderMethods<A, V, L> {
  /** Bind the previous step's result to `name`. */
  as<N extends string>(name: N): Builder<A, Bind<V, N, L>, L>
  /** Program metadata (root only). */
  meta(m: { name?: string; description?: string; outputSchema?: object }): Builder<A, V, L>
  /** `let name = value` (block-scoped). A string value is a string; use `e.parse` / `b.ref` for expressions. */
  let<N extends string, X = undefined>(name: N, value?: X): Builder<A, Bind<V, N, ValueOf<X>>, L>
  let<R extends Record<string, unknown>>(vars: R): Builder<A, V & { [K in keyof R]: ValueOf<R[K]> }, L>
  /** `const name = value`. */
  const<N extends string, X>(name: N, value: X): Builder<A, Bind<V, N, ValueOf<X>>, L>
  /** `name = value` (assigns the variable in scope, or declares it in the function scope). */
  set<N extends string, X>(name: N, value: X): Builder<A, Bind<V, N, ValueOf<X>>, L>
  /** An expression statement from source (`'x += 1'`, `'xs.push(y)'`) or an expression node. */
  expr(source: Cond): Builder<A, V, unknown>
  /**
   * End the program with a value. A tosijs-schema object (`s.object({ a: s.number })`,
   * the seed's form) returns the variables it names, `{ a }`, and becomes the outputSchema.
   */
  return(value?: unknown): Builder<A, V, L>
  /** The seed's `varSet({ key, value })`: declares `key` when new, assigns it when in scope. */
  varSet<N extends string, X>(spec: { key: N; value: X }): Builder<A, Bind<V, N, ValueOf<X>>, L>
  /** An input field by dotted path (`'user.name'`, `'items.0.id'`), usable wherever a value is. */
  args<T = unknown>(path: string): SourceExpr<T>
  /** A variable by dotted path, usable wherever a value is. */
  val<T = unknown>(path: string): SourceExpr<T>
  throw(value: unknown): Builder<A, V, L>
  break(label?: string): Builder<A, V, L>
  continue(label?: string): Builder<A, V, L>
  /** `if (cond) { then } else { else }`; `vars` maps names in `cond` to paths/values. */
  if(cond: Cond, then: Body<A, V>, otherwise?: Body<A, V>): Builder<A, V, L>
  if(cond: Cond, vars: VarMap, then: Body<A, V>, otherwise?: Body<A, V>): Builder<A, V, L>
  while(cond: Cond, body: Body<A, V>, opts?: LoopOptions): Builder<A, V, L>
  while(cond: Cond, vars: VarMap, body: Body<A, V>, opts?: LoopOptions): Builder<A, V, L>
  doWhile(cond: Cond, body: Body<A, V>, opts?: LoopOptions): Builder<A, V, L>
  doWhile(cond: Cond, vars: VarMap, body: Body<A, V>, opts?: LoopOptions): Builder<A, V, L>
  /** C-style loop; names declared in `init` are in scope for the rest. */
  for(spec: { init?: Body<A, V>; condition?: Cond; update?: Cond; body: Body<A, V & Record<string, unknown>>; label?: string }): Builder<A, V, L>
  forOf<N extends string>(target: N | PatternNode, iterable: Cond, body: Body<A, Bind<V, N, unknown>>, opts?: ForOfOptions): Builder<A, V, L>
  forIn<N extends string>(target: N | PatternNode, object: Cond, body: Body<A, Bind<V, N, string>>, opts?: ForOfOptions): Builder<A, V, L>
  switch(discriminant: Cond, cases: Array<{ test?: Cond; body: Body<A, V> }>, opts?: LoopOptions): Builder<A, V, L>
  /** Without `catchParam` the catch body sees the error as `error` (the seed's builder). */
  try<P extends string = never>(spec: {
    try: Body<A, V>
    catch?: Body<A, [P] extends [never] ? Bind<V, 'error', { message: string; name?: string; code?: string }> : Bind<V, P, unknown>>
    catchParam?: P | PatternNode
    finally?: Body<A, V>
  }): Builder<A, V, L>
  /** A block with its own lexical scope. */
  scope(body: Body<A, V>): Builder<A, V, L>
  /** Branches run concurrently; the step's value is the array of their `return` values. */
  parallel(...branches: Array<Body<A, V>>): Builder<A, V, unknown[]>
  /** Run `body` once per item, all at once (each run on its own copy of the variables); the value is the array of their `return` values, in item order. */
  parallelMap<N extends string>(items: unknown, as: N, body: Body<A, Bind<V, N, unknown>>, opts?: { index?: string }): Builder<A, V, unknown[]>
  /** Each item bound to `as`; the body's `return` gives the new element. */
  map<N extends string>(items: unknown, as: N, body: Body<A, Bind<V, N, unknown>>, opts?: { index?: string }): Builder<A, V, unknown[]>
  filter<N extends string>(items: unknown, as: N, condition: Cond, opts?: ItemOptions): Builder<A, V, unknown[]>
  find<N extends string>(items: unknown, as: N, condition: Cond, opts?: ItemOptions): Builder<A, V, unknown>
  reduce<N extends string, C extends string>(items: unknown, as: N, accumulator: C, initial: unknown, body: Body<A, Bind<Bind<V, N, unknown>, C, unknown>>): Builder<A, V, unknown>
  memoize(key: unknown, body: Body<A, V>): Builder<A, V, unknown>
  /** The seed's form: body first; without a key, one derived from the body. */
  memoize(body: Body<A, V>, key?: unknown): Builder<A, V, unknown>
  cache(key: unknown, body: Body<A, V>, opts?: { ttlMs?: unknown }): Builder<A, V, unknown>
  /** The seed's form: body first; without a key, one derived from the body (stable across runs). */
  cache(body: Body<A, V>, key?: unknown, ttlMs?: unknown): Builder<A, V, unknown>
  varGet<N extends keyof V & string>(key: N | { key: N }): Builder<A, V, V[N]>
  varsImport<N extends string>(keys: N[]): Builder<A, V & { [K in N]: unknown }, L>
  /** The seed's mapping form: `{ variable: argName }`. */
  varsImport<M extends Record<string, string>>(mapping: M): Builder<A, V & { [K in keyof M]: unknown }, L>
  varsExport(keys: Array<keyof V & string> | Record<string, keyof V & string>): Builder<A, V, Record<string, unknown>>
  destructure(kind: 'let' | 'const' | 'assign', pattern: string | PatternNode, value: unknown): Builder<A, V & Record<string, unknown>, L>
  /** Any atom by name (e.g. one whose name a builder method takes). */
  atom<K extends keyof A & string>(op: K, input: A[K] extends AtomSig ? AtomInput<A[K]['input']> : never): Builder<A, V, A[K] extends AtomSig ? A[K]['output'] : unknown>
  /** A raw step (checked with everything else by `toJSON`). */
  step(raw: Step): Builder<A, V, unknown>
  /** A typed reference to a variable in scope. */
  ref<N extends keyof V & string>(name: N): IdentExpr & Typed<V[N]>
  /** The validated "ajs/1" AST (frozen; throws a BuilderError naming the step if invalid). */
  toJSON(): AjsProgram
}

type AtomMethod<A, V, S> = S extends AtomSig
  ? {} extends S['input']
    ? (input?: AtomInput<S['input']>) => Builder<A, V, S['output']>
    : (input: AtomInput<S['input']>) => Builder<A, V, S['output']>
  : never

/** A builder over atom table `A`, with variables `V` in scope and last-step output `L`. */
export type Builder<A, V = {}, L = unknown> = BuilderMethods<A, V, L> & {
  [K in Exclude<keyof A, keyof BuilderMethods<A, V, L>>]: AtomMethod<A, V, A[K]>
}

/** The root builder: a builder that can also `take(schema)`. */
export type AgentRoot<A> = Builder<A, {}> & {
  /** Declare the program's input (tosijs-schema builder or JSON Schema): `inputSchema` + parameters. */
  take<S extends object>(schema: S): Builder<A, SchemaVars<S>>
  /** A root over the core atoms plus these custom atoms (made with defineAtom). */
  custom(atoms: Record<string, { op: string }> | ReadonlyArray<{ op: string }>): AgentRoot<any>
}
