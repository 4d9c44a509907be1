/** Building dicts and sets, and the set algebra shared by operators and methods. */
import { PyDict, PyDictView, PyFrozenSet, PySet, typeName } from './values.ts'
import { typeError, raise } from './errors.ts'
import { hashKey, iterate, repr } from './core.ts'
import type { PyRun } from './fuel.ts'
import { PySignalDict, PySignalView } from './decimal-signals.ts'

export function dictFromPairs(rt: PyRun, flat: unknown[]): PyDict {
  const d = new PyDict()
  rt.chargeSlots(flat.length)
  for (let i = 0; i < flat.length; i += 2) {
    const k = flat[i], h = hashKey(k)
    const e = d.map.get(h)
    if (e) e[1] = flat[i + 1]
    else d.map.set(h, [k, flat[i + 1]])
  }
  return d
}

export function dictSet(d: PyDict, k: unknown, v: unknown): void {
  const h = hashKey(k)
  const e = d.map.get(h)
  if (e) e[1] = v
  else d.map.set(h, [k, v])
}

/** dict.update / dict(x): from a mapping or an iterable of pairs. */
export function dictUpdate(rt: PyRun, d: PyDict, src: unknown): void {
  if (src instanceof PyDict) {
    rt.chargeSlots(src.size)
    for (const [k, v] of src.map.values()) dictSet(d, k, v)
    return
  }
  // A mapping: its keys and their values (dict(ctx.flags), {**ctx.traps}).
  if (src instanceof PySignalDict) {
    for (const k of src.keys()) dictSet(d, k, src.has(k))
    return
  }
  const items = iterate(src, rt)
  rt.chargeSlots(items.length)
  for (let i = 0; i < items.length; i++) {
    const pair = items[i]
    let kv: unknown[]
    try {
      kv = iterate(pair)
    } catch {
      return typeError(`cannot convert dictionary update sequence element #${i} to a sequence`)
    }
    if (kv.length !== 2) raise('ValueError', `dictionary update sequence element #${i} has length ${kv.length}; 2 is required`)
    dictSet(d, kv[0], kv[1])
  }
}

export function setFrom(rt: PyRun, items: unknown[], frozen = false): PySet {
  const s = frozen ? new PyFrozenSet() : new PySet()
  rt.chargeSlots(items.length)
  for (const x of items) {
    const h = hashKey(x)
    if (!s.map.has(h)) s.map.set(h, x)
  }
  return s
}

/** A set-like operand (set or keys/items view) as a PySet, or undefined. */
export function asSet(x: unknown): PySet | undefined {
  if (x instanceof PySet) return x
  if (x instanceof PyDictView && x.kind !== 'values') {
    const s = new PySet()
    for (const v of iterate(x)) s.map.set(hashKey(v), v)
    return s
  }
  return x instanceof PySignalView ? x.asSet() : undefined
}

/** `a op b` of two sets: a frozenset when `a` is one (CPython's result takes the left operand's type). */
export function setOp(rt: PyRun, op: string, a: PySet, b: PySet): PySet {
  const out = a instanceof PyFrozenSet ? new PyFrozenSet() : new PySet()
  rt.chargeSlots(a.size + b.size)
  switch (op) {
    case '|':
      for (const [h, v] of a.map) out.map.set(h, v)
      for (const [h, v] of b.map) if (!out.map.has(h)) out.map.set(h, v)
      break
    case '&':
      for (const [h, v] of a.map) if (b.map.has(h)) out.map.set(h, v)
      break
    case '-':
      for (const [h, v] of a.map) if (!b.map.has(h)) out.map.set(h, v)
      break
    case '^':
      for (const [h, v] of a.map) if (!b.map.has(h)) out.map.set(h, v)
      for (const [h, v] of b.map) if (!a.map.has(h)) out.map.set(h, v)
      break
  }
  return out
}

export function unhashableCheck(x: unknown): void {
  hashKey(x)
}

export const keyRepr = repr
export { typeName }
