/**
 * `getattr`, `hasattr` and `setattr` of the extended profile. They reach only the program's own
 * objects (instances of its classes and dataclasses, namedtuples, exceptions), through the same
 * paths as `x.name` and `x.name = v`: attribute maps held by the runtime, never the JS object model.
 * Special (dunder) names are refused whatever the default, so nothing reaches a class's machinery.
 */
import { PyException, PyInstance, PyNamedTuple, typeName } from './values.ts'
import { raise, typeError } from './errors.ts'
import { setAttr } from './classes.ts'
import { getAttr } from './extended.ts'
import { MISSING } from './dunders.ts'
import { hooked, isAttributeError } from './attr-hooks.ts'
import type { PyRun } from './fuel.ts'

const isOwn = (x: unknown): boolean => x instanceof PyInstance || x instanceof PyException || x instanceof PyNamedTuple

/** The checks CPython makes (the name is a str) and the sandbox's (own object, no special name). */
function checked(fn: string, x: unknown, name: unknown): string {
  if (typeof name !== 'string') return typeError(`attribute name must be string, not '${typeName(name)}'`)
  if (name.length > 4 && name.startsWith('__') && name.endsWith('__')) {
    raise('AttributeError', `${fn}() of the special attribute '${name}' is not available in code blocks; use ordinary attribute names`)
  }
  if (!isOwn(x)) {
    typeError(`${fn}() in code blocks works on the program's own objects (class instances, dataclasses, namedtuples, exceptions), not on '${typeName(x)}'`)
  }
  return name
}


/** `getattr(x, name)`, or with `hasDefault` the default when x has no such attribute. */
function ownGetAttr(x: unknown, name: unknown, hasDefault: boolean, dflt: unknown, fn = 'getattr'): unknown {
  const n = checked(fn, x, name)
  if (!hasDefault) return getAttr(x, n)
  try {
    return getAttr(x, n)
  } catch (e) {
    if (isAttributeError(e)) return dflt
    throw e
  }
}

function ownHasAttr(x: unknown, name: unknown): boolean {
  return ownGetAttr(x, name, true, MISSING, 'hasattr') !== MISSING
}

function ownSetAttr(x: unknown, name: unknown, value: unknown): null {
  const n = checked('setattr', x, name)
  // A namedtuple's fields are read-only (CPython's _tuplegetter); other names: no attribute.
  if (x instanceof PyNamedTuple && x.ntype.fields.includes(n)) raise('AttributeError', "can't set attribute")
  return setAttr(x, n, value)
}

export const ATTR_RUNTIME: Record<string, (rt: PyRun, a: any[]) => unknown> = {
  ogetattr: (_rt, a) => ownGetAttr(a[0], a[1], a[2], a[3]),
  ohasattr: (_rt, a) => ownHasAttr(a[0], a[1]),
  osetattr: (_rt, a) => ownSetAttr(a[0], a[1], a[2]),
  /** `obj.name` of a method call when obj's class has attribute hooks (read first, as CPython); else undefined. */
  hookget: (_rt, a) => (hooked(a[0]) ? getAttr(a[0], a[1]) : undefined),
}
