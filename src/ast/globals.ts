/**
 * The global names guest code may use without declaring them, declared once:
 * the transpiler resolves names against these lists, and the VM's builtin
 * tables (src/vm/builtins/globals.ts) are typed from them, so a name added
 * here without an implementation (or implemented without being listed) does
 * not type-check.
 */

/** Identifiers that are plain values. */
export const GLOBAL_VALUE_NAMES = ['undefined', 'NaN', 'Infinity'] as const

/**
 * Namespaces: usable as the object of a member access or method call
 * (`Math.max`, `Date.now()`, `console.log`); as values they are frozen data
 * holding their constants.
 */
export const GLOBAL_NAMESPACE_NAMES = ['Math', 'JSON', 'Object', 'Array', 'Number', 'String', 'Date', 'Set', 'Map', 'console'] as const

/** The global functions that make error objects (`new Error(...)` lowers to a call of one). */
export const ERROR_CONSTRUCTOR_NAMES = ['Error', 'TypeError', 'RangeError', 'SyntaxError'] as const

/**
 * The names an error value a guest holds can have: what those functions make, and what a caught
 * VM error is (a REFERENCE_ERROR is a ReferenceError). `e instanceof TypeError` tests the name.
 */
export const ERROR_VALUE_NAMES = [...ERROR_CONSTRUCTOR_NAMES, 'ReferenceError'] as const
export type ErrorValueName = (typeof ERROR_VALUE_NAMES)[number]

/**
 * The global functions that read a value (parseInt also a radix) and nothing else: one may be named as an
 * array method's callback (`xs.filter(Boolean)`, `xs.map(Number)`), which calls it as JavaScript does.
 */
export const VALUE_FUNCTION_NAMES = [
  'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'String', 'Number', 'Boolean',
  'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI', 'btoa', 'atob',
] as const

/** Global functions callable by name (`new RegExp(p, f)` lowers to `RegExp(p, f)`, as `new Error(m)` to `Error(m)`). */
export const GLOBAL_FUNCTION_NAMES = [...VALUE_FUNCTION_NAMES, ...ERROR_CONSTRUCTOR_NAMES, 'structuredClone', 'RegExp'] as const

/**
 * Methods that take a callback (the array methods, and a text's `replace` / `replaceAll`): the only
 * calls an arrow function may be passed to. The transpiler allows arrows there, and the VM's
 * implementations (builtins/array-hof.ts, replace-callback.ts) are typed from this list.
 */
export const CALLBACK_METHOD_NAMES = [
  'map', 'filter', 'reduce', 'reduceRight', 'find', 'findIndex', 'findLast', 'findLastIndex',
  'some', 'every', 'sort', 'toSorted', 'flatMap', 'forEach', 'replace', 'replaceAll',
] as const

/**
 * Dates. An AJS Date is the time value its JavaScript counterpart holds (milliseconds since 1970, UTC),
 * kept in a variable: the transpiler lowers `new Date(...)` to the static `Date.time(...)` and a method
 * call `d.m(...)` to `Date.m(d, ...)` (a setter assigns `d` what it returns, the new time value, as the
 * JavaScript setter returns it). The VM's time zone is UTC on every host.
 *
 * The fields a Date reads (`getFullYear`, `getUTCMonth`, ...) and sets (`setDate`, `setUTCHours`, ...).
 */
export const DATE_FIELD_NAMES = ['FullYear', 'Month', 'Date', 'Hours', 'Minutes', 'Seconds', 'Milliseconds'] as const
/** The Date methods that write it as text (and `toJSON`, its ISO text or null). */
export const DATE_TEXT_METHOD_NAMES = [
  'toISOString', 'toJSON', 'toString', 'toDateString', 'toTimeString', 'toUTCString',
  'toLocaleString', 'toLocaleDateString', 'toLocaleTimeString',
] as const

/** What a Date method is: a getter, a setter, text, or its time value (`getTime`, `valueOf`). */
export type DateMethodKind = 'get' | 'set' | 'text' | 'time'

/** Every Date method AJS has, by name, with its kind: derived from the lists above. */
export const DATE_METHODS: ReadonlyMap<string, DateMethodKind> = /* @__PURE__ */ new Map<string, DateMethodKind>([
  ...[...DATE_FIELD_NAMES, 'Day'].flatMap((f) => [[`get${f}`, 'get'], [`getUTC${f}`, 'get']] as const),
  ...DATE_FIELD_NAMES.flatMap((f) => [[`set${f}`, 'set'], [`setUTC${f}`, 'set']] as const),
  ['getTimezoneOffset', 'get'], ['setTime', 'set'], ['getTime', 'time'], ['valueOf', 'time'],
  ...DATE_TEXT_METHOD_NAMES.map((m) => [m, 'text'] as const),
])

export type CallbackMethodName = (typeof CALLBACK_METHOD_NAMES)[number]
export type GlobalValueName = (typeof GLOBAL_VALUE_NAMES)[number]
export type GlobalNamespaceName = (typeof GLOBAL_NAMESPACE_NAMES)[number]
export type GlobalFunctionName = (typeof GLOBAL_FUNCTION_NAMES)[number]
