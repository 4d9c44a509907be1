/**
 * JSON.parse with no object key over MAX_KEY_CHARS. V8 hashes a text over MAX_KEY_CHARS by its length alone
 * (sizes.ts), and JSON.parse internalizes every object key when it builds the object: keys of one such length
 * are each compared with the others, to their first difference. 1,900 keys of 16,500 characters took 5.2 s
 * in Node on 2,949 fuel (timeoutMs 1 s); 300 of 100,000, 0.5 s; the same texts as values, linear. The
 * internalized keys outlive the parse (2,000 parses of one such key each: seconds), so such a key is refused
 * before any parse, as a property key is.
 */
import { vmError } from '../errors.ts'
import { MAX_KEY_CHARS } from './sizes.ts'

/** The rest of a JSON string from inside it, escapes and all, to its closing quote (a native search that never backtracks). */
const STRING_REST = /[^"\\]*(?:\\[^][^"\\]*)*"/y

/** Index of the first quote at or after `i` that follows an even number of backslashes (from `i`), or -1. */
function restEnd(text: string, i: number): number {
  STRING_REST.lastIndex = i
  return STRING_REST.test(text) ? STRING_REST.lastIndex - 1 : -1
}

/**
 * Index of the first quote at or after `i` that follows an even number of backslashes, or -1: the end of
 * the JSON string whose characters start at `i`, or, from outside strings, the start of the next one.
 */
function stringEnd(text: string, i: number): number {
  const q = text.indexOf('"', i)
  return q < 0 || text.charCodeAt(q - 1) !== 92 ? q : restEnd(text, i)
}

/** Whether the first character after `p` that is not JSON whitespace is a colon. */
function colonAt(text: string, p: number): boolean {
  let c = text.charCodeAt(p)
  while (c === 32 || c === 9 || c === 10 || c === 13) c = text.charCodeAt(++p)
  return c === 58
}

/** Characters of the JSON string whose content is text[a, b): an escape is one (`\\uXXXX` one code unit). */
function decodedLength(text: string, a: number, b: number): number {
  let n = 0
  for (let i = a; i < b; i++, n++) if (text.charCodeAt(i) === 92) i += text.charCodeAt(i + 1) === 117 ? 5 : 1
  return n
}

/** Every string of `text` read in order from the first quote: the first key over MAX_KEY_CHARS is refused. */
function checkEveryKey(text: string): void {
  for (let open = text.indexOf('"'); open >= 0; ) {
    const close = stringEnd(text, open + 1)
    if (close < 0) return
    if (close - open - 1 > MAX_KEY_CHARS && colonAt(text, close + 1)) {
      const n = decodedLength(text, open + 1, close)
      if (n > MAX_KEY_CHARS) throw vmError('RANGE_ERROR', `JSON.parse: an object key may be at most ${MAX_KEY_CHARS} characters (the one at position ${open} has ${n}), as a property key: use shorter keys`)
    }
    open = text.indexOf('"', close + 1)
  }
}

/** Whether the quote at `q` follows an odd number of backslashes (it is inside a string). */
function escaped(text: string, q: number): boolean {
  let b = q
  while (text.charCodeAt(b - 1) === 92) b--
  return (q - b) % 2 === 1
}

/**
 * Whether every object key of `text` is at most MAX_KEY_CHARS characters, read from its colons: a key is a string that
 * a colon follows (JSON whitespace between), its closing quote after an even number of backslashes, and its opening
 * quote is the last quote before that one unless that one is escaped (then the key holds a quote: false). A text of
 * documents (few colons, most inside strings) is then parsed at once, without checkKeys, which reads each long string
 * with escaped quotes. False, to read it as below, at a key that may be long, or once colons are denser than one per
 * 2^shift characters (after 16): a search of each (a call, ~25 ns) would cost more than checkKeys on records or JSON in
 * strings. The reads back never overlap (each stops at the quote a colon follows, or before): linear.
 */
export function shortKeys(text: string, shift: number): boolean {
  for (let i = text.indexOf(':'), n = 0; i >= 0; i = text.indexOf(':', i + 1)) {
    if (++n > (i >> shift) + 16) return false
    let q = i - 1
    while (text.charCodeAt(q) <= 32) q--
    if (text.charCodeAt(q) !== 34 || escaped(text, q)) continue
    const o = text.lastIndexOf('"', q - 1)
    if (q - o - 1 > MAX_KEY_CHARS || escaped(text, o)) return false
  }
  return true
}

/** Characters between two probes of a long string for a quote that ends it. */
const PROBE_STEP = 1024
/** Characters read at the start of a string with an escaped quote: its end when it is short, the closers worth searching for. */
const SAMPLE = 256

