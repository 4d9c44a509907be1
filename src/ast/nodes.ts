/**
 * The single declarative table of the "ajs/1" vocabulary.
 *
 * Every step op and every expression kind is declared here once, with the
 * kind of each field. The validator, the walker, the VM's field decoding and
 * the docs all read this table, so the format has one source of truth.
 *
 * Field kinds:
 * - `value`     a Value: JSON literal or `$expr` node (objects/arrays are templates)
 * - `expr`      an `$expr` node (conditions, iterables, ...)
 * - `name`      a variable name (string matching IDENTIFIER)
 * - `names`     an array of variable names
 * - `string`    a static string
 * - `steps`     a list of steps (a block with its own lexical scope)
 * - `branches`  a list of step lists (`parallel`)
 * - `pattern`   a binding pattern (string or `$pattern` node)
 * - `bindings`  an object `{ name: Value }` (declared in order)
 * - `cases`     `switch` cases: `[{ test?: Expr, body: Step[] }]`
 * - `declKind`  `'let' | 'const'` (`destructure` also allows `'assign'`)
 */

export type FieldKind =
  // step fields
  | 'value' | 'expr' | 'name' | 'names' | 'string' | 'steps' | 'branches'
  | 'pattern' | 'bindings' | 'cases' | 'declKind'
  // expression fields
  | 'json' | 'exprs' | 'items' | 'args' | 'key' | 'keyOrExpr' | 'flag' | 'strings' | 'regexFlags'
  | 'patterns' | 'properties' | 'lvalue' | 'assignTarget' | 'op'

/** The ordering comparisons: they convert their operands to numbers or compare strings. */
export const ORDERING_OPERATORS = ['<', '>', '<=', '>='] as const

/** The comparison operators among the binary ones: their value is always a boolean. */
export const COMPARISON_OPERATORS = ['==', '!=', '===', '!==', ...ORDERING_OPERATORS] as const

/** Every operator set, declared once; `op` fields name the set they take. */
export const OPERATORS = {
  binary: ['+', '-', '*', '/', '%', '**', ...COMPARISON_OPERATORS, '&', '|', '^', '<<', '>>', '>>>', 'in'],
  logical: ['&&', '||', '??'],
  unary: ['-', '+', '!', '~', 'typeof', 'void', 'delete'],
  assign: ['=', '+=', '-=', '*=', '/=', '%=', '**=', '&=', '|=', '^=', '<<=', '>>=', '>>>=', '&&=', '||=', '??='],
  update: ['++', '--'],
} as const

export type OperatorSet = keyof typeof OPERATORS
/** The operators of one set, as a union of string literals. */
export type OperatorOf<S extends OperatorSet> = (typeof OPERATORS)[S][number]

/** The values of a `declKind` field. */
export const DECL_KINDS = ['let', 'const', 'assign'] as const

export interface FieldSpec {
  kind: FieldKind
  optional?: boolean
  /** For `op` fields: the operator set. */
  ops?: OperatorSet
  doc?: string
}

export type OpCategory = 'control' | 'state' | 'collection' | 'text' | 'io' | 'procedure' | 'utility'

export interface OpSpec {
  category: OpCategory
  fields: Record<string, FieldSpec>
  /**
   * Atoms (ops the VM runs as library calls) carry their description here:
   * it is run-time data, the description of their tool definitions. The
   * language ops' descriptions are documentation only and live in docs.ts,
   * out of the VM bundle.
   */
  doc?: string
  /**
   * Ops with more than one shape: each form lists its required fields (the
   * first one names the form) and its optional ones. A step takes exactly
   * one form; fields of the other forms are refused.
   */
  forms?: ReadonlyArray<{ required: readonly string[]; optional?: readonly string[] }>
  /** The op repeats its body (the VM lets such loops pause between time slices). */
  loops?: boolean
  /**
   * A language op that may wait by itself (not only through its children).
   * Language ops (no inline `doc`) without it never wait by themselves; atoms
   * wait or not as their implementation says (`sync`).
   */
  mayWait?: boolean
}

