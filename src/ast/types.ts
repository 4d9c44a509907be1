/**
 * The "ajs/1" wire format as TypeScript types.
 *
 * A program is a JSON document: a root `seq` step carrying the format marker
 * `ajs: 1`, an optional parameter pattern (how the run's args become
 * variables), helper functions, and a list of steps. Steps are
 * `{ op, ...fields, result?, loc? }`; expressions are `{ $expr: kind, ... }`.
 * The field kinds of every op and expression live in `nodes.ts`; this file is
 * the typed view of the same vocabulary.
 */
import type { CORE_OP_TABLE, CoreOp, DECL_KINDS, EXPR_KINDS, ExprKind, OperatorOf, OperatorSet } from './nodes.ts'

export type { CoreOp, ExprKind, OperatorOf, OperatorSet }

/** Version of the wire format this package writes and reads. */
export const AST_FORMAT_VERSION = 1 as const

/** JSON data as it travels on the wire. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** A compact source location: `[line, column]` (1-based line, 0-based column, as acorn). */
export type Loc = [number, number]

// ---------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------

export type BinaryOp = OperatorOf<'binary'>
export type LogicalOp = OperatorOf<'logical'>
export type UnaryOp = OperatorOf<'unary'>
export type AssignOp = OperatorOf<'assign'>
export type UpdateOp = OperatorOf<'update'>

/** An object literal property (a static key, or with `computed: true` an expression giving the key). */
export interface PropertyNode {
  key: string | Expr
  computed?: boolean
  value: Expr
}

/** The TypeScript type of each field kind of the vocabulary table (nodes.ts). */
export interface FieldTypes {
  value: Value
  expr: Expr
  name: string
  names: string[]
  string: string
  steps: Step[]
  branches: Step[][]
  pattern: Pattern
  bindings: { [name: string]: Value }
  cases: Array<{ test?: Expr | null; body: Step[] }>
  declKind: (typeof DECL_KINDS)[number]
  json: Json
  exprs: Expr[]
  items: Array<Expr | SpreadExpr>
  args: Array<Expr | SpreadExpr | LambdaExpr>
  key: string
  keyOrExpr: string | Expr
  flag: boolean
  strings: string[]
  regexFlags: string
  patterns: Pattern[]
  properties: Array<PropertyNode | SpreadExpr>
  lvalue: IdentExpr | MemberExpr
  assignTarget: IdentExpr | MemberExpr | PatternNode
  op: string
}

/** The type of one field spec: its kind's type, or for `op` fields the operators of its set. */
export type FieldType<S> = S extends { kind: 'op'; ops: infer O extends OperatorSet }
  ? OperatorOf<O>
  : S extends { kind: infer K extends keyof FieldTypes } ? FieldTypes[K] : never

type Flat<T> = { [K in keyof T]: T[K] } & {}

/** The required fields declared by a table entry's `fields`. */
export type RequiredFieldsOf<F> = { -readonly [K in keyof F as F[K] extends { optional: true } ? never : K]: FieldType<F[K]> }
/** The optional fields declared by a table entry's `fields`. */
export type OptionalFieldsOf<F> = { -readonly [K in keyof F as F[K] extends { optional: true } ? K : never]?: FieldType<F[K]> }
/** The node fields declared by a table entry's `fields`. */
export type FieldsOf<F> = Flat<RequiredFieldsOf<F> & OptionalFieldsOf<F>>

type ExprFields<K extends ExprKind> = (typeof EXPR_KINDS)[K]['fields']
/** The node of one expression kind, derived from its entry in `EXPR_KINDS` (the named interfaces below are these). */
export type ExprOf<K extends ExprKind> = Flat<{ $expr: K; loc?: Loc } & RequiredFieldsOf<ExprFields<K>> & OptionalFieldsOf<ExprFields<K>>>

export interface LiteralExpr extends ExprOf<'literal'> {}
export interface IdentExpr extends ExprOf<'ident'> {}
/** `a.b`, or with `computed: true` `a[i]`; `optional` (`a?.b`) short-circuits the chain when `object` is nullish. */
export interface MemberExpr extends ExprOf<'member'> {}
export interface BinaryExpr extends ExprOf<'binary'> {}
export interface LogicalExpr extends ExprOf<'logical'> {}
export interface UnaryExpr extends ExprOf<'unary'> {}
export interface ConditionalExpr extends ExprOf<'conditional'> {}
export interface SpreadExpr extends ExprOf<'spread'> {}
export interface ArrayExpr extends ExprOf<'array'> {}
export interface ObjectExpr extends ExprOf<'object'> {}
/** `quasis.length === expressions.length + 1` */
export interface TemplateExpr extends ExprOf<'template'> {}
/** Call of a helper function, an atom (one object argument), or a global builtin function. */
export interface CallExpr extends ExprOf<'call'> {}
/** `object.method(...args)`: allowlisted builtin methods and namespace statics (`Math.max`). */
export interface MethodCallExpr extends ExprOf<'methodCall'> {}
/** An arrow function; only valid as an argument of an array higher-order method. Exactly one of `body` / `steps`. */
export interface LambdaExpr extends ExprOf<'lambda'> {}
/** `target` is an `ident` or `member`; with `op: '='` also a destructuring pattern. */
export interface AssignExpr extends ExprOf<'assign'> {}
export interface UpdateExpr extends ExprOf<'update'> {}
export interface SequenceExpr extends ExprOf<'sequence'> {}
/** A regular expression literal; compiled only after the ReDoS guard accepts it. */
export interface RegexExpr extends ExprOf<'regex'> {}