/**
 * The key check. Strings are the only JSON tokens with quotes, and a key over the limit is a run of more than
 * MAX_KEY_CHARS characters after a quote that no quote ends (every quote in it follows an odd number of
 * backslashes). Such runs are found by looking back from the end of a window for its last quote that may end
 * a string, and starting the next window after it: a text of short tokens is crossed in a few native searches
 * per window. A run's string ends at its first unescaped quote (`end`); when a colon follows, the run may be a
 * key (or start outside strings, before a string that starts with a colon), and every string of the text is
 * read in order (checkEveryKey), which is exact up to the first syntax error, where the parse stops: then
 * false is returned.
 */
function checkKeys(text: string, end: (p: number) => number): boolean {
  const w = MAX_KEY_CHARS + 1
  let i = 0
  // end(from) when it ended past the last window: the next one may start there.
  let from = -1, found = -1
  while (i + w <= text.length) {
    const last = i + w - 1
    // The window's last quote not after a backslash (looking back a few quotes) starts the next window.
    let j = text.lastIndexOf('"', last)
    for (let k = 0; k < 8 && j >= i && text.charCodeAt(j - 1) === 92; k++) j = text.lastIndexOf('"', j - 1)
    if (j >= i && text.charCodeAt(j - 1) !== 92) { i = j + 1; continue }
    // Else the quotes that end or start strings from i (each read at most twice): the window's last one starts
    // the next window; with none, i starts a run (inside a string if i follows its opening quote).
    let close = i === from ? found : end(i)
    j = -1
    while (close >= 0 && close <= last) { j = close; close = end((from = close + 1)) }
    if (j >= 0) { i = j + 1; found = close; continue }
    if (close < 0) break
    if (colonAt(text, close + 1)) { checkEveryKey(text); return false }
    i = close + 1
  }
  return true
}

/**
 * JSON.parse(text), refused (RANGE_ERROR) before any parse when an object key would be over MAX_KEY_CHARS.
 *
 * A long string full of escaped quotes (JSON in a string, a document with quoted words) is not read by a
 * search for its end, which cost two thirds of the parse: its end is guessed (guessEnd: a quote that probes
 * every PROBE_STEP characters find unescaped, bounded by texts that cannot be inside a string), and
 * the guess is proven by JSON.parse of that one string, which fails if any quote before the guessed one ends
 * it. The string it gives is kept: the rest of the text, each such string written as a placeholder, is parsed,
 * and the strings put back, so each character is read by the engine once. A wrong guess costs a parse of that
 * string (it stops where the string ends); past a quarter of the text of those, ends are searched for as before.
 *
 * Before all that, and again at the first long string read as before (a wrong guess, or an item of an array of prose,
 * whose end is not guessed), the colons may show every key short (shortKeys): then the text is parsed as it is. The
 * first asks for colons fewer than one per 256 characters, as records of long texts have; the second one per 64, as
 * documents in arrays have.
 */