const f = <K extends FieldKind>(kind: K, doc?: string): { kind: K; doc?: string } => ({ kind, doc })
const opt = <K extends FieldKind>(kind: K, doc?: string): { kind: K; optional: true; doc?: string } => ({ kind, optional: true, doc })
const op = <S extends OperatorSet>(ops: S): { kind: 'op'; ops: S } => ({ kind: 'op', ops })

/** Identifiers: JS identifier names (ASCII letters, digits, `_`, `$`). */
export const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * Names of custom atoms: an identifier, or a vendor-namespaced name
 * `vendor:rest` as flow documents use for custom node types
 * (`slack:send_message`). Namespaced atoms are steps only; expressions call
 * atoms by identifier.
 */
export const ATOM_NAME = /^(?:[A-Za-z_$][A-Za-z0-9_$]*|[a-z][a-z0-9_-]{0,31}:[A-Za-z0-9_$.:\/-]+)$/

/** Property and variable names that are refused everywhere (prototype reach). */
export const FORBIDDEN_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

/** Its description is in docs.ts, with the other language-op docs. */
const label = opt('string')

/**
 * The core ops, with their literal field kinds (the `StepOf<op>` types are
 * derived from this). Custom atoms (defineAtom) add ops whose fields are all `value`.
 */
export const CORE_OP_TABLE = {
  // --- control -----------------------------------------------------------
  seq: { category: 'control', fields: { steps: f('steps') } },
  scope: { category: 'control', fields: { steps: f('steps') } },
  if: {
    category: 'control',
    fields: { condition: f('expr'), then: f('steps'), else: opt('steps') },
  },
  while: {
    category: 'control',
    loops: true,
    fields: { condition: f('expr'), body: f('steps'), label },
  },
  doWhile: {
    category: 'control',
    loops: true,
    fields: { condition: f('expr'), body: f('steps'), label },
  },
  for: {
    category: 'control',
    loops: true,
    fields: { init: opt('steps'), condition: opt('expr'), update: opt('expr'), body: f('steps'), label },
  },
  forOf: {
    category: 'control',
    loops: true,
    fields: { target: f('pattern'), kind: opt('declKind'), iterable: f('expr'), body: f('steps'), label },
  },
  forIn: {
    category: 'control',
    loops: true,
    fields: { target: f('pattern'), kind: opt('declKind'), object: f('expr'), body: f('steps'), label },
  },
  switch: {
    category: 'control',
    fields: { discriminant: f('expr'), cases: f('cases'), label },
  },
  break: { category: 'control', fields: { label } },
  continue: { category: 'control', fields: { label } },
  return: { category: 'control', fields: { value: opt('value') } },
  throw: { category: 'control', fields: { value: f('value') } },
  try: {
    category: 'control',
    fields: { try: f('steps'), catchParam: opt('pattern'), catch: opt('steps'), finally: opt('steps') },
  },
  parallel: {
    category: 'control',
    mayWait: true,
    fields: { branches: opt('branches'), items: opt('value'), as: opt('name'), index: opt('name'), steps: opt('steps') },
    forms: [{ required: ['branches'] }, { required: ['items', 'as', 'steps'], optional: ['index'] }],
  },
  expr: { category: 'control', fields: { value: f('value') } },
  Error: {
    category: 'control',
    fields: { message: f('value'), name: opt('value'), data: opt('value') },
  },

  // --- state -------------------------------------------------------------
  varSet: {
    category: 'state',
    fields: { key: f('name'), value: f('value') },
  },
  constSet: {
    category: 'state',
    fields: { key: f('name'), value: f('value') },
  },
  varsLet: { category: 'state', fields: { vars: f('bindings') } },
  varGet: { category: 'state', fields: { key: f('name') } },
  varsImport: {
    category: 'state',
    fields: { keys: f('names') },
  },
  varsExport: {
    category: 'state',
    fields: { keys: f('names') },
  },
  destructure: {
    category: 'state',
    fields: { kind: f('declKind'), pattern: f('pattern'), value: f('value') },
  },

  // --- collections ---------------------------------------------------------
  map: {
    category: 'collection',
    fields: { items: f('value'), as: f('name'), index: opt('name'), steps: f('steps') },
  },
  filter: {
    category: 'collection',
    fields: { items: f('value'), as: f('name'), index: opt('name'), condition: f('expr') },
  },
  reduce: {
    category: 'collection',
    fields: { items: f('value'), as: f('name'), accumulator: f('name'), initial: f('value'), steps: f('steps') },
  },
  find: {
    category: 'collection',
    fields: { items: f('value'), as: f('name'), index: opt('name'), condition: f('expr') },
  },
  push: { category: 'collection', doc: 'Append `item` to the array `list`; value is the new length.', fields: { list: f('value'), item: f('value') } },
  len: { category: 'collection', doc: 'Length of an array or string, or number of keys of an object.', fields: { value: f('value') } },
  split: { category: 'collection', doc: 'Split a string by a separator string.', fields: { value: f('value'), separator: f('value') } },
  join: { category: 'collection', doc: 'Join array items with a separator (default `,`).', fields: { items: f('value'), separator: opt('value') } },
  pick: { category: 'collection', doc: 'Copy of `object` with only `keys`.', fields: { object: f('value'), keys: f('value') } },
  omit: { category: 'collection', doc: 'Copy of `object` without `keys`.', fields: { object: f('value'), keys: f('value') } },
  merge: { category: 'collection', doc: 'Shallow merge of the objects in `objects`, later wins.', fields: { objects: f('value') } },
  keys: { category: 'collection', doc: 'Own keys of an object.', fields: { object: f('value') } },

  // --- text ----------------------------------------------------------------
  template: {
    category: 'text',
    doc: 'Fill `{{path}}` placeholders of `template` from `vars`.',
    fields: { template: f('value'), vars: opt('value') },
  },
  regexMatch: {
    category: 'text',
    doc: 'Match `value` against a ReDoS-guarded `pattern`; the match array or `null`.',
    fields: { pattern: f('value'), value: f('value'), flags: opt('value') },
  },
  jsonParse: { category: 'text', doc: 'Parse JSON text into plain data.', fields: { text: f('value') } },
  jsonStringify: { category: 'text', doc: 'Serialize a value to JSON text.', fields: { value: f('value'), indent: opt('value') } },

  // --- io (capabilities) ---------------------------------------------------
  httpFetch: {
    category: 'io',
    doc: 'HTTP request through `capabilities.fetch`.',
    fields: { url: f('value'), method: opt('value'), headers: opt('value'), body: opt('value') },
  },
  storeGet: { category: 'io', doc: 'Read a key through `capabilities.store.get`.', fields: { key: f('value') } },
  storeSet: { category: 'io', doc: 'Write a key through `capabilities.store.set`.', fields: { key: f('value'), value: f('value') } },
  storeQuery: { category: 'io', doc: 'Query through `capabilities.store.query`.', fields: { query: f('value') } },
  storeVectorSearch: {
    category: 'io',
    doc: 'Nearest neighbours through `capabilities.store.vectorSearch`.',
    fields: { collection: opt('value'), vector: f('value'), k: opt('value'), filter: opt('value') },
  },
  llmPredict: {
    category: 'io',
    doc: 'Completion through `capabilities.llm.predict`.',
    fields: { prompt: f('value'), system: opt('value'), model: opt('value'), options: opt('value') },
  },
  agentRun: {
    category: 'io',
    doc: 'Run another agent (procedure token or AST) with `input`; through `capabilities.agent.run` when given.',
    fields: { agentId: f('value'), input: opt('value') },
  },

  // --- procedures ------------------------------------------------------------
  storeProcedure: {
    category: 'procedure',
    doc: 'Store an AST in the procedure store; value is a `proc_` token.',
    fields: { ast: f('value'), ttl: opt('value'), maxSize: opt('value') },
  },
  releaseProcedure: { category: 'procedure', doc: 'Delete a stored procedure.', fields: { token: f('value') } },
  clearExpiredProcedures: { category: 'procedure', doc: 'Drop expired procedures; value is how many.', fields: {} },

  // --- utilities -------------------------------------------------------------
  random: { category: 'utility', doc: 'A random number in [0, 1) (or an integer in [min, max]).', fields: { min: opt('value'), max: opt('value') } },
  uuid: { category: 'utility', doc: 'A random RFC 4122 v4 UUID.', fields: {} },
  hash: { category: 'utility', doc: 'Hex SHA-256 of the JSON text of `value`.', fields: { value: f('value') } },
  memoize: {
    category: 'utility',
    fields: { key: f('value'), steps: f('steps') },
  },
  cache: {
    category: 'utility',
    mayWait: true,
    fields: { key: f('value'), ttlMs: opt('value'), steps: f('steps') },
  },
  consoleLog: { category: 'utility', doc: 'Log values (to trace and `capabilities.console`).', fields: { message: f('value') } },
  consoleWarn: { category: 'utility', doc: 'Warn (also added to the run\'s `warnings`).', fields: { message: f('value') } },
  consoleError: { category: 'utility', doc: 'Log an error message.', fields: { message: f('value') } },
} satisfies Record<string, OpSpec>

