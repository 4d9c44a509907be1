/** The Python subset as a small tree: what parse.ts produces and the lowering consumes. */

/** [line (1-based, within the body as given), column (0-based)]. */
export type Loc = [number, number]

export type Expr = { loc: Loc } & (
  | { k: 'name'; id: string }
  | { k: 'const'; v: null | boolean | string }
  | { k: 'int'; v: string }
  | { k: 'float'; v: number }
  | { k: 'fstr'; parts: FPart[] }
  | { k: 'list' | 'tuple' | 'set'; elts: Expr[] }
  | { k: 'dict'; items: DictItem[] }
  | { k: 'bin'; op: string; l: Expr; r: Expr }
  | { k: 'unary'; op: string; e: Expr }
  | { k: 'bool'; op: 'and' | 'or'; l: Expr; r: Expr }
  | { k: 'cmp'; ops: string[]; xs: Expr[] }
  | { k: 'ifexp'; test: Expr; body: Expr; orelse: Expr }
  | { k: 'call'; fn: Expr; args: Expr[]; kw: Keyword[] }
  | { k: 'attr'; obj: Expr; name: string }
  | { k: 'sub'; obj: Expr; index: Expr }
  | { k: 'slice'; lo: Expr | null; hi: Expr | null; step: Expr | null }
  | { k: 'comp'; kind: 'list' | 'set' | 'dict' | 'gen'; elt: Expr; value: Expr | null; gens: Gen[] }
  | { k: 'lambda'; params: string[]; defaults: Array<Expr | null>; body: Expr; kinds?: Array<Param['kind']> }
  | { k: 'walrus'; id: string; value: Expr }
  | { k: 'star'; e: Expr }
  /** A runtime call the frontend itself builds (classes, modules): `py$<fn>(...args)`; fn '' is JS undefined. */
  | { k: 'rt'; fn: string; args: Expr[] }
)

/** What a class body holds: methods, and attributes (`x = 1`, `x: int = 1`, `x: int`). */
export type ClassItem =
  | { kind: 'def'; def: StmtOf<'def'> }
  | { kind: 'attr'; name: string; value: Expr | null; annotated: boolean; loc: Loc }

/** One name an import binds: `import m as alias` (name null) or `from m import name as alias`. */
export interface ImportName { module: string; name: string | null; alias: string; loc: Loc }

export type FPart = string | { e: Expr; conv: string; spec: Expr | null }
export type DictItem = { key: Expr; value: Expr } | { spread: Expr }
/** `name=value`, or `**value` when name is null. */
export interface Keyword { name: string | null; value: Expr; loc: Loc }
export interface Gen { target: Expr; iter: Expr; ifs: Expr[] }

export interface Handler { type: Expr | null; name: string | null; body: Stmt[]; loc: Loc }
/** A parameter; `kind` marks `*args` (star), `**kwargs` (kwstar) and the keyword-only ones after a `*` (extended profile). */
export interface Param { name: string; dflt: Expr | null; kind?: 'star' | 'kwstar' | 'kwonly' }

export type Stmt = { loc: Loc } & (
  | { k: 'expr'; e: Expr }
  | { k: 'assign'; targets: Expr[]; value: Expr }
  | { k: 'aug'; target: Expr; op: string; value: Expr }
  | { k: 'if'; test: Expr; body: Stmt[]; orelse: Stmt[] }
  | { k: 'while'; test: Expr; body: Stmt[]; orelse: Stmt[] }
  | { k: 'for'; target: Expr; iter: Expr; body: Stmt[]; orelse: Stmt[] }
  | { k: 'break' } | { k: 'continue' } | { k: 'pass' }
  | { k: 'return'; value: Expr | null }
  | { k: 'raise'; exc: Expr | null }
  | { k: 'assert'; test: Expr; msg: Expr | null }
  | { k: 'del'; targets: Expr[] }
  | { k: 'try'; body: Stmt[]; handlers: Handler[]; orelse: Stmt[]; finalbody: Stmt[] }
  /** `gen`: the body yields (a generator function). */
  | { k: 'def'; name: string; params: Param[]; body: Stmt[]; lambda?: boolean; memo?: Expr; gen?: boolean; descriptor?: MethodDescriptor }
  | { k: 'class'; name: string; bases: Expr[]; items: ClassItem[]; decorators: Expr[] }
  | { k: 'import'; names: ImportName[] }
  /** `nonlocal a, b` (extended): the names are the enclosing function's variables (analyze.ts). */
  | { k: 'nonlocal'; names: string[] }
)

/** A method decorated `@property`, `@name.setter` (extended), `@staticmethod` or `@classmethod` (classes only). */
export type MethodDescriptor = 'property' | 'setter' | 'staticmethod' | 'classmethod'

export type ExprOf<K extends Expr['k']> = Extract<Expr, { k: K }>
export type StmtOf<K extends Stmt['k']> = Extract<Stmt, { k: K }>
