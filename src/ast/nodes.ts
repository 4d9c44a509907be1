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
  | 'value' | 'expr' | 'name' | 'names' | 'string' | 'steps' | 'branches'
  | 'pattern' | 'bindings' | 'cases' | 'declKind'

export interface FieldSpec {
  kind: FieldKind
  optional?: boolean
  doc?: string
}

export type OpCategory = 'control' | 'state' | 'collection' | 'text' | 'io' | 'procedure' | 'utility'

export interface OpSpec {
  category: OpCategory
  fields: Record<string, FieldSpec>
  doc: string
}

const f = (kind: FieldKind, doc?: string): FieldSpec => ({ kind, doc })
const opt = (kind: FieldKind, doc?: string): FieldSpec => ({ kind, optional: true, doc })

/** Identifiers: JS identifier names (ASCII letters, digits, `_`, `$`). */
export const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** Property and variable names that are refused everywhere (prototype reach). */
export const FORBIDDEN_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

const label = opt('string', 'loop label for labelled break/continue')

/** The core ops. Custom atoms (defineAtom) add ops whose fields are all `value`. */
export const CORE_OPS: Record<string, OpSpec> = {
  // --- control -----------------------------------------------------------
  seq: { category: 'control', doc: 'Run steps in order (a block).', fields: { steps: f('steps') } },
  scope: { category: 'control', doc: 'A block with its own lexical scope.', fields: { steps: f('steps') } },
  if: {
    category: 'control',
    doc: 'Run `then` when `condition` is truthy, else `else`.',
    fields: { condition: f('expr'), then: f('steps'), else: opt('steps') },
  },
  while: {
    category: 'control',
    doc: 'Loop while `condition` is truthy.',
    fields: { condition: f('expr'), body: f('steps'), label },
  },
  doWhile: {
    category: 'control',
    doc: 'Run `body`, then loop while `condition` is truthy.',
    fields: { condition: f('expr'), body: f('steps'), label },
  },
  for: {
    category: 'control',
    doc: 'C-style loop; `init` declarations are scoped to the loop.',
    fields: { init: opt('steps'), condition: opt('expr'), update: opt('expr'), body: f('steps'), label },
  },
  forOf: {
    category: 'control',
    doc: 'Iterate the elements of an array (or characters of a string).',
    fields: { target: f('pattern'), kind: opt('declKind'), iterable: f('expr'), body: f('steps'), label },
  },
  forIn: {
    category: 'control',
    doc: 'Iterate the own enumerable keys of an object (indices of an array).',
    fields: { target: f('pattern'), kind: opt('declKind'), object: f('expr'), body: f('steps'), label },
  },
  switch: {
    category: 'control',
    doc: 'JavaScript `switch` with strict-equality matching and fall-through.',
    fields: { discriminant: f('expr'), cases: f('cases'), label },
  },
  break: { category: 'control', doc: 'Leave the innermost (or labelled) loop or switch.', fields: { label } },
  continue: { category: 'control', doc: 'Next iteration of the innermost (or labelled) loop.', fields: { label } },
  return: { category: 'control', doc: 'Return from the current function (or lambda).', fields: { value: opt('value') } },
  throw: { category: 'control', doc: 'Throw a value as a guest error.', fields: { value: f('value') } },
  try: {
    category: 'control',
    doc: 'Run `try`; on error bind `catchParam` and run `catch`; always run `finally`.',
    fields: { try: f('steps'), catchParam: opt('pattern'), catch: opt('steps'), finally: opt('steps') },
  },
  parallel: {
    category: 'control',
    doc: 'Run branches concurrently; the value is the array of the branches\' `return` values.',
    fields: { branches: f('branches') },
  },
  expr: { category: 'control', doc: 'Evaluate an expression (its value goes to `result`).', fields: { value: f('value') } },
  Error: {
    category: 'control',
    doc: 'Throw an error with `message` (and optional `name`, `data`).',
    fields: { message: f('value'), name: opt('value'), data: opt('value') },
  },

  // --- state -------------------------------------------------------------
  varSet: {
    category: 'state',
    doc: 'Assign `value` to the variable `key` in scope (declaring it in the function scope if none).',
    fields: { key: f('name'), value: f('value') },
  },
  constSet: {
    category: 'state',
    doc: 'Declare a block-scoped constant.',
    fields: { key: f('name'), value: f('value') },
  },
  varsLet: { category: 'state', doc: 'Declare block-scoped `let` variables, in order.', fields: { vars: f('bindings') } },
  varGet: { category: 'state', doc: 'Read a variable (value goes to `result`).', fields: { key: f('name') } },
  varsImport: {
    category: 'state',
    doc: 'Declare `let` variables from the same-named fields of the run\'s args.',
    fields: { keys: f('names') },
  },
  varsExport: {
    category: 'state',
    doc: 'Build an object from the named variables (value goes to `result`).',
    fields: { keys: f('names') },
  },
  destructure: {
    category: 'state',
    doc: 'Destructure `value` into `pattern` as a `let`/`const` declaration or an assignment.',
    fields: { kind: f('declKind'), pattern: f('pattern'), value: f('value') },
  },

  // --- collections ---------------------------------------------------------
  map: {
    category: 'collection',
    doc: 'For each item (bound to `as`), run `steps`; the `return` value of each iteration forms the array.',
    fields: { items: f('value'), as: f('name'), index: opt('name'), steps: f('steps') },
  },
  filter: {
    category: 'collection',
    doc: 'Keep the items (bound to `as`) for which `condition` is truthy.',
    fields: { items: f('value'), as: f('name'), index: opt('name'), condition: f('expr') },
  },
  reduce: {
    category: 'collection',
    doc: 'Fold items: `accumulator` starts at `initial`; each iteration `return`s the next accumulator.',
    fields: { items: f('value'), as: f('name'), accumulator: f('name'), initial: f('value'), steps: f('steps') },
  },
  find: {
    category: 'collection',
    doc: 'The first item (bound to `as`) for which `condition` is truthy, else `null`.',
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
    doc: 'Run `steps` once per `key` within a run; later calls reuse the `return` value.',
    fields: { key: f('value'), steps: f('steps') },
  },
  cache: {
    category: 'utility',
    doc: 'Like memoize, but kept across runs in `capabilities.store` (key `cache:<key>`) for `ttlMs`.',
    fields: { key: f('value'), ttlMs: opt('value'), steps: f('steps') },
  },
  consoleLog: { category: 'utility', doc: 'Log values (to trace and `capabilities.console`).', fields: { message: f('value') } },
  consoleWarn: { category: 'utility', doc: 'Warn (also added to the run\'s `warnings`).', fields: { message: f('value') } },
  consoleError: { category: 'utility', doc: 'Log an error message.', fields: { message: f('value') } },
}