/** The core ops, indexable by any op name. */
export const CORE_OPS: Record<string, OpSpec> = CORE_OP_TABLE
export type CoreOp = keyof typeof CORE_OP_TABLE

export interface ExprSpec {
  fields: Record<string, FieldSpec>
  /** Like OpSpec.forms: a node takes exactly one form. */
  forms?: OpSpec['forms']
  /**
   * Kinds that are no expression on their own: `spread` only as an item of
   * an array, object or argument list, `lambda` only as a method's callback.
   */
  only?: 'item' | 'callback'
}

/**
 * Every `$expr` kind with its fields. Field kinds of expressions:
 * - `json`        JSON data (a `literal`'s value)
 * - `exprs`       a list of expressions
 * - `items`       a list of expressions or `spread` nodes
 * - `args`        a method's arguments: expressions, `spread` or `lambda` nodes
 * - `key`         a static property or method name (not a forbidden name)
 * - `keyOrExpr`   a key, or with `computed: true` an expression
 * - `flag`        a boolean
 * - `strings`     a list of strings
 * - `regexFlags`  regular expression flags (`gimsuy`)
 * - `patterns`    a list of binding patterns
 * - `properties`  object literal properties `{ key, computed?, value }` or `spread` nodes
 * - `lvalue`      an `ident` or `member` node
 * - `assignTarget` an `ident` or `member` node, or a pattern node
 * - `op`          an operator of the set named by `ops`
 * Descriptions are in docs.ts (kept out of the VM bundle).
 */
