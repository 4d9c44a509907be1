/**
 * The names AJS source may use without declaring them: global values,
 * namespaces, global functions and atoms. Also the array methods whose
 * arguments may be arrow callbacks.
 *
 * This is the transpiler's view; the VM decides what each name does at run
 * time (namespace statics and methods go through its allowlist).
 */

import { CORE_OPS } from '../ast/nodes.ts'
import { CALLBACK_METHOD_NAMES, GLOBAL_FUNCTION_NAMES, GLOBAL_NAMESPACE_NAMES, GLOBAL_VALUE_NAMES } from '../ast/globals.ts'

/** Identifiers that are plain values. */
export const GLOBAL_VALUES: ReadonlySet<string> = new Set(GLOBAL_VALUE_NAMES)

/**
 * Namespaces usable only as the object of a member access or method call
 * (`Math.max`, `Date.now()`, `console.log`). The lists are declared once in
 * `ast/globals.ts`; the VM's builtin tables are typed from them.
 */
export const GLOBAL_NAMESPACES: ReadonlySet<string> = new Set(GLOBAL_NAMESPACE_NAMES)

/** Global functions callable by name. */
export const GLOBAL_FUNCTIONS: ReadonlySet<string> = new Set(GLOBAL_FUNCTION_NAMES)

/** Array methods that take a callback: the only places an arrow function may appear. */
export const CALLBACK_METHODS: ReadonlySet<string> = new Set(CALLBACK_METHOD_NAMES)

/** Well-known host names with a specific rewrite hint. */
export const HOST_NAME_HINTS: Readonly<Record<string, string>> = {
  Promise: 'Atoms already wait for their results: `let r = httpFetch({ url })`; to run calls concurrently write `await Promise.all([f(), g()])`. ',
  setTimeout: 'Timers are not available: use the VM timeout options. ',
  fetch: 'Use the atom `httpFetch({ url })`. ',
  require: 'Modules are not available: put helpers in the same source. ',
  process: 'Pass values as run arguments. ',
  globalThis: 'Pass values as run arguments. ',
  window: 'Pass values as run arguments. ',
  Symbol: 'Symbols are not supported. ',
  Map: 'Use a plain object `{}` keyed by strings. ',
  RegExp: 'Use a regex literal `/.../flags`. ',
  Reflect: 'Use plain property access. ',
  Proxy: 'Use plain objects. ',
  setInterval: 'Timers are not available: use a loop, or the VM timeout options. ',
  setImmediate: 'Timers are not available: atoms already wait for their results. ',
  clearTimeout: 'Timers are not available: use the VM timeout options. ',
  clearInterval: 'Timers are not available: use the VM timeout options. ',
  queueMicrotask: 'Atoms already wait for their results: call them in order. ',
  alert: 'Use `console.log(...)`: the host receives it. ',
  atob: 'Binary data is not available: pass text. ',
  btoa: 'Binary data is not available: pass text. ',
  Buffer: 'Binary data is not available: pass text. ',
  WeakMap: 'Use a plain object `{}` keyed by strings. ',
  WeakSet: 'Use an array with the `Set.*` helpers. ',
  Intl: 'Format numbers with `n.toLocaleString(locale, options)` (Intl.NumberFormat\'s options) or `n.toFixed(digits)`. ',
  BigInt: 'BigInt is not supported: use numbers, or strings for big identifiers. ',
  XMLHttpRequest: 'Use the atom `httpFetch({ url })`. ',
  WebSocket: 'Network access goes through atoms such as `httpFetch({ url })`. ',
  importScripts: 'Modules are not available: put helpers in the same source. ',
  document: 'There is no DOM: pass values as run arguments. ',
  navigator: 'Pass values as run arguments. ',
  global: 'Pass values as run arguments. ',
  self: 'Pass values as run arguments. ',
  module: 'Modules are not available: put helpers in the same source. ',
  exports: 'Modules are not available: mark the entry with `export default function`. ',
}

/** What the transpiler knows about an atom: its field names (null when unknown, as for custom atoms). */
export interface AtomInfo {
  fields: ReadonlyMap<string, { optional: boolean }> | null
}

/**
 * Core ops callable as functions: those whose fields are all values
 * (`httpFetch({ url })`). Structural ops (`if`, `map`, `varSet`, ...) are
 * statements, not calls; `Error` is the global function, not the op.
 */
export function coreAtoms(): Map<string, AtomInfo> {
  const atoms = new Map<string, AtomInfo>()
  for (const [name, spec] of Object.entries(CORE_OPS)) {
    if (name === 'Error') continue
    const fields = Object.entries(spec.fields)
    if (!fields.every(([, f]) => f.kind === 'value')) continue
    atoms.set(name, { fields: new Map(fields.map(([k, f]) => [k, { optional: f.optional === true }])) })
}
  return atoms
}

let coreAtomCache: Map<string, AtomInfo> | undefined

/** Names of the core atoms callable as functions (not custom atoms). */
export const CORE_ATOM_NAMES: ReadonlySet<string> = new Set(Object.keys(CORE_OPS).filter((n) => n !== 'Error'))

/** The atom table for one transpile: core atoms plus the caller's custom atom names. */
export function atomTable(extra: readonly (string | { readonly op: string })[] | Readonly<Record<string, unknown>> | undefined): ReadonlyMap<string, AtomInfo> {
  const core = (coreAtomCache ??= coreAtoms())
  if (!extra) return core
  // An array may hold names or the atoms themselves (`[defineAtom(...)]`), as AgentVM's `atoms` option does.
  const names = Array.isArray(extra) ? extra.map(atomName) : Object.keys(extra)
  if (names.length === 0) return core
  const table = new Map(core)
  for (const name of names) if (!table.has(name)) table.set(name, { fields: null })
  return table
}

function atomName(entry: unknown): string {
  if (typeof entry === 'string') return entry
  if (typeof entry === 'object' && entry !== null && typeof (entry as { op?: unknown }).op === 'string') return (entry as { op: string }).op
  throw new TypeError('transpile option `atoms`: each entry is an atom name or an atom ({ op, ... }); got ' + (entry === null ? 'null' : typeof entry))
}