/**
 * Every expression node, discriminated by `$expr`: one named interface per
 * kind of `EXPR_KINDS` (interfaces keep recursive types cheap for the
 * compiler); `ExprKindsCovered` fails to compile when a kind is missing here.
 */
export type Expr =
  | LiteralExpr | IdentExpr | MemberExpr | BinaryExpr | LogicalExpr | UnaryExpr
  | ConditionalExpr | ArrayExpr | ObjectExpr | TemplateExpr | CallExpr | MethodCallExpr
  | LambdaExpr | AssignExpr | UpdateExpr | SequenceExpr | RegexExpr | SpreadExpr

/** Compile-time check: every kind of the table has its interface in `Expr`. */
export type ExprKindsCovered = IsTrue<[Exclude<ExprKind, Expr['$expr']>] extends [never] ? true : false>
type IsTrue<T extends true> = T

/**
 * A value field: an `$expr` node, or JSON whose nested `$expr` nodes are
 * evaluated in place (objects and arrays are templates). A plain string is
 * always just a string. Data that itself has a `$expr` key must be wrapped in
 * a `literal` node.
 */
export type Value = Json | Expr | { [key: string]: Value } | Value[]

// ---------------------------------------------------------------------------
// Patterns (declarations, parameters, destructuring)
// ---------------------------------------------------------------------------

/** A binding name, or a structured pattern. */
export type Pattern = string | PatternNode
export interface ObjectPattern {
  $pattern: 'object'
  properties: Array<{ key: string | Expr; computed?: boolean; value: Pattern }>
  rest?: string
}
export interface ArrayPattern {
  $pattern: 'array'
  /** `null` skips an element (`[, b]`). */
  elements: Array<Pattern | null>
  rest?: Pattern
}
export interface DefaultPattern { $pattern: 'default'; target: Pattern; default: Expr }
/** Only in assignment destructuring: store into `a.b` / `a[i]`. */
export interface TargetPattern { $pattern: 'target'; target: IdentExpr | MemberExpr }
export type PatternNode = ObjectPattern | ArrayPattern | DefaultPattern | TargetPattern

// ---------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------

/** Every step: an op name, its fields, an optional result binding and location. */
export interface StepBase {
  op: string
  /** Name of the variable that receives the step's value (assigned, or declared in the function scope). */
  result?: string
  loc?: Loc
}

/** A step as found on the wire: known fields per op are in `nodes.ts`. */
export interface Step extends StepBase {
  [field: string]: unknown
}

/** The step of one core op, derived from its entry in `CORE_OPS`. */
export type StepOf<K extends CoreOp> = Flat<StepBase & { op: K } & FieldsOf<(typeof CORE_OP_TABLE)[K]['fields']>>

/** Every core step, discriminated by `op` (custom atom steps are the wide `Step`). */
export type CoreStep = { [K in CoreOp]: StepOf<K> }[CoreOp]

export interface FunctionDef {
  params: Pattern[]
  steps: Step[]
  loc?: Loc
}

/** The program root. */
export interface AjsProgram extends StepBase {
  ajs: typeof AST_FORMAT_VERSION
  op: 'seq'
  steps: Step[]
  /** How the run's single argument object becomes variables (usually an object pattern). */
  params?: Pattern
  /** Helper functions callable with `call` expressions, by name. */
  functions?: Record<string, FunctionDef>
  /** JSON Schema the VM validates args against before running. */
  inputSchema?: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  name?: string
  description?: string
  /** Source file name used in error locations. */
  file?: string
  /** Custom (non-core) atoms the program calls: the VM that runs it must have them (checked before it runs). */
  atoms?: string[]
  /**
   * Runtime libraries the program calls, with the version it was compiled against
   * (`{ "python": 1 }`): the VM that runs it must have them (checked before it runs).
   */
  libraries?: Record<string, number>
}
