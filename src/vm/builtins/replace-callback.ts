/**
 * `s.replace(pattern, (match, ...groups, offset, text) => ...)` and `replaceAll`: the callback gives each
 * replacement, in order, as JavaScript calls it, and its value is read as text. AJS callbacks take at most
 * four parameters, so the first four of JavaScript's arguments are passed (a callback that names more than
 * four is refused when compiled). The matches are found first, paid as a search of the text and one slot
 * per match; each call is metered as a callback, and may wait for an atom (the calls run one after another).
 */
import type { Frame, Run } from '../runtime.ts'
import type { Callable, HofSpec } from './array-hof.ts'
import { vmError } from '../errors.ts'
import { isP } from '../compile/async.ts'
import { guestString } from './coerce.ts'
import { isRegex, regexSupport } from './regex-hook.ts'
import { FREE_TEXT_CHARS, chargeScan } from './sizes.ts'
import { finder } from './text-search.ts'

interface Found { at: number; length: number; args: unknown[] }

/** Where `pattern` matches `s`: a regex's matches (all with `g` or replaceAll), or a text's occurrences. */
function matchesOf(rt: Run, s: string, pattern: unknown, all: boolean): Found[] {
  if (isRegex(pattern)) {
    if (all && !pattern.global) throw vmError('TYPE_ERROR', 'replaceAll must be called with a global RegExp')
    const regex = regexSupport()
    const list = all || pattern.global ? regex.matchAll(rt, pattern, s) : [regex.exec(rt, pattern, s)].filter((m) => m !== null) as unknown[][]
    return list.map((m) => {
      const { index, groups } = m as unknown[] & { index: number; groups?: unknown }
      return { at: index, length: String(m[0]).length, args: groups === undefined ? [...m, index, s] : [...m, index, s, groups] }
    })
  }
  const t = guestString(rt, pattern)
  chargeScan(rt, s.length + t.length)
  const find = t.length > FREE_TEXT_CHARS ? finder(rt, s, t) : (from: number) => s.indexOf(t, from)
  const out: Found[] = []
  for (let at = find(0); at >= 0; at = find(at + Math.max(t.length, 1))) {
    rt.chargeSlots(1)
    out.push({ at, length: t.length, args: [t, at, s] })
    if (!all || at >= s.length) break
  }
  return out
}

function replaceWith(f: Frame, s: string, cb: Callable, pattern: unknown, all: boolean): unknown {
  const rt = f.rt
  const found = matchesOf(rt, s, pattern, all)
  const parts: string[] = []
  let last = 0
  let i = 0
  const put = (r: unknown) => {
    const m = found[i++]!
    parts.push(s.slice(last, m.at), guestString(rt, r))
    last = m.at + m.length
  }
  const loop = (): unknown => {
    while (i < found.length) {
      rt.tick()
      const a = found[i]!.args
      const r = cb.call(f, a[0], a[1], a[2], a[3])
      if (isP(r)) return r.then((v) => { put(v); return loop() })
      put(r)
    }
    parts.push(s.slice(last))
    return rt.chargeString(parts.join(''))
  }
  return loop()
}

/** The text methods that take a callback (their target is a string; the callback is their second argument). */
export const TEXT_HOF_METHODS: Record<'replace' | 'replaceAll', HofSpec> = {
  replace: { text: true, callbackAt: 1, run: (f, s, cb, [pattern]) => replaceWith(f, s as unknown as string, cb, pattern, false) },
  replaceAll: { text: true, callbackAt: 1, run: (f, s, cb, [pattern]) => replaceWith(f, s as unknown as string, cb, pattern, true) },
}
