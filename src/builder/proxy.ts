/**
 * The Proxy trap only. A builder is a Proxy over nothing: each property read
 * is looked up in the builder-method table, then in the atom table; the
 * result is a function returning a *new* builder (states are immutable).
 *
 * Probe keys that libraries read to sniff objects never resolve to methods:
 * `then` stays undefined (or `await builder` would treat it as a promise),
 * symbols, `asymmetricMatch`, `$$typeof`, `nodeType`, `constructor`, ... are
 * undefined. Any other unknown key throws a "did you mean" BuilderError
 * rather than returning undefined.
 */
import type { AjsProgram } from '../ast/types.ts'
import { closest } from '../diagnostics/suggest.ts'
import { BuilderError } from './errors.ts'
import type { Kit } from './body.ts'
import { METHODS, atomMethodFor } from './methods.ts'
import { buildProgram } from './root.ts'
import type { FieldSpec } from '../ast/nodes.ts'
import { State, makeRegistry } from './state.ts'

/** Keys read by `await`, test frameworks, React, DOM checks and loggers: never methods. */
const PROBES: ReadonlySet<string> = new Set([
  'then', 'catch', 'finally', 'asymmetricMatch', '$$typeof', 'nodeType', 'constructor', 'prototype', '__proto__',
  'inspect', '@@__IMMUTABLE_ITERABLE__@@', '@@__IMMUTABLE_RECORD__@@', '_isMockFunction', '__esModule',
])

const INSPECT = Symbol.for('nodejs.util.inspect.custom')

const states = new WeakMap<object, State>()

const describe = (st: State) => `AgentBuilder(${st.steps.length} step${st.steps.length === 1 ? '' : 's'})`

const kit: Kit = {
  wrap: (st) => wrap(st),
  unwrap: (v) => (v !== null && (typeof v === 'object' || typeof v === 'function') ? states.get(v as object) : undefined),
  astOf: (v): AjsProgram | undefined => {
    const st = v !== null && typeof v === 'object' ? states.get(v as object) : undefined
    return st ? buildProgram(st) : undefined
  },
  build: buildProgram,
}

function unknownKey(st: State, key: string): never {
  const candidates = [...Object.keys(METHODS), ...st.reg.atoms.keys()]
  const hint = closest(key, candidates)
  throw new BuilderError(
    'BUILDER_UNKNOWN_METHOD',
    `the builder has no method \`${key}\`${hint ? `: did you mean \`${hint}\`?` : ''} (methods are the builder's own plus one per atom of the VM)`,
  )
}

const handler: ProxyHandler<object> = {
  get(target, key) {
    const st = states.get(target)!
    if (typeof key === 'symbol') {
      if (key === INSPECT) return () => describe(st)
      if (key === Symbol.toStringTag) return 'AgentBuilder'
      return undefined
    }
    if (PROBES.has(key)) return undefined
    if (key === 'toString') return () => describe(st)
    const method = Object.prototype.hasOwnProperty.call(METHODS, key) ? METHODS[key] : atomMethodFor(st, key)
    if (!method) return unknownKey(st, key)
    return (...args: unknown[]) => {
      const out = method(st, args, kit)
      return out instanceof State ? wrap(out) : out
    }
  },
  has(target, key) {
    if (typeof key !== 'string') return false
    return Object.prototype.hasOwnProperty.call(METHODS, key) || states.get(target)!.reg.atoms.has(key)
  },
  set(_t, key) {
    throw new BuilderError('BUILDER_IMMUTABLE', `builders are immutable: cannot set \`${String(key)}\` (every method returns a new builder)`)
  },
  defineProperty(_t, key) {
    throw new BuilderError('BUILDER_IMMUTABLE', `builders are immutable: cannot define \`${String(key)}\``)
  },
  deleteProperty(_t, key) {
    throw new BuilderError('BUILDER_IMMUTABLE', `builders are immutable: cannot delete \`${String(key)}\``)
  },
  ownKeys: () => [],
  getOwnPropertyDescriptor: () => undefined,
  getPrototypeOf: () => null,
}

/** Wrap a state as a builder. */
export function wrap(st: State): unknown {
  const target = Object.create(null) as object
  // util.inspect looks through proxies at the target, so the target carries the custom inspector.
  Object.defineProperty(target, INSPECT, { value: () => describe(st), configurable: true })
  states.set(target, st)
  const proxy = new Proxy(target, handler)
  states.set(proxy, st)
  return proxy
}

/** Names of the builder's own methods (atoms of these names are reached with `.atom(op, input)`). */
export const BUILDER_METHODS: ReadonlySet<string> = new Set(Object.keys(METHODS))

/** A root builder over the core atoms plus `custom` atom definitions. */
export function rootBuilder(custom: Iterable<{ op: string; fields: Record<string, FieldSpec> }> = []): unknown {
  return wrap(State.empty(makeRegistry(BUILDER_METHODS, custom), true))
}

/** The state behind a builder (undefined for anything else). */
export const stateOf = (v: unknown): State | undefined => kit.unwrap(v)
