/**
 * Finding a text of more than FREE_TEXT_CHARS characters in another (`indexOf`, `includes`,
 * `lastIndexOf`, `split`, `replace`, `replaceAll`). The engines' own searches are quadratic at worst:
 * in a text of a million 'a', one of 5,000 'a', a 'b' and 5,000 'a' took 3.3 s to find in V8 and
 * 5.1 s in JavaScriptCore, and V8's lastIndexOf of 100,000 'a' and a 'b' 54 s, paid as one read of
 * the text. A long pattern is found here by Knuth-Morris-Pratt instead: fewer than two reads of each
 * character of the text and of the pattern, the pattern's paid when its table is built. A short
 * pattern keeps the engine's search (at most 64 reads a character).
 */
import type { Run } from '../runtime.ts'
import { chargeScan } from './sizes.ts'

/**
 * The failure table of `t` read in direction `d` (1 from its start, -1 from its end): f[i] is the length
 * of the longest proper border of its first i + 1 characters so read. 4 bytes a character, checked
 * against maxHeapBytes; the pattern's characters paid.
 */
function borders(rt: Run, t: string, d: number): Int32Array {
  const m = t.length, e = d > 0 ? 0 : m - 1
  if (m * 4 > rt.maxHeapBytes) rt.heapLimit(m * 4)
  chargeScan(rt, m)
  const f = new Int32Array(m)
  for (let i = 1, k = 0; i < m; i++) {
    const c = t.charCodeAt(e + d * i)
    while (k > 0 && c !== t.charCodeAt(e + d * k)) k = f[k - 1]!
    if (c === t.charCodeAt(e + d * k)) k++
    f[i] = k
  }
  return f
}

/** The first match of `t` (table `f`) met reading `s` from `i` in direction `d`: its start, or -1. */
function scan(s: string, t: string, f: Int32Array, i: number, d: number): number {
  const m = t.length, e = d > 0 ? 0 : m - 1
  for (let k = 0; i >= 0 && i < s.length; i += d) {
    const c = s.charCodeAt(i)
    while (k > 0 && c !== t.charCodeAt(e + d * k)) k = f[k - 1]!
    if (c === t.charCodeAt(e + d * k) && ++k === m) return d > 0 ? i - m + 1 : i
  }
  return -1
}

/** `s.indexOf(t, from)` for each `from` asked, with one table (built at the first search that can match). */
export function finder(rt: Run, s: string, t: string): (from: number) => number {
  let f: Int32Array | undefined
  return (from) => (t.length > s.length - from ? -1 : scan(s, t, (f ??= borders(rt, t, 1)), from, 1))
}

/** `s.indexOf(t, position)`: the position as JavaScript reads it (ToIntegerOrInfinity, clamped). */
export const indexFrom = (rt: Run, s: string, t: string, position: unknown): number =>
  finder(rt, s, t)(Math.min(Math.max(Math.trunc(Number(position)) || 0, 0), s.length))

/** `s.lastIndexOf(t, position)`: the last start at or before the position (none given or NaN: the end). */
export function lastIndexFrom(rt: Run, s: string, t: string, position: unknown): number {
  const p = Number(position), hi = Math.min(Number.isNaN(p) ? s.length : Math.max(Math.trunc(p), 0), s.length - t.length)
  // Read backwards from where a match starting at `hi` would end, against the pattern from its end.
  return hi < 0 ? -1 : scan(s, t, borders(rt, t, -1), hi + t.length - 1, -1)
}

/** `s.split(t, limit)` for a non-empty `t`, `limit` already ToUint32. */
export function splitText(rt: Run, s: string, t: string, limit: number): string[] {
  const out: string[] = []
  if (limit === 0) return out
  const find = finder(rt, s, t)
  let p = 0
  for (let q = find(0); q >= 0; q = find(p)) {
    out.push(s.slice(p, q))
    if (out.length === limit) return out
    p = q + t.length
  }
  out.push(s.slice(p))
  return out
}
