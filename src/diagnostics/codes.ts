/**
 * The one registry of transpile-time diagnostic codes.
 *
 * Codes are stable: tests and tools match on `code`, never on prose. A code is
 * never reused for a different meaning; retired codes stay reserved. Messages
 * and hints are templates: `{name}` placeholders are filled from the params
 * given when the diagnostic is raised (see `fill`).
 *
 * Ranges: AJS1xxx program shape and syntax, AJS2xxx constructs AJS refuses,
 * AJS3xxx names and scopes, AJS4xxx signatures and documentation (warnings),
 * AJS5xxx workflow modules, AJS6xxx the type check against the atoms' schemas.

 * AJS7xxx Python code blocks.
 * VM runtime codes live in `runtime-codes.ts` (owned by the VM).
 */

export type Severity = 'error' | 'warning'

export interface CodeSpec {
  code: string
  severity: Severity
  /** Message template; `{param}` placeholders. */
  message: string
  /** A suggested rewrite; `{param}` placeholders. */
  hint: string
}

const e = (code: string, message: string, hint: string): CodeSpec => ({ code, severity: 'error', message, hint })
const w = (code: string, message: string, hint: string): CodeSpec => ({ code, severity: 'warning', message, hint })

export const CODES = {
  // --- AJS1xxx: syntax and program shape ------------------------------------
  PARSE_ERROR: e('AJS1001', 'Syntax error: {detail}', 'Fix the JavaScript syntax near the marker.'),
  NO_FUNCTION: e('AJS1002', 'The source declares no function', 'Write the agent as a function: `function agent({ input }) { ... return { ... } }`.'),
  TOP_LEVEL_STATEMENT: e('AJS1003', 'Only function declarations and `const`/`let` declarations may appear at the top level', 'Move this statement into a function body (the last function is the entry).'),
  ENTRY_PARAMS: e('AJS1004', 'The entry function `{name}` must take one destructured object or named parameters', 'Write the entry as `function {name}({ a, b = 1 }) { ... }`.'),
  REST_PARAM: e('AJS1005', 'A rest parameter is supported only as the last parameter of a named function (a helper or a local function), as a name', 'Take an array instead: `(items) => ...`; in a helper, `function f(first, ...rest)` works.'),
  EXPRESSION_SOURCE: e('AJS1006', 'Expected a single expression', 'Pass one expression such as `count > 3 && !done`.'),
  INTERPOLATION: e('AJS1007', '`ajs` tagged templates cannot interpolate values', 'Pass values as run arguments instead of `${...}` into the source.'),
  TOO_DEEP: e('AJS1020', 'The source nests deeper than {name}', 'Flatten it: give parts of a long expression names with `const` (e.g. `const head = a + b + c`), use a loop or `join` for long chains, and move deeply nested blocks into a helper function.'),

  // --- AJS2xxx: constructs AJS refuses ----------------------------------------
  CLASS: e('AJS2001', 'Classes are not supported', 'Use plain objects and helper functions: `function make(x) { return { x } }`.'),
  NEW: e('AJS2002', '`new {name}` is not supported', 'Call a function that returns plain data instead; the accepted forms are `new Error(msg)` (and the other error types), `new RegExp(pattern, flags)`, `new Date(...)`, `new Map(...)`, `new Set(xs)` read at once and `new Array(n).fill(v)`.'),
  // AJS2033 (NEW_DATE, "`new Date` is not supported") is retired: a Date lives in a variable now (AJS2042-AJS2044).
  DATE_VALUE: e('AJS2042', '`{name}` is a Date used here as a value: AJS keeps a Date only in a variable, and uses it through its methods, in arithmetic and in `<`, `>`, `<=`, `>=`', 'Pass or keep its text or its time instead: `{name}.toISOString()` or `{name}.getTime()`; a Date of its own is `new Date({name})`.'),
  DATE_METHOD: e('AJS2043', '`{name}` is not a Date method AJS has', 'A Date has getTime, valueOf, getTimezoneOffset, the getters and setters of FullYear, Month, Date, Hours, Minutes, Seconds, Milliseconds (and their UTC forms; getDay and getUTCDay), setTime, toISOString, toJSON, toString, toDateString, toTimeString, toUTCString, toLocaleString, toLocaleDateString and toLocaleTimeString.{suggest}'),
  MAP_VALUE: e('AJS2045', '`{name}` is a Map used here as a value: AJS keeps a Map only in a variable (or in a helper\'s parameter every call passes one), and uses it through its methods, `size`, spread, `for...of` and passing it to a helper', 'Pass or keep a copy of its entries instead: `[...{name}]`, or `Object.fromEntries({name})` for an object of its (text) keys. A helper given the Map changes the caller\'s: it need not return it.'),
  INTL_FORMAT: e('AJS2047', '`new Intl.{name}(...)` is supported only to format: `new Intl.NumberFormat(locales, options).format(x)` or `new Intl.DateTimeFormat(locales, options).format(d)`, written where it is used or kept in a variable that formats with `.format(x)`', 'Make the formatter where you format (`new Intl.NumberFormat(\'en-US\', { style: \'currency\', currency: \'USD\' }).format(total)`), or keep it (`const fmt = new Intl.NumberFormat(...)`) and call `fmt.format(x)`; or call `x.toLocaleString(locales, options)` / `d.toLocaleDateString(locales, options)`.'),
  INTL_FORMATTER: e('AJS2058', '`{name}` holds an Intl formatter: AJS keeps one only in a variable that is not reassigned, and formats with `{name}.format(x)`', 'Call `{name}.format(x)` where you format (as a callback: `xs.map((x) => {name}.format(x))`); to hand a formatter on or change it, pass its locales and options and make the formatter where it formats.'),
  RANDOM_UUID: e('AJS2059', '`crypto.randomUUID()` is the core atom `uuid()`, which the function `uuid` declared here hides', 'Rename your function `uuid`; `crypto.randomUUID()` then gives a fresh id, seeded and replayed in workflows as `uuid()` is.'),
  GROUP_BY: e('AJS2048', '`Object.groupBy` takes a variable (or a property of one) and an arrow function written in place', 'Name the items first, then group them: `const items = ...` and `Object.groupBy(items, (item) => item.kind)`.'),
  MAP_METHOD: e('AJS2046', '`{name}` is not a Map method AJS has', 'A Map has get, set, has, delete, clear, keys, values, entries, forEach and size; iterate it with `for (const [key, value] of m)`.{suggest}'),
  SET_VALUE: e('AJS2055', '`{name}` is a Set used here as a value: AJS keeps a Set only in a variable (or in a helper\'s parameter every call passes one), and uses it through its methods, `size`, spread, `for...of` and passing it to a helper', 'Pass or keep a copy of its members instead: `[...{name}]`. `s.add(x)` gives the Set: as a condition (`!seen.has(x) && seen.add(x)`), write `(seen.add(x), true)`. A helper given the Set changes the caller\'s: it need not return it.'),
  SET_METHOD: e('AJS2056', '`{name}` is not a Set method AJS has', 'A Set has add, has, delete, clear, keys, values, entries, forEach, size, union, intersection, difference, symmetricDifference, isSubsetOf, isSupersetOf and isDisjointFrom; iterate it with `for (const x of s)`.{suggest}'),
  SET_ARGUMENT: e('AJS2057', '`{name}` takes a Set (or a Map): JavaScript throws a TypeError for an array or any other value', 'Make a Set of the items first: `a.{name}(new Set(xs))`.'),
  COLLECTION_PARAM_MIXED: e('AJS2075', '`{name}` is called with a {kind} for its parameter `{param}` {where}, but {other}: a parameter holds a {kind} only when every call of its function passes one', 'Pass a {kind} at every call of `{name}` (`{make}` makes one), or a copy of its {items} at every call (`[...{arg}]`) and read it as an array in `{name}`.{extra}'),
  COLLECTION_PARAM_PATTERN: e('AJS2076', '`{name}` is called with a {kind} for its parameter `{param}`, which is {what}: a parameter holds a {kind} only as a plain name', 'Declare it as a plain parameter (`function {name}(..., {param}, ...)`) and pass a {kind} at every call; a {kind} cannot be destructured, and a rest parameter is an array.'),
  DATE_EQUALITY: e('AJS2044', '`{text}` compares Date objects, which JavaScript tells apart even when they hold the same time', 'Compare their times: `{rewrite}`.'),
  PROMISE_ALL_PLACE: e('AJS2036', '`Promise.all` must be the whole value of a statement', 'Give it its own statement, then use the result: `const results = await Promise.all([...])`.'),
  PROMISE_ALL_ARGS: e('AJS2037', '`Promise.all` takes {detail}', 'Write `Promise.all([f(), g()])` or `Promise.all(items.map((item) => f(item)))`.'),
  PROMISE_METHOD: e('AJS2038', '`Promise.{name}` is not supported: only `Promise.all` runs calls concurrently in AJS', 'Use `await Promise.all([...])`; to keep going past failures, catch inside each call: `Promise.all(xs.map(async (x) => { try { return await f(x) } catch (error) { return null } }))`.'),
  // AJS2040 (REPLACE_CALLBACK, "`replace` takes a replacement string, not a function") is retired: a callback works (AJS2049 for one of more than four parameters).
  REPLACE_CALLBACK_PARAMS: e('AJS2049', 'The callback of `{name}` takes at most four parameters in AJS: the match, its first groups, the offset and the text, as JavaScript passes them', 'Name the groups (`(?<year>\\d{4})`) and read them from `m.groups` after a `s.matchAll(re)`, or use at most four parameters.'),
  UNAWAITED_CALL: e('AJS2039', '`{name}` is an async function: its call must be awaited', 'Write `await {name}(...)` (in an async function), or remove `async` from `{name}`: in AJS every call waits for its result.'),
  CHAINED_COMPARISON: e('AJS2035', 'Chained comparison `{text}`: JavaScript would compare the boolean `{left}` with `{right}`', 'Write `{rewrite}`.'),
  NEW_ARRAY: e('AJS2041', '`{name}` is not supported: AJS has no array of empty slots (holes)', 'Fill it where you make it (`new Array(n).fill(0)`, `[...Array(n).keys()]`, `Array.from(Array(n), (_, i) => i)` work), or build it with its values: `Array.from({ length: n }, () => 0)`, `[a, b]` for given items.'),
  NEW_COLLECTION: e('AJS2034', '`new {name}` is not supported here: AJS values are plain data', 'Keep a Set in a variable (`const seen = new Set(xs)`, then `seen.has(x)`, `seen.add(x)`, `[...seen]`) and pass a copy of its members (`[...seen]`); a Set read at once works too: `[...new Set(xs)]`, `Array.from(new Set(xs))`, `for (const x of new Set(xs))`, `new Set(xs).size`, `new Set(xs).has(x)`. For a WeakMap or WeakSet use a Map or a Set.'),
  THIS: e('AJS2003', '`this` is not supported', 'Pass the object explicitly as a parameter.'),
  ASYNC: e('AJS2004', 'An async arrow function is accepted only as the callback of `Promise.all(xs.map(...))`', 'Remove `async` (array callbacks run one after another), or run the calls concurrently: `const rs = await Promise.all(xs.map(async (x) => f(x)))`.'),
  AWAIT: e('AJS2005', '`await` is only valid inside an `async` function', 'Mark the function `async`, or remove `await`: in AJS every call already waits for its result (`let r = httpFetch({ url })`).'),
  GENERATOR: e('AJS2006', 'Generators and `yield` are not supported', 'Build and return an array instead.'),
  EVAL: e('AJS2007', '`eval` is not supported', 'Write the code directly; use `JSON.parse(text)` to read data.'),
  FUNCTION_CONSTRUCTOR: e('AJS2008', '`Function` is not supported', 'Declare a top-level helper function instead.'),
  MODULE: e('AJS2009', '`import`/`export` are not supported (except `export default function` for the entry)', 'Put helpers in the same source; capabilities arrive as atoms such as `httpFetch({ url })`.'),
  WITH: e('AJS2010', '`with` is not supported', 'Name the object explicitly: `obj.a` instead of `with (obj) { a }`.'),
  ACCESSOR: e('AJS2011', 'Getters and setters are not supported', 'Use a plain property: `{ {name}: value }`.'),
  FORBIDDEN_NAME: e('AJS2012', '`{name}` is a forbidden name', 'Rename it (for example `{name}_`); `__proto__`, `constructor` and `prototype` are refused everywhere.'),
  CLOSURE: e('AJS2013', 'Arrow functions are only allowed as callbacks of array methods', 'Pass the arrow directly to an array method that takes a callback (`map`, `filter`, `reduce`, `sort`, ...) or as the mapper of `Array.from(x, (v, i) => ...)`, or declare a top-level helper function.'),
  NESTED_FUNCTION: e('AJS2014', 'The function `{name}` cannot be declared here: it is declared again in the same function, or inside a function AJS refuses', 'Declare `{name}` once, inside a function (a local function) or at the top level, and pass what it needs as parameters.'),
  LOCAL_FUNCTION_VALUE: e('AJS2050', '`{name}` is a local function: it can be called or passed as a callback, not used as a value', 'Call it (`{name}(x)`), or pass it to an array method (`xs.map({name})`); to hand a function on, declare a top-level helper.'),
  LOCAL_FUNCTION_ASSIGNS: e('AJS2051', 'The local function `{name}` assigns `{target}`, a variable of the function around it', 'Return the new value and assign it where you call it: `{target} = {name}(...)`; a local function may read the variables around it and change the objects they hold.'),
  LOCAL_FUNCTION_SHADOWED: e('AJS2052', '`{name}` reads `{target}` of the function around it, but here `{target}` is another variable (a {kind}) that cannot be renamed for it', 'Rename one of the two `{target}` variables (other variables are renamed for you; a `var`, a class or a function that is not a local function are not).'),
  LOCAL_FUNCTION_ASYNC_READS: e('AJS2053', 'The async local function `{name}` reads `{target}`, which the function around it reassigns', 'Pass `{target}` to `{name}` as a parameter, or declare it with `const`: across an `await` an async local function reads the variables around it as they were when it was called.'),
  LOCAL_FUNCTION_CAPTURES: e('AJS2054', 'The local function `{name}` reads more than {max} variables of the functions around it (with those of the local functions it calls)', 'Pass them to `{name}` in one object, or declare it at the top level with the parameters it needs.'),
  LOCAL_FUNCTION_DEPTH: e('AJS2064', 'The local function `{name}` is nested more than {max} local functions deep', 'Declare some of them beside each other (a local function may call any other it can see), or at the top level with the parameters they need.'),
  REST_SPREAD: e('AJS2060', 'A spread before the rest parameter of `{name}` is not supported', 'Pass the arguments before the rest one by one, and spread only into the rest: `{name}(a, ...xs)`.'),
  TABLE_USE: e('AJS2061', '`{name}` is an object of functions, used here as a value', 'Call its functions (`{name}.key(x)`, `{name}[key](x)`), test a key (`key in {name}`, `if ({name}[key])`) or list them (`Object.keys({name})`): AJS functions are not values.'),
  TABLE_KEY: e('AJS2062', '`{name}` has no function `{key}`', '{suggest}Its functions are the keys it is written with.'),
  TABLE_TOO_LARGE: e('AJS2063', '`{name}` is called by a computed key in too many places for its {count} functions', 'Each such call is written out once per function of the object: call them by name (`{name}.key(x)`), put the call in one local function, or split the object.'),
  FUNCTION_ARGUMENT_COPIES: e('AJS2065', '`{name}` is called with a function in too many places', 'Each such call gets its own copy of `{name}`, and together they would be many times the source: call it with a function in fewer places (a loop calling it once), or pass data and branch on it inside `{name}`.'),
  FUNCTION_ARGUMENT_HIDDEN: e('AJS2066', '`{name}` is called with a function here, and reads `{target}`, which is another variable here (a {kind})', 'Rename this `{target}`: the call gets its own copy of `{name}`, declared here, where `{target}` would be this variable instead of the one `{name}` reads.'),
  FUNCTION_ARGUMENT_HEAD: e('AJS2067', '`{name}` is called with a function reading `{target}`, a variable of the loop head or the parameters the call is in', 'The call gets its own copy of `{name}`, declared before that loop or function, where `{target}` is not this variable: call `{name}` in the loop\'s (or the function\'s) body and keep its value in a variable.'),
  FUNCTION_ARGUMENT_ASYNC_READS: e('AJS2068', '`{name}` is called with a function reading `{target}`, which the function around it reassigns, and the call is not awaited where it is made', 'The function runs while `{name}` runs: await the call at once (`x = await {name}(...)`, not in `Promise.all` or a callback), so that nothing assigns `{target}` meanwhile, or copy `{target}` into a `const` before the call and read that.'),
  FUNCTION_ARGUMENT_RECURSION: e('AJS2069', '`{name}` is called here, inside a call of itself, with a new function', 'Each call of `{name}` with a function gets its own copy, and this one would need a copy per level of the recursion: pass the function on unchanged (`{name}(f, ...)`), and what the new function adds as data (another argument) that `{name}` applies itself.'),
  FUNCTION_ARGUMENT_DEPTH: e('AJS2070', '`{name}` is given a function passed on through more than {max} helpers', 'Each helper passing a function on gets its own copy, inside the copy of the one before: call the function in fewer layers of helpers, or pass the inner helpers data and call the function in an outer one.'),
  FUNCTION_ARGUMENT_UNUSABLE: e('AJS2071', '`{name}` is given a function here, but does more with that parameter than call it', 'A helper may be given a function where it calls that parameter, passes it to an array method (`xs.map(f)`) or passes it on to a helper or a local function of its own that does, and nothing else (storing, returning or comparing it): call the parameter in `{name}` itself, or pass `{name}` data and branch on it.'),
  FACTORY_CALL: e('AJS2072', '`{name}` makes the function passed here, and this call of it cannot be written out: {why}', 'AJS writes the function `{name}` makes where it is called, reading the arguments each time that function runs: {fix}.'),
  FACTORY_VALUE: e('AJS2073', '`{name}(...)` makes a function here, and functions are not values', 'Call `{name}(...)` where the function goes: as an array method\'s callback (`xs.sort({name}(...))`) or an argument of a helper that calls it.'),
  VAR: e('AJS2015', '`var` is not supported', 'Use `let` (or `const`): `let {name} = ...`.'),
  SPARSE_ARRAY: e('AJS2016', 'Array holes are not supported', 'Write `undefined` (or `null`) explicitly: `[1, undefined, 3]`.'),
  ARGUMENTS: e('AJS2017', '`arguments` is not supported', 'Name the parameters, or pass an array.'),
  LABEL: e('AJS2018', 'Only loops can be labelled', 'Remove the label, or put it on a `for`/`while`/`do` loop.'),
  INSTANCEOF: e('AJS2019', '`instanceof` is only supported for error types, on a variable or property', '`e instanceof Error` (or TypeError, RangeError, SyntaxError, ReferenceError) works on a variable: store a call\'s value first. For other types use `Array.isArray(x)` or `typeof x === "object"`.'),
  TAGGED_TEMPLATE: e('AJS2020', 'Tagged templates are not supported', 'Use a plain template literal `` `...${x}` `` or call a helper with the parts.'),
  DEBUGGER: e('AJS2021', '`debugger` is not supported', 'Remove it; use `consoleLog({ message })` or the VM trace.'),
  FUNCTION_EXPRESSION: e('AJS2022', 'Function expressions are not supported', 'Use an arrow callback (`x => ...`) for array methods, or a top-level helper function.'),
  OBJECT_METHOD: e('AJS2023', 'Object methods are not supported', 'Functions are not values: declare a top-level helper `function {name}(...) { ... }`.'),
  OPTIONAL_CALL: e('AJS2024', 'Optional calls `f?.()` are not supported', 'Functions are not values; call the method directly or test the object first: `a?.b()`.'),
  COMPUTED_CALL: e('AJS2025', 'Calls must name the function or method', 'Call a method by name (`obj.method()`) or a helper (`helper(x)`), not a computed or returned function.'),
  DELETE_TARGET: e('AJS2026', '`delete` only applies to properties', 'Write `delete obj.key` or `delete obj[key]`.'),
  BIGINT: e('AJS2027', 'BigInt literals are not supported', 'Use a number, or a string for big identifiers.'),
  PAREN_CHAIN: e('AJS2028', 'A parenthesized optional chain cannot be continued', 'Remove the parentheses: `a?.b.c`, or test explicitly.'),
  META: e('AJS2029', '`{name}` is not supported', 'Pass what you need as a parameter.'),
  UNSUPPORTED: e('AJS2030', '{name} is not supported in AJS', 'Rewrite it with the statements and expressions listed in docs/language.md.'),
  CALLBACK: e('AJS2031', 'The callback of `{name}` must be an arrow function written in place, or the name of a helper or of a global function that reads a value (`Boolean`, `Number`, `String`, ...)', 'Write `xs.{name}(x => ...)`.'),
  SEQUENCE_PATTERN: e('AJS2032', 'Unsupported binding form', 'Use a name, `{ a, b }` or `[a, b]`.'),

  // --- AJS3xxx: names and scopes -------------------------------------------------
  UNKNOWN_IDENTIFIER: e('AJS3001', '`{name}` is not declared', '{suggest}Declare it first: `let {name} = ...`.'),
  UNKNOWN_FUNCTION: e('AJS3002', 'Unknown function `{name}`', '{suggest}Call a helper declared in this source (helpers come before the entry, which is the last function unless one is marked `export default`), an atom or a global function.'),
  PARALLEL_ASSIGN: e('AJS3011', 'A `Promise.all` callback cannot assign `{name}`, declared outside it', 'Return the value instead and use the array `Promise.all` gives (in item order); each call runs on its own copy of the outer variables.'),
  CONST_ASSIGN: e('AJS3003', 'Assignment to constant `{name}`', 'Declare it with `let {name} = ...` if it must change.'),
  NOT_A_FUNCTION: e('AJS3004', '`{name}` is a variable, not a function', 'Rename the variable, or call the helper by another name.'),
  INVALID_TARGET: e('AJS3005', 'Cannot assign to `{name}`', 'Assign to a variable declared with `let`, or to a property `obj.key`.'),
  FUNCTION_VALUE: e('AJS3006', 'Functions are not values: `{name}` can only be called', 'Call it where needed: `{name}(...)`.'),
  TDZ: e('AJS3007', '`{name}` is used before its declaration', 'Move the declaration of `{name}` before this use{extra}.'),
  NAMESPACE_VALUE: e('AJS3009', '`{name}` can only be used as `{name}.member`', 'Call its members directly, for example `{name}.max(a, b)` or `{name}.stringify(v)`.'),
  ATOM_ARGS: e('AJS3008', 'Atom `{name}` {detail}', 'Call atoms with one object: `{name}({ {fields} })`.'),
  LATE_BOUND_ATOM: w('AJS3010', '`{name}` is not declared here: compiled as a call of a custom atom the VM must provide', '{suggest}Register it on the VM that runs the program (`new AgentVM({ {name} })`), or pass `atoms: [\'{name}\']` to transpile to declare it.'),

  // --- AJS5xxx: workflow modules (ajs-lang/workflows) ---------------------------------
  WORKFLOW_IMPORT: e('AJS5001', 'A workflow module can only import `sleep` from "workflow:extra"', 'Write `import { sleep } from \'workflow:extra\'`; the other workflow functions (agent, workflow, log, phase, parallel, pipeline) are globals.'),
  WORKFLOW_EXPORT: e('AJS5002', 'A workflow module exports only `meta` and a default value', 'Write `export const meta = { ... }` and `export default <value>`.'),
  WORKFLOW_META: e('AJS5003', '`meta` must be a literal: {detail}', 'Use only objects, arrays, strings, numbers, booleans and null: `export const meta = { name: "triage", version: 2 }`.'),
  WORKFLOW_DEFAULT_LAST: e('AJS5004', '`export default` must be the last statement of a workflow module', 'Move `export default <value>` to the end; compute the value before it.'),
  WORKFLOW_AWAIT: e('AJS5005', '`await` is accepted only directly before a call', 'Write `await agent(...)`, or drop the `await`: every call already waits for its result.'),
  WORKFLOW_NONDETERMINISM: e('AJS5006', '`{name}` is nondeterministic and not available in a workflow', 'Pass the value in `args`, or wait with `sleep(ms)`; a workflow must replay to the same state.'),
  WORKFLOW_CALL: e('AJS5007', '`{name}` {detail}', 'Call it as `{usage}`.'),
  WORKFLOW_BUDGET: e('AJS5008', '`budget` is used only as `budget.total`, `budget.spent()` or `budget.remaining()`', 'Read a number from it: `if (budget.remaining() < 10) ...`.'),
  WORKFLOW_RESERVED: e('AJS5009', '`{name}` is a workflow global and cannot be redeclared', 'Rename your function or variable (for example `{name}Step`).'),
  WORKFLOW_TASKS: e('AJS5010', '`{name}` takes tasks written in place: {detail}', 'Write `{name}([() => agent(a), () => agent(b)])` or `{name}(items.map((item) => () => agent(item)))`.'),

  // --- AJS6xxx: type check against the atoms' schemas (transpile's `typecheck`) -----------
  ATOM_ARG_MISSING: e('AJS6001', '{name} needs the field `{field}`', 'Pass every required field: `{fields}`.'),
  ATOM_ARG_TYPE: e('AJS6002', '{field} must be {expected}, got {actual}', '{hint}'),
  ATOM_ARG_UNKNOWN: e('AJS6003', '{name} takes no field `{field}`', '{suggest}Its fields are: {fields}.'),
  RESULT_FIELD: e('AJS6004', '`{field}` is not a field of {what}', '{suggest}Its fields are: {fields}.'),
  RESULT_MISUSE: e('AJS6005', '{what} is {actual}: {detail}', '{fix}'),

  // --- AJS7xxx: Python code blocks (ajs-lang/python) ----------------------------
  PY_SYNTAX: e('AJS7001', 'Python syntax error: {detail}', '{fix}'),
  PY_IMPORT: e('AJS7002', '`import` is not allowed in a code block', '{fix}'),
  PY_FORBIDDEN: e('AJS7003', '`{name}` is not allowed in a code block', '{fix}'),
  PY_UNSUPPORTED: e('AJS7004', '{name} is not supported in code blocks', '{fix}'),
  PY_DUNDER: e('AJS7005', 'Dunder attribute `{name}` is not allowed', 'Code blocks cannot reach the object model; work with the value itself (len(x), isinstance(x, int), str(x)).'),
  PY_UNKNOWN_NAME: e('AJS7006', '`{name}` is not defined', '{suggest}Assign it before use, take it as an input field, or use an allowed builtin.'),
  PY_ATTRIBUTE: e('AJS7007', 'Attribute `.{name}` can only be called as a method', '{fix}'),
  PY_FUNCTION_VALUE: e('AJS7008', 'Function `{name}` is used as a value', "Functions can be called, or passed as `key=` to sorted/min/max/list.sort; store data, not functions. The `extended` profile accepts functions as values: transpilePython(body, { profile: 'extended' })."),
  PY_ARGUMENTS: e('AJS7009', 'Bad arguments for `{name}`: {detail}', '{fix}'),
  PY_TARGET: e('AJS7010', 'Cannot assign to {name}', 'Assign to a variable, `x[i]`, or a tuple of those: `a, b = pair`.'),
  PY_PARAMS: e('AJS7011', 'Invalid block parameters: {detail}', 'Pass `params` as the wrapper\'s parameter names, `initial` first, then the input_schema fields in order: `transpilePython(body, { params: [\'initial\', \'name\'] })`.'),

  // --- AJS4xxx: signatures and docs (warnings) ----------------------------------------
  JSDOC_TYPE: w('AJS4001', 'Unknown JSDoc type `{type}` for `{name}`', 'Use string, number, integer, boolean, object, any, T[] or Array<T>.'),
  JSDOC_PARAM: w('AJS4002', 'JSDoc `@param {name}` matches no parameter', 'Name a parameter of the entry function (or `input.name` for a destructured one).'),
  UNUSED_FUNCTION: w('AJS4004', 'The function `{name}` is never called (the entry is `{entry}`)', 'The last function is the entry: declare helpers before it, or mark the entry with `export default function`.'),
  LOOSE_EQUALITY: w('AJS4003', '`{op}` does not coerce types in AJS', 'Write `{strict}` to make the intent explicit (`x == null` is fine).'),
} as const satisfies Record<string, CodeSpec>

export type CodeName = keyof typeof CODES

// `${x}` in a hint is JavaScript the user should write (AJS2020's template literal), not a placeholder.
const PLACEHOLDER = /(?<!\$)\{(\w+)\}/

/**
 * Each template split once at its placeholders (text, name, text, ...): a transpile that warns fills
 * a message and a hint per warning, and a regex replace with a callback was ~2 µs of each.
 */
const pieces = new Map<string, string[]>()

/** Fill `{param}` placeholders; unknown params become empty strings. */
export function fill(template: string, params: Record<string, string | undefined>): string {
  let parts = pieces.get(template)
  if (parts === undefined) pieces.set(template, parts = template.split(PLACEHOLDER))
  let out = parts[0]!
  for (let i = 1; i < parts.length; i += 2) out += (params[parts[i]!] ?? '') + parts[i + 1]!
  return out
}

/** All codes by their `AJS....` id (for tools and docs). */
export const CODES_BY_ID: ReadonlyMap<string, CodeSpec & { name: CodeName }> = new Map(
  (Object.keys(CODES) as CodeName[]).map((name) => [CODES[name].code, { ...CODES[name], name }]),
)
