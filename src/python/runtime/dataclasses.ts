/**
 * `dataclasses.asdict` and `astuple` (extended profile): a dataclass instance's fields, recursively,
 * as CPython's _asdict_inner makes them — nested dataclasses become dicts (tuples), lists, tuples,
 * named tuples and dicts are rebuilt around their converted items, anything else is deep-copied.
 */
import { PyClass, PyDict, PyInstance, PyNamedTuple, PyFrozenSet, PySet, type PyType, tuple } from './values.ts'
import { typeError } from './errors.ts'
import { fieldReader, hashKey } from './core.ts'
import type { PyRun } from './fuel.ts'

/** One field's value as CPython's `getattr(obj, f.name)` reads it (through the class's hooks when it has one). */
function fieldValue(x: PyInstance, f: string): unknown {
  const read = fieldReader(x)
  return read ? read(f) : x.attrs.get(f)
}

/** The fields of a dataclass instance (its class's or a dataclass base's), or null. */
function fieldsOf(x: unknown): string[] | null {
  if (!(x instanceof PyInstance)) return null
  for (let t: PyType | null = x.cls; t instanceof PyClass; t = t.base) if (t.dataclass) return t.dataclass.fields
  return null
}

function inner(rt: PyRun, x: unknown, asDict: boolean): unknown {
  const fields = fieldsOf(x)
  if (fields) {
    const o = x as PyInstance
    rt.chargeSlots(fields.length)
    // Each field read, then converted, in turn (CPython's _asdict_inner: getattr(obj, f.name)).
    if (!asDict) return tuple(fields.map((f) => inner(rt, fieldValue(o, f), asDict)))
    const d = new PyDict()
    for (const f of fields) d.map.set(hashKey(f), [f, inner(rt, fieldValue(o, f), asDict)])
    return d
  }
  if (x instanceof PyNamedTuple) {
    const t = new PyNamedTuple()
    for (const v of x) t.push(inner(rt, v, asDict))
    t.ntype = x.ntype
    return Object.freeze(t)
  }
  if (Array.isArray(x)) {
    rt.chargeSlots(x.length)
    const items = x.map((v) => inner(rt, v, asDict))
    return Object.isFrozen(x) ? tuple(items) : items
  }
  if (x instanceof PyDict) {
    rt.chargeSlots(x.size)
    const d = new PyDict()
    for (const [k, v] of x.map.values()) { const key = inner(rt, k, asDict); d.map.set(hashKey(key), [key, inner(rt, v, asDict)]) }
    return d
  }
  // copy.deepcopy of the rest: a set's members are immutable, an instance gets copies of its attributes.
  if (x instanceof PySet) { const s = x instanceof PyFrozenSet ? new PyFrozenSet() : new PySet(); for (const [k, v] of x.map) s.map.set(k, v); return s }
  if (x instanceof PyInstance) { const o = new PyInstance(x.cls); for (const [k, v] of x.attrs) o.attrs.set(k, inner(rt, v, asDict)); return o }
  return x
}

export const DATACLASS_FUNCTIONS: Record<string, (rt: PyRun, a: unknown[], kw: PyDict | null) => unknown> = {
  asdict: (rt, a) => {
    if (!fieldsOf(a[0])) typeError('asdict() should be called on dataclass instances')
    return inner(rt, a[0], true)
  },
  astuple: (rt, a) => {
    if (!fieldsOf(a[0])) typeError('astuple() should be called on dataclass instances')
    return inner(rt, a[0], false)
  },
}
