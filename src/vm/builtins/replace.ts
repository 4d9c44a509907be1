/**
 * Replacement strings (`$&`, `$1`, `$<name>`, ...) and `replace` with a
 * string pattern: part of every VM. Regex replacement (regex-ops.ts, the
 * opt-in regex part) builds on the same bounded expansion.
 */
import type { Run } from '../runtime.ts'
import { SLOT_COST } from '../fuel.ts'
import { FREE_TEXT_CHARS, chargeScan } from './sizes.ts'
import { finder } from './text-search.ts'

/** One match, from either engine. */
export interface Match {
  index: number
  end: number
  caps: ArrayLike<string | undefined>
  groups: Record<string, string | undefined> | undefined
}

/** A replacement string cut into literal text and `$` references (GetSubstitution of the spec). */
type Piece = string | { ref: 'whole' | 'before' | 'after' } | { group: number } | { name: string }

function parseReplacement(r: string, groupCount: number, named: boolean): Piece[] {
  const out: Piece[] = []
  let lit = ''
  for (let i = 0; i < r.length; i++) {
    const ch = r[i]
    if (ch !== '$' || i + 1 >= r.length) { lit += ch; continue }
    const nx = r[i + 1]!
    let piece: Piece | null = null
    let used = 2
    if (nx === '$') { lit += '$'; i++; continue }
    if (nx === '&') piece = { ref: 'whole' }
    else if (nx === '`') piece = { ref: 'before' }
    else if (nx === "'") piece = { ref: 'after' }
    else if (nx >= '0' && nx <= '9') {
      const two = r[i + 2] !== undefined && r[i + 2]! >= '0' && r[i + 2]! <= '9' ? Number(nx + r[i + 2]) : -1
      const one = Number(nx)
      if (two >= 1 && two <= groupCount) { piece = { group: two }; used = 3 }
      else if (one >= 1 && one <= groupCount) piece = { group: one }
    } else if (nx === '<' && named) {
      const close = r.indexOf('>', i + 2)
      if (close >= 0) { piece = { name: r.slice(i + 2, close) }; used = close - i + 1 }
    }
    if (!piece) { lit += ch; continue }
    if (lit) { out.push(lit); lit = '' }
    out.push(piece)
    i += used - 1
  }
  if (lit) out.push(lit)
  return out
}

function pieceText(p: Piece, m: Match, s: string): string {
  if (typeof p === 'string') return p
  if ('ref' in p) return p.ref === 'whole' ? s.slice(m.index, m.end) : p.ref === 'before' ? s.slice(0, m.index) : s.slice(m.end)
  if ('group' in p) return m.caps[p.group] ?? ''
  return m.groups?.[p.name] ?? ''
}

function pieceLength(p: Piece, m: Match, s: string): number {
  if (typeof p === 'string') return p.length
  if ('ref' in p) return p.ref === 'whole' ? m.end - m.index : p.ref === 'before' ? m.index : s.length - m.end
  return pieceText(p, m, s).length
}

/** Pieces of output joined in bounded batches: flat strings, not millions of rope nodes. */
const JOIN_BATCH = 4096

/**
 * Build `s` with every visited match replaced. The length of each expansion
 * is computed before it is built, so the result is refused (HEAP_LIMIT)
 * before it outgrows `maxHeapBytes`, however many `$\`` it repeats.
 */
export function replaceMatches(rt: Run, s: string, next: () => Match | null, replacement: string): string {
  let pieces: Piece[] | null = null
  let total = 0
  let last = 0
  let batch: string[] = []
  const chunks: string[] = []
  const max = rt.maxStringLength
  for (let m = next(); m; m = next()) {
    pieces ??= parseReplacement(replacement, m.caps.length - 1, m.groups !== undefined)
    total += m.index - last
    for (const p of pieces) total += pieceLength(p, m, s)
    if (total > max) rt.heapLimit(total * 2)
    batch.push(s.slice(last, m.index))
    for (const p of pieces) batch.push(pieceText(p, m, s))
    last = m.end
    if (batch.length >= JOIN_BATCH) { chunks.push(batch.join('')); batch = [] }
  }
  if (total + s.length - last > max) rt.heapLimit((total + s.length - last) * 2)
  batch.push(s.slice(last))
  chunks.push(batch.join(''))
  return chunks.join('')
}

/** Upper bound of a replacement's result with no `$` in it: every position may match. */
export const literalBound = (n: number, r: string) => n + (n + 1) * r.length

/** `s.replace(str, r)` / `s.replaceAll(str, r)` with a string pattern: `$` patterns bounded the same way. */
export function stringReplace(rt: Run, s: string, pattern: string, replacement: string, all: boolean): string {
  // A pattern over 64 characters is found in linear time (text-search.ts), the text read once and paid.
  const long = pattern.length > FREE_TEXT_CHARS
  if (!long && !replacement.includes('$') && literalBound(s.length, replacement) <= rt.maxStringLength) {
    return all ? s.replaceAll(pattern, replacement) : s.replace(pattern, replacement)
  }
  if (long) chargeScan(rt, s.length)
  const find = long ? finder(rt, s, pattern) : (from: number) => s.indexOf(pattern, from)
  let from = 0
  let done = false
  const caps = [pattern]
  const next = (): Match | null => {
    if (done) return null
    const i = find(from)
    if (i < 0 || from > s.length) { done = true; return null }
    rt.charge(SLOT_COST)
    rt.tick()
    if (!all) done = true
    from = i + Math.max(pattern.length, 1)
    return { index: i, end: i + pattern.length, caps, groups: undefined }
  }
  return replaceMatches(rt, s, next, replacement)
}
