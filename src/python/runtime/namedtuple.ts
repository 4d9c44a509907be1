/** `collections.namedtuple` (extended profile): tuple classes with named fields. */
import { PyDict, PyNamedTuple, PyNamedTupleType, tuple } from './values.ts'
import { typeError, valueError } from './errors.ts'
import { hashKey, iterate } from './core.ts'
import type { PyRun } from './fuel.ts'

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/
const KEYWORDS = new Set('False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(' '))

/** `namedtuple(typename, field_names, *, defaults=None)`. */
export function namedtuple(rt: PyRun, a: unknown[], kw: PyDict | null): PyNamedTupleType {
  let name = a[0], names = a[1], defaults: unknown = null
  if (kw) {
    for (const [k, v] of kw.map.values()) {
      if (k === 'defaults') defaults = v
      else if (k === 'typename' && name === undefined) name = v
      else if (k === 'field_names' && names === undefined) names = v
      else if (k !== 'rename' && k !== 'module') typeError(`namedtuple() got an unexpected keyword argument '${String(k)}'`)
    }
  }
  if (a.length > 2) typeError(`namedtuple() takes 2 positional arguments but ${a.length} were given`)
  if (typeof name !== 'string') return typeError('namedtuple() typename must be a str')
  const fields = typeof names === 'string' ? names.replace(/,/g, ' ').split(/\s+/).filter(Boolean) : iterate(names, rt).map((f) => String(f))
  for (const n of [name, ...fields]) {
    if (!IDENT.test(n)) valueError(`Type names and field names must be valid identifiers: '${n}'`)
    if (KEYWORDS.has(n)) valueError(`Type names and field names cannot be a keyword: '${n}'`)
  }
  const seen = new Set<string>()
  for (const f of fields) {
    if (f.startsWith('_')) valueError(`Field names cannot start with an underscore: '${f}'`)
    if (seen.has(f)) valueError(`Encountered duplicate field name: '${f}'`)
    seen.add(f)
  }
  const dflts = defaults === null ? [] : iterate(defaults, rt).slice()
  if (dflts.length > fields.length) typeError('Got more default values than field names')
  return new PyNamedTupleType(name, fields, dflts)
}

function instance(t: PyNamedTupleType, values: unknown[]): PyNamedTuple {
  const p = new PyNamedTuple()
  for (const v of values) p.push(v)
  p.ntype = t
  return Object.freeze(p)
}

/** `Point(1, y=2)`: CPython's `__new__` argument errors. */
export function makeNamedTuple(t: PyNamedTupleType, a: unknown[], kw: PyDict | null): PyNamedTuple {
  const n = t.fields.length
  if (a.length > n) typeError(`${t.name}.__new__() takes ${n + 1} positional argument${n + 1 === 1 ? '' : 's'} but ${a.length + 1} were given`)
  const values: unknown[] = a.slice()
  const given = new Array<boolean>(n).fill(false).map((_, i) => i < a.length)
  if (kw) {
    for (const [k, v] of kw.map.values()) {
      const i = t.fields.indexOf(k as string)
      if (i < 0) typeError(`${t.name}.__new__() got an unexpected keyword argument '${String(k)}'`)
      if (given[i]) typeError(`${t.name}.__new__() got multiple values for argument '${String(k)}'`)
      values[i] = v
      given[i] = true
    }
  }
  const firstDefault = n - t.defaults.length
  const missing: string[] = []
  for (let i = 0; i < n; i++) {
    if (given[i]) continue
    if (i >= firstDefault) values[i] = t.defaults[i - firstDefault]
    else missing.push(`'${t.fields[i]}'`)
  }
  if (missing.length) {
    const text = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')} and ${missing[missing.length - 1]}`
    typeError(`${t.name}.__new__() missing ${missing.length} required positional argument${missing.length > 1 ? 's' : ''}: ${text}`)
  }
  return instance(t, values)
}

/** `p.x`, `Point._fields` (undefined: not a namedtuple attribute). */
export function namedTupleAttr(x: unknown, name: string): unknown {
  if (x instanceof PyNamedTuple) {
    const i = x.ntype.fields.indexOf(name)
    if (i >= 0) return x[i]
    if (name === '_fields') return tuple([...x.ntype.fields])
  }
  if (x instanceof PyNamedTupleType && name === '_fields') return tuple([...x.fields])
  return undefined
}

/** `p._asdict()`, `p._replace(x=1)` (undefined: a tuple method). */
export function namedTupleMethod(p: PyNamedTuple, name: string, a: unknown[], kw: PyDict | null): unknown {
  if (name === '_asdict') {
    if (a.length || kw) typeError(`${p.ntype.name}._asdict() takes 1 positional argument but ${a.length + 1} were given`)
    const d = new PyDict()
    p.ntype.fields.forEach((f, i) => d.map.set(hashKey(f), [f, p[i]]))
    return d
  }
  if (name === '_replace') {
    if (a.length) typeError(`${p.ntype.name}._replace() takes 1 positional argument but ${a.length + 1} were given`)
    const values = [...p]
    const bad: string[] = []
    if (kw) for (const [k, v] of kw.map.values()) { const i = p.ntype.fields.indexOf(k as string); if (i < 0) bad.push(String(k)); else values[i] = v }
    if (bad.length) valueError(`Got unexpected field names: [${bad.map((b) => `'${b}'`).join(', ')}]`)
    return instance(p.ntype, values)
  }
  return undefined
}
