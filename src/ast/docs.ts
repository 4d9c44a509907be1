/**
 * Descriptions of the language ops and expression kinds, for the docs and
 * the JSON Schema. They are kept out of nodes.ts so the VM bundle does not
 * carry them: the VM only needs the descriptions of atoms (nodes.ts), which
 * become tool definitions at run time.
 */
import { CORE_OPS } from './nodes.ts'

export const LANGUAGE_OP_DOCS: Readonly<Record<string, string>> = {
  seq: 'Run steps in order (a block).',
  scope: 'A block with its own lexical scope.',
  if: 'Run `then` when `condition` is truthy, else `else`.',
  while: 'Loop while `condition` is truthy.',
  doWhile: 'Run `body`, then loop while `condition` is truthy.',
  for: 'C-style loop; `init` declarations are scoped to the loop.',
  forOf: 'Iterate the elements of an array (or characters of a string).',
  forIn: 'Iterate the own enumerable keys of an object (indices of an array).',
  switch: 'JavaScript `switch` with strict-equality matching and fall-through.',
  break: 'Leave the innermost (or labelled) loop or switch.',
  continue: 'Next iteration of the innermost (or labelled) loop.',
  return: 'Return from the current function (or lambda).',
  throw: 'Throw a value as a guest error.',
  try: 'Run `try`; on error bind `catchParam` and run `catch`; always run `finally`.',
  parallel: 'Run concurrently, in one of two forms: `branches` (each list of steps once), or `items`/`as`/`steps` (the steps once per item, each run with its own copy of the variables). The value is the array of the `return` values, in order; the first error ends the step and cancels the others.',
  expr: 'Evaluate an expression (its value goes to `result`).',
  Error: 'Throw an error with `message` (and optional `name`, `data`).',
  varSet: 'Assign `value` to the variable `key` in scope (declaring it in the function scope if none).',
  constSet: 'Declare a block-scoped constant.',
  varsLet: 'Declare block-scoped `let` variables, in order.',
  varGet: 'Read a variable (value goes to `result`).',
  varsImport: 'Declare `let` variables from the same-named fields of the run\'s args.',
  varsExport: 'Build an object from the named variables (value goes to `result`).',
  destructure: 'Destructure `value` into `pattern` as a `let`/`const` declaration or an assignment.',
  map: 'For each item (bound to `as`), run `steps`; the `return` value of each iteration forms the array.',
  filter: 'Keep the items (bound to `as`) for which `condition` is truthy.',
  reduce: 'Fold items: `accumulator` starts at `initial`; each iteration `return`s the next accumulator.',
  find: 'The first item (bound to `as`) for which `condition` is truthy, else `null`.',
  memoize: 'Run `steps` once per `key` within a run; later calls reuse the `return` value.',
  cache: 'Like memoize, but kept across runs in `capabilities.store` (under the key `cache:` followed by the JSON text of `key`, e.g. `cache:"user-1"` for the key `"user-1"`) for `ttlMs`.',

}

export const EXPR_DOCS: Readonly<Record<string, string>> = {
  literal: 'A constant JSON value (copied fresh each time).',
  ident: 'A variable, or a global value or namespace (as data holding its constants).',
  member: 'Property access; null-safe; `computed` for `a[i]`, `optional` for `a?.b`.',
  binary: 'Arithmetic, comparison, bitwise, `in`.',
  logical: 'Short-circuiting `&&`, `||`, `??`.',
  unary: 'Unary operators; `delete` needs a member argument.',
  conditional: 'Ternary `a ? b : c`.',
  array: 'Array literal (elements may be `spread`).',
  object: 'Object literal (properties may be `spread`).',
  spread: '`...x`, only inside `array`, `object` and call arguments.',
  template: 'Template literal: one more quasi than expressions.',
  call: 'Helper, atom or global function call.',
  methodCall: 'Allowlisted method or namespace static.',
  lambda: 'Arrow callback of an array method only; `body` (an expression) or `steps` (a block).',
  assign: 'Assignment (also compound and logical); `target` a pattern only with `=`.',
  update: '`++` / `--`, prefix or postfix.',
  sequence: 'Comma operator.',
  regex: 'Regular expression literal (ReDoS-guarded).',
}

/** What each expression kind looks like in JavaScript (docs/ast.md). */
export const EXPR_EXAMPLES: Readonly<Record<string, string>> = {
  literal: '`42`, `"s"`, `null`, `[1]`',
  ident: '`x`, `undefined`, `Math`',
  member: '`a.b`, `a[i]`, `a?.b`',
  binary: '`a + b`, `a in o`',
  logical: '`a && b`, `a ?? b`',
  unary: '`-x`, `typeof x`',
  conditional: '`a ? b : c`',
  array: '`[a, ...b]`',
  object: '`{ a, [k]: v, ...o }`',
  spread: '`...x`',
  template: '`` `a${x}b` ``',
  call: '`f(x)`, `httpFetch({ url })`, `parseInt(s)`',
  methodCall: '`s.trim()`, `Math.max(a, b)`, `xs.map(x => x * 2)`',
  lambda: '`x => x * 2`, `x => { return x }`',
  assign: '`a.b = c`, `x += 1`, `[a, b] = [b, a]`',
  update: '`i++`, `--n`',
  sequence: '`a, b`',
  regex: '`/ab+c/i`',
}

/** Descriptions of the operator sets. */
export const OPERATOR_DOCS: Readonly<Record<string, string>> = {
  binary: 'arithmetic, comparison (`==`/`!=` never coerce), bitwise, `in`',
  logical: 'short-circuiting',
  unary: 'prefix operators',
  assign: 'plain, compound and logical assignment',
  update: 'increment and decrement',
}

/** Descriptions of language-op fields whose kind alone does not say enough. */
const LANGUAGE_FIELD_DOCS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  parallel: {
    items: 'run `steps` once per item, all at once',
    as: 'the item, in each run of `steps`',
    index: 'the item\'s index',
    steps: 'the body run per item; it may not assign variables declared outside it',
  },
}

/** The description of a core op's field, when it has one. */
export function fieldDoc(op: string, field: string): string | undefined {
  return LANGUAGE_FIELD_DOCS[op]?.[field] ?? CORE_OPS[op]?.fields[field]?.doc ?? (field === 'label' ? 'loop label for labelled break/continue' : undefined)
}

/** The description of any core op. */
export function opDoc(op: string): string | undefined {
  return CORE_OPS[op]?.doc ?? LANGUAGE_OP_DOCS[op]
}

/** What each runtime library of the catalog (libraries.ts) is, and which frontend's programs declare it. */
export const LIBRARY_DOCS: Readonly<Record<import('./libraries.ts').LibraryName, { doc: string; frontend: string }>> = {
  python: { doc: 'Python semantics (numbers, strings, containers, exceptions): the `py$...` functions.', frontend: '`transpilePython`, Python code blocks' },
  flow: { doc: 'Flow steps: step events, model calls, branch handles, loop inputs, flow errors.', frontend: '`compileFlow` (SavedFlow and Block flows)' },
  flowlang: { doc: 'FlowLang blocks as atoms: model rounds, codecs, shapers, tool calls through the session\'s capabilities.', frontend: 'a FlowLang graph\'s turn (`compileTurnProgram`)' },
  workflow: { doc: 'The workflow boundary: agent requests, child workflows, durable sleep, logs, budget: journaled by the workflow engine.', frontend: '`compileWorkflow` (workflow modules)' },
}