export function parseCheckedKeys(text: string): unknown {
  if (text.length <= MAX_KEY_CHARS || shortKeys(text, 8)) return JSON.parse(text)
  // Long strings read whole, in order: opening quote, closing quote; and their values.
  const spans: number[] = [], values: Array<string | undefined> = []
  let waste = text.length >> 2
  // The escaped quotes that probe chains stopped at, in order, and where the last chain ended: a quote that ends or
  // starts a string (-1: none after it).
  const insides: number[] = []
  let probed = 0
  // How far the last guess's searches may have read.
  let reach = 0

  /**
   * A quote after `p` past MAX_KEY_CHARS that ends or starts a string: the first one if the string from `p` is long
   * and guessed right. Probes from there: the first quote after each point while a backslash is before it (`\\"`
   * ends a string, but a wrong guess only costs time); the last one's string ends at the first unescaped quote after
   * it. Each probe chain starts past where the last one stopped (a later string reuses its end).
   *
   * Probes may cross into another string. Texts that cannot be inside a string bound the end sooner (each searched
   * for when its first character is rare in the string's first characters, so that the search stops at few of
   * them): `]"` or `}"` when the string starts with `[` or `{` (JSON in a string ends with its bracket: the end
   * itself), and `:` or `,` then a quote, whitespace between or not (where a string starts after a key or an item:
   * the string ends at the first unescaped quote after the last probe before it).
   */
  const guessEnd = (p: number, sample: string): number => {
    const far = p + MAX_KEY_CHARS
    const c = sample[0] === '[' ? ']' : sample[0] === '{' ? '}' : ''
    const rare = (t: string) => sample.split(t).length < 4
    // An item of an array (not JSON) whose commas are dense: the next item would not bound it, and a guess that crossed
    // into it would cost a parse of this one. Its end is searched for as before.
    let k = p - 2
    while (text.charCodeAt(k) <= 32) k--
    if (!c && !rare(',') && (text[k] === ',' || text[k] === '[')) return -1
    if (probed >= 0 && probed < far) {
      let q = -1
      for (let at = far; ; at = q + PROBE_STEP) {
        q = text.indexOf('"', at)
        if (q < 0 || text.charCodeAt(q - 1) !== 92) break
        insides.push(q)
      }
      const last = insides.length > 0 ? insides[insides.length - 1]! : -1
      probed = last >= far ? restEnd(text, last + 1) : q
    }
    let g = (reach = probed < 0 ? text.length : probed)
    for (const t of [c, ':', ',']) {
      if (!t || !rare(t)) continue
      const span = text.slice(p, g)
      // The first `t` that a quote follows (after whitespace for `:` and `,`; at once for a closer).
      let b = span.indexOf(t), q = 0
      for (; b >= 0; b = span.indexOf(t, b + 1)) {
        q = p + b + 1
        if (t !== c) while (text.charCodeAt(q) <= 32) q++
        if (text.charCodeAt(q) === 34) break
      }
      if (b < 0) continue
      if (t === c) return q
      // The last probe before the bound (a binary search: a text may hold many long strings and probes).
      let lo = 0, hi = insides.length
      while (lo < hi) { const m = (lo + hi) >> 1; if (insides[m]! > q) hi = m; else lo = m + 1 }
      const e = lo > 0 && insides[lo - 1]! >= far ? restEnd(text, insides[lo - 1]! + 1) : -1
      if (e >= 0 && e < g) g = e
    }
    return g
  }

  // Whether the colons showed every key short (shortKeys), asked once, where a long string is read as before: then the
  // search stops (end gives -1) and the text is parsed as it is.
  let clear: boolean | undefined

  /** stringEnd(text, p), reading a long string with escaped quotes whole when its end is guessed right. */
  const end = (p: number): number => {
    if (clear) return -1
    const q = text.indexOf('"', p)
    if (q < 0 || text.charCodeAt(q - 1) !== 92) return q
    if (waste > 0 && text.charCodeAt(p - 1) === 34) {
      // A string that ends within its first SAMPLE characters is read as before.
      const sample = text.slice(p, p + SAMPLE)
      const e = restEnd(sample, 0)
      if (e >= 0) return p + e
      const guess = guessEnd(p, sample)
      if (guess >= 0) {
        try {
          const value: unknown = JSON.parse(text.slice(p - 1, guess + 1))
          // The string ends there. Kept unless a colon follows it (a key, or outside strings before one).
          if (typeof value === 'string') {
            if (!colonAt(text, guess + 1)) spans.push(p - 1, guess), values.push(value)
            return guess
          }
        } catch { /* a quote before the guessed one ends the string: read as before */ }
        // The failed parse read at most this string, and the searches for bounds at most up to the probes' end.
        waste -= reach - p
      }
      if (clear === undefined && (clear = shortKeys(text, 6))) return -1
    }
    return restEnd(text, p)
  }

  if (!checkKeys(text, end) || clear || values.length === 0) return JSON.parse(text)
  // The text with U+FFFF and the string's number for each (written escaped: the text stays one byte a character).
  let rest = '', at = 0
  for (let k = 0; k < values.length; k++, at = spans[2 * k - 1]! + 1) rest += text.slice(at, spans[2 * k]) + '"\\uffff' + k + '"'
  let value: unknown
  try {
    value = JSON.parse(rest + text.slice(at))
  } catch {
    return JSON.parse(text)
  }
  // The placeholders put back; when they are not exactly the ones written, once each (the text held a string that
  // looks like one), the text is parsed as it is. Iterative: parsed JSON may nest deeper than the stack.
  let left = values.length
  const box = [value], stack: object[] = [box]
  while (stack.length > 0) {
    const o = stack.pop() as Record<string, unknown>
    for (const k in o) {
      const x = o[k]
      if (x !== null && typeof x === 'object') stack.push(x)
      else if (typeof x === 'string' && x.charCodeAt(0) === 0xffff) {
        const n = +x.slice(1), s = values[n]
        if (s === undefined || x !== '\uffff' + n) return JSON.parse(text)
        o[k] = s
        values[n] = undefined
        left--
      }
    }
  }
  return left === 0 ? box[0] : JSON.parse(text)
}
