/**
 * Runtime halves of the lowering's fast paths for the program's classes (lower-class.ts): what can
 * be decided only at run time (is this object an instance of one of the program's classes, which
 * function is its method), answered without allocating.
 */
import { PyInstance } from './values.ts'
import { PyFunction, getAttr } from './extended.ts'
import { setAttr } from './classes.ts'
import { inplace } from './ops.ts'
import type { PyRun } from './fuel.ts'

/**
 * `py$mfast(obj, name)`: the number of the program's function that `obj.name` is a method of (obj an
 * instance of the program's classes, no instance attribute of that name), or -1 for anything else.
 * A missing attribute raises its AttributeError here, before the call's arguments are evaluated.
 */
export function methodFid(o: unknown, name: string): number {
  if (o instanceof PyInstance) {
    if (o.attrs.has(name)) return -1
    const m = o.cls.lookup(name)
    if (m instanceof PyFunction) return m.fid
    // A class attribute (a property's getter must run once, when the call reads it).
    if (m !== undefined) return -1
  }
  getAttr(o, name)
  return -1
}

export const FAST_RUNTIME: Record<string, (rt: PyRun, a: any[]) => unknown> = {
  mfast: (_rt, a) => methodFid(a[0], a[1] as string),
  // `obj.name op= value` in one call: read, the in-place operator, write back.
  iattr: (rt, a) => setAttr(a[0], a[1] as string, inplace(rt, a[2] as string, getAttr(a[0], a[1] as string), a[3])),
}
