/**
 * Counter's in-place operators (`c += x`, `c -= x`, `c |= x`, `c &= x`) as CPython 3.11's
 * collections.Counter writes them in Python: they update c itself (every name bound to it sees the
 * change) and take any mapping, reading `other.items()` (`&=` reads `other[elem]` for each of c's
 * elements instead), so a non-mapping operand raises what those reads raise: AttributeError
 * "'int' object has no attribute 'items'", or `&=`'s subscript TypeError/KeyError.
 */
import { PyDict, PyInstance, typeName } from './values.ts'
import { raise } from './errors.ts'
import { gt, hashKey, iterate, lt } from './core.ts'
import { getItem } from './items.ts'
import { inplace } from './ops.ts'
import { MISSING, callIf } from './dunders.ts'
import type { PyRun } from './fuel.ts'

/** `other.items()` as (elem, count) pairs: a dict's entries, a guest mapping's items() unpacked. */
function itemsOf(rt: PyRun, other: unknown): Array<readonly [unknown, unknown]> {
  if (other instanceof PyDict) return [...other.map.values()]
  const r = other instanceof PyInstance ? callIf(other, 'items', []) : MISSING
  if (r === MISSING) return raise('AttributeError', `'${typeName(other)}' object has no attribute 'items'`)
  return iterate(r, rt).map((pair) => {
    const kv = iterate(pair, rt)
    if (kv.length !== 2) raise('ValueError', kv.length < 2 ? `not enough values to unpack (expected 2, got ${kv.length})` : 'too many values to unpack (expected 2)')
    return [kv[0], kv[1]] as const
  })
}

/** `c[elem]` with Counter's `__missing__` (0, not stored). */
function countOf(c: PyDict, elem: unknown): unknown {
  const e = c.map.get(hashKey(elem))
  return e === undefined ? 0 : e[1]
}

function store(c: PyDict, elem: unknown, v: unknown): void {
  const h = hashKey(elem)
  const e = c.map.get(h)
  c.map.set(h, [e === undefined ? elem : e[0], v])
}

/** Counter._keep_positive: drops each element whose count is not > 0. */
function keepPositive(c: PyDict): PyDict {
  for (const [h, [, v]] of [...c.map]) if (!gt(v, 0)) c.map.delete(h)
  return c
}

/** `c op= other` for a Counter c (op one of + - | &); undefined for the other operators. */
export function counterInplace(rt: PyRun, op: string, c: PyDict, other: unknown): unknown {
  switch (op) {
    case '+':
    case '-':
      // self[elem] += count: the augmented operator's own semantics and messages.
      for (const [elem, count] of itemsOf(rt, other)) store(c, elem, inplace(rt, op, countOf(c, elem), count))
      return keepPositive(c)
    case '|':
      for (const [elem, count] of itemsOf(rt, other)) if (gt(count, countOf(c, elem))) store(c, elem, count)
      return keepPositive(c)
    case '&':
      for (const [elem, count] of [...c.map.values()]) {
        const otherCount = getItem(rt, other, elem)
        if (lt(otherCount, count)) store(c, elem, otherCount)
      }
      return keepPositive(c)
  }
  return undefined
}
