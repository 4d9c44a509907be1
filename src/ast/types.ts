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

/** Version of the wire format this package writes and reads. */
export const AST_FORMAT_VERSION = 1 as const

/** JSON data as it travels on the wire. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** A compact source location: `[line, column]` (1-based line, 0-based column, as acorn). */
export type Loc = [number, number]

// ---------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------

export type BinaryOp =
  | '+' | '-' | '*' | '/' | '%' | '**'
  | '==' | '!=' | '===' | '!==' | '<' | '>' | '<=' | '>='
  | '&' | '|' | '^' | '<<' | '>>' | '>>>'
  | 'in'
export type LogicalOp = '&&' | '||' | '??'
export type UnaryOp = '-' | '+' | '!' | '~' | 'typeof' | 'void' | 'delete'
export type AssignOp =
  | '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '**='
  | '&=' | '|=' | '^=' | '<<=' | '>>=' | '>>>='
  | '&&=' | '||=' | '??='

interface ExprBase {
  loc?: Loc
}

export interface LiteralExpr extends ExprBase { $expr: 'literal'; value: Json }
export interface IdentExpr extends ExprBase { $expr: 'ident'; name: string }
export interface MemberExpr extends ExprBase {
  $expr: 'member'
  object: Expr
  /** A static name, or (with `computed: true`) an expression. */
  property: string | Expr
  computed?: boolean
  /** `a?.b`: short-circuits the whole chain to `undefined` when `object` is nullish. */
  optional?: boolean
}
export interface BinaryExpr extends ExprBase { $expr: 'binary'; op: BinaryOp; left: Expr; right: Expr }
export interface LogicalExpr extends ExprBase { $expr: 'logical'; op: LogicalOp; left: Expr; right: Expr }
export interface UnaryExpr extends ExprBase { $expr: 'unary'; op: UnaryOp; argument: Expr }
export interface ConditionalExpr extends ExprBase {
  $expr: 'conditional'; test: Expr; consequent: Expr; alternate: Expr
}
export interface SpreadExpr extends ExprBase { $expr: 'spread'; argument: Expr }
export interface ArrayExpr extends ExprBase { $expr: 'array'; elements: Array<Expr | SpreadExpr> }
export interface PropertyNode {
  /** Static key, or with `computed: true` an expression giving the key. */
  key: string | Expr
  computed?: boolean
  value: Expr
}
export interface ObjectExpr extends ExprBase { $expr: 'object'; properties: Array<PropertyNode | SpreadExpr> }
export interface TemplateExpr extends ExprBase {
  $expr: 'template'
  /** `quasis.length === expressions.length + 1` */
  quasis: string[]
  expressions: Expr[]
}
/** Call of a helper function, an atom (one object argument), or a global builtin function. */
export interface CallExpr extends ExprBase { $expr: 'call'; callee: string; args: Array<Expr | SpreadExpr> }
/** `object.method(...args)`: allowlisted builtin methods and namespace statics (`Math.max`). */
export interface MethodCallExpr extends ExprBase {
  $expr: 'methodCall'
  object: Expr
  method: string
  args: Array<Expr | SpreadExpr>
  optional?: boolean
}
/** An arrow function; only valid as an argument of an array higher-order method. */
export interface LambdaExpr extends ExprBase {
  $expr: 'lambda'
  params: Pattern[]
  /** Expression body (`x => x + 1`) ... */
  body?: Expr
  /** ... or block body (`x => { ...; return v }`). Exactly one of `body` / `steps`. */
  steps?: Step[]
}
export interface AssignExpr extends ExprBase {
  $expr: 'assign'
  op: AssignOp
  /** An `ident` or `member` expression; with `op: '='` also a destructuring pattern. */
  target: IdentExpr | MemberExpr | PatternNode
  value: Expr
}
export interface UpdateExpr extends ExprBase {
  $expr: 'update'; op: '++' | '--'; prefix: boolean; argument: IdentExpr | MemberExpr
}
export interface SequenceExpr extends ExprBase { $expr: 'sequence'; expressions: Expr[] }
/** A regular expression literal; compiled only after the ReDoS guard accepts it. */
export interface RegexExpr extends ExprBase { $expr: 'regex'; pattern: string; flags: string }

export type Expr =
  | LiteralExpr | IdentExpr | MemberExpr | BinaryExpr | LogicalExpr | UnaryExpr
  | ConditionalExpr | ArrayExpr | ObjectExpr | TemplateExpr | CallExpr | MethodCallExpr
  | LambdaExpr | AssignExpr | UpdateExpr | SequenceExpr | RegexExpr | SpreadExpr

export type ExprKind = Expr['$expr']

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
