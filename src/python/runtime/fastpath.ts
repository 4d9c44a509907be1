/**
 * Runtime halves of the lowering's fast paths for the program's classes (lower-class.ts): what can
 * be decided only at run time (is this object an instance of one of the program's classes, which
 * function is its method), answered without allocating.
 */
import { PyInstance } from './values.ts'
import { PyFunction, getAttr } from './extended.ts'
import { hasProperties, setAttr } from './classes.ts'
import { inplace } from './ops.ts'
import { convert, format } from './format.ts'
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

/** `o.name` of an instance's own attribute (no property in its classes), else the general read. */
export function readAttr(o: unknown, name: string): unknown {
  if (o instanceof PyInstance) {
    const v = o.attrs.get(name)
    if (v !== undefined && !hasProperties(o.cls)) return v
  }
  return getAttr(o, name)
}

/** `o.name = v` on an instance whose classes hold no property, else the general write. */
export function writeAttr(o: unknown, name: string, v: unknown): null {
  if (o instanceof PyInstance && !hasProperties(o.cls)) { o.attrs.set(name, v); return null }
  return setAttr(o, name, v)
}

type Arg = { fn: (f: { rt: PyRun }) => unknown; constant?: { value: unknown } }
type Compiled = { fn: (f: { rt: PyRun }) => unknown } | undefined

/** A read that raises (through the entry itself) when the variable is not bound: `py$chk`, `py$chkfree`. */
function checked(args: readonly Arg[], plain: (rt: PyRun, a: unknown[]) => unknown): Compiled {
  const name = args[1]?.constant?.value
  if (args.length !== 2 || typeof name !== 'string') return undefined
  const x = args[0]!.fn
  return { fn: (f) => { const v = x(f); return v !== undefined ? v : plain(f.rt, [v, name]) } }
}

/**
 * Compile hooks (the VM's GuestFunction.compile) of hot runtime entries: the call reads its
 * operands and calls the runtime with them, no argument array (`plain`: the entry itself, for
 * the rare case it answers).
 */
export const FAST_COMPILE: Record<string, (args: readonly Arg[], plain: (rt: PyRun, a: unknown[]) => unknown) => Compiled> = {
  // py$last(...): the last value (assignments made inside an expression, then its value).
  last: (args) => {
    const fns = args.map((a) => a.fn)
    const n = fns.length
    if (n === 0) return undefined
    return { fn: (f) => { for (let i = 0; i < n - 1; i++) fns[i]!(f); return fns[n - 1]!(f) } }
  },
  // py$fmt(value, spec, conversion): an f-string's replacement field with a constant spec.
  fmt: (args) => {
    const spec = args[1]?.constant?.value, conv = args[2]?.constant?.value
    if (args.length !== 3 || typeof spec !== 'string' || (typeof conv !== 'string' && conv !== null)) return undefined
    const x = args[0]!.fn
    return { fn: conv ? (f) => format(f.rt, convert(x(f), conv), spec) : (f) => format(f.rt, x(f), spec) }
  },
  // py$chk(value, name): a local read before it is assigned raises (through the entry itself).
  chk: (args, plain) => checked(args, plain),
  // py$chkfree(value, name): the same for a variable of an enclosing function.
  chkfree: (args, plain) => checked(args, plain),
  getattr: (args) => {
    const name = args[1]?.constant?.value
    if (args.length !== 2 || typeof name !== 'string') return undefined
    const o = args[0]!.fn
    return { fn: (f) => readAttr(o(f), name) }
  },
  // py$setattr(value, obj, name)
  setattr: (args) => {
    const name = args[2]?.constant?.value
    if (args.length !== 3 || typeof name !== 'string') return undefined
    const v = args[0]!.fn, o = args[1]!.fn
    return { fn: (f) => { const x = v(f); return writeAttr(o(f), name, x) } }
  },
  // py$iattr(obj, name, op, value): obj.name op= value
  iattr: (args) => {
    const name = args[1]?.constant?.value, op = args[2]?.constant?.value
    if (args.length !== 4 || typeof name !== 'string' || typeof op !== 'string') return undefined
    const o = args[0]!.fn, v = args[3]!.fn
    return { fn: (f) => { const x = o(f), y = v(f); return writeAttr(x, name, inplace(f.rt, op, readAttr(x, name), y)) } }
  },
  mfast: (args) => {
    const name = args[1]?.constant?.value
    if (args.length !== 2 || typeof name !== 'string') return undefined
    const o = args[0]!.fn
    return { fn: (f) => methodFid(o(f), name) }
  },
}