export interface ExprSpec {
  /** Child fields holding expressions (or arrays of them), for walkers. */
  children: string[]
  doc: string
}

/** Every `$expr` kind with its child fields. */
export const EXPR_KINDS: Record<string, ExprSpec> = {
  literal: { children: [], doc: 'A constant JSON value.' },
  ident: { children: [], doc: 'A variable, or a global (`Math`, `JSON`, `undefined`, ...).' },
  member: { children: ['object', 'property'], doc: 'Property access; null-safe; `computed` for `a[i]`.' },
  binary: { children: ['left', 'right'], doc: 'Arithmetic, comparison, bitwise, `in`.' },
  logical: { children: ['left', 'right'], doc: '`&&`, `||`, `??` with short-circuit.' },
  unary: { children: ['argument'], doc: '`-`, `+`, `!`, `~`, `typeof`, `void`, `delete`.' },
  conditional: { children: ['test', 'consequent', 'alternate'], doc: 'Ternary `a ? b : c`.' },
  array: { children: ['elements'], doc: 'Array literal (elements may be `spread`).' },
  object: { children: ['properties'], doc: 'Object literal (properties may be `spread`).' },
  spread: { children: ['argument'], doc: '`...x` inside array, object or call arguments.' },
  template: { children: ['expressions'], doc: 'Template literal.' },
  call: { children: ['args'], doc: 'Helper, atom or global function call.' },
  methodCall: { children: ['object', 'args'], doc: 'Allowlisted method or namespace static.' },
  lambda: { children: ['body'], doc: 'Arrow callback of an array method.' },
  assign: { children: ['target', 'value'], doc: 'Assignment (also compound and logical).' },
  update: { children: ['argument'], doc: '`++` / `--`, prefix or postfix.' },
  sequence: { children: ['expressions'], doc: 'Comma operator.' },
  regex: { children: [], doc: 'Regular expression literal (ReDoS-guarded).' },
}
