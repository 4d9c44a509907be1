/**
 * Maybe-async combinators. Compiled code is synchronous; only subtrees that
 * contain atom or helper calls may produce a Promise, and only those are
 * compiled with these helpers. Each evaluates in JavaScript order and
 * switches to promise chaining at the first pending value.
 */
import type { Frame } from '../runtime.ts'

type Fn = (f: Frame) => any

export const isP = (v: unknown): v is Promise<any> => typeof v === 'object' && v instanceof Promise

/** Evaluate `a` then `b`, then combine. */
export function seq2(a: Fn, b: Fn, combine: (x: any, y: any) => any): Fn {
  return (f) => {
    const x = a(f)
    if (isP(x)) return x.then((xv) => {
      const y = b(f)
      return isP(y) ? y.then((yv) => combine(xv, yv)) : combine(xv, y)
    })
    const y = b(f)
    return isP(y) ? y.then((yv) => combine(x, yv)) : combine(x, y)
  }
}

/** Evaluate all in order into an array, then combine. */
export function seqN(fns: Fn[], combine: (values: any[]) => any): Fn {
  const n = fns.length
  const rest = (f: Frame, out: any[], i: number): any => {
    for (; i < n; i++) {
      const v = fns[i]!(f)
      if (isP(v)) {
        const k = i
        return v.then((r) => { out[k] = r; return rest(f, out, k + 1) })
      }
      out[i] = v
    }
    return combine(out)
  }
  return (f) => rest(f, new Array(n), 0)
}

/** Apply `k` to a maybe-promise. */
export const then = (v: any, k: (x: any) => any): any => (isP(v) ? v.then(k) : k(v))