export const EXPR_KINDS = {
  literal: { fields: { value: f('json') } },
  ident: { fields: { name: f('name') } },
  member: { fields: { object: f('expr'), property: f('keyOrExpr'), computed: opt('flag'), optional: opt('flag') } },
  binary: { fields: { op: op('binary'), left: f('expr'), right: f('expr') } },
  logical: { fields: { op: op('logical'), left: f('expr'), right: f('expr') } },
  unary: { fields: { op: op('unary'), argument: f('expr') } },
  conditional: { fields: { test: f('expr'), consequent: f('expr'), alternate: f('expr') } },
  array: { fields: { elements: f('items') } },
  object: { fields: { properties: f('properties') } },
  spread: { fields: { argument: f('expr') }, only: 'item' },
  template: { fields: { quasis: f('strings'), expressions: f('exprs') } },
  call: { fields: { callee: f('name'), args: opt('items') } },
  methodCall: { fields: { object: f('expr'), method: f('key'), args: opt('args'), optional: opt('flag') } },
  lambda: {
    fields: { params: f('patterns'), body: opt('expr'), steps: opt('steps') },
    forms: [{ required: ['body'] }, { required: ['steps'] }],
    only: 'callback',
  },
  assign: { fields: { op: op('assign'), target: f('assignTarget'), value: f('expr') } },
  update: { fields: { op: op('update'), prefix: opt('flag'), argument: f('lvalue') } },
  sequence: { fields: { expressions: f('exprs') } },
  regex: { fields: { pattern: f('string'), flags: opt('regexFlags') } },
} as const satisfies Record<string, ExprSpec>

export type ExprKind = keyof typeof EXPR_KINDS
