/**
 * The text of one top-level member of a JSON object, without parsing the
 * rest: POST /v1/runs hands the `ast` to a worker as the very text the
 * client sent, so the event loop never serializes it again (the worker
 * parses it once and keeps it by that text). The input is already known to
 * be valid JSON (fastify parsed it); like JSON.parse, the last duplicate key wins.
 */

const QUOTE = 34
const BACKSLASH = 92

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9

/** Index just past the string that starts at `i` (a `"`). */
function skipString(text: string, i: number): number {
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === BACKSLASH) i++
    else if (c === QUOTE) return i + 1
  }
  return -1
}

/** Index just past the value that starts at `i`. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i)
  if (c === QUOTE) return skipString(text, i)
  if (c === 123 || c === 91) {
    let depth = 0
    while (i < text.length) {
      const d = text.charCodeAt(i)
      if (d === QUOTE) { i = skipString(text, i); if (i < 0) return -1; continue }
      if (d === 123 || d === 91) depth++
      else if (d === 125 || d === 93) { depth--; if (depth === 0) return i + 1 }
      i++
    }
    return -1
  }
  while (i < text.length) {
    const d = text.charCodeAt(i)
    if (d === 44 || d === 125 || d === 93 || isSpace(d)) return i
    i++
  }
  return i
}

/** The raw text of `name`'s value in the JSON object `text`, or undefined (absent, or not an object). */
export function rawMember(text: string, name: string): string | undefined {
  let i = 0
  while (isSpace(text.charCodeAt(i))) i++
  if (text.charCodeAt(i) !== 123) return undefined
  i++
  let found: string | undefined
  for (;;) {
    while (isSpace(text.charCodeAt(i))) i++
    if (text.charCodeAt(i) === 125 || i >= text.length) return found
    if (text.charCodeAt(i) !== QUOTE) return undefined
    const keyEnd = skipString(text, i)
    if (keyEnd < 0) return undefined
    const rawKey = text.slice(i + 1, keyEnd - 1)
    const key = rawKey.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : rawKey
    i = keyEnd
    while (isSpace(text.charCodeAt(i))) i++
    if (text.charCodeAt(i) !== 58) return undefined
    i++
    while (isSpace(text.charCodeAt(i))) i++
    const end = skipValue(text, i)
    if (end < 0) return undefined
    if (key === name) found = text.slice(i, end)
    i = end
    while (isSpace(text.charCodeAt(i))) i++
    if (text.charCodeAt(i) === 44) i++
  }
}

/** What one pass over a request body found: see scanJson. */
export interface JsonScan {
  /** The body nests deeper than the limit (the root value at depth 0). */
  tooDeep: boolean
  /** The raw text of the asked top-level member, when its value is an object or an array (the last duplicate wins). */
  member: string | undefined
  /** Where that member's value starts and ends in the text (-1: not found). */
  start: number
  end: number
  /** The remembered value the member is (scanJson with `seen`), when it was found there (sent before). */
  seen?: SeenValue
}

/** A member's value seen in an earlier body, and the depth the scan reached inside it (the value at depth 1). */
export interface SeenValue {
  text: string
  peak: number
  /** Set by the owner of the cache (POST /v1/runs: the AST's SHA-256, so pool threads key its parsed program without hashing the text). */
  key?: string
  /** Who sent it (a tenant id): only their bodies find it, so no one learns by timing what others send. */
  owner: string
}

/** Characters of a value that key its lookup (its opening: an AST's header, say). */
const HEAD = 48

/**
 * Object and array values of the scanned member seen in earlier bodies, so a body holding one of
 * them again (the same AST sent with other arguments) skips its scan: found with one hash of its
 * first characters and one comparison, where a scan reads every character in JS
 * (~20 µs of the event loop for a 7.7 KB AST). Bounded in count and characters; oldest out.
 */
export class SeenValues {
  private readonly byHead = new Map<string, SeenValue[]>()
  private readonly order: SeenValue[] = []
  private chars = 0
  /** Values sent once, by owner, length and head: one is copied and remembered when it comes again. */
  private readonly once = new Map<string, true>()

  /** Shorter values are not remembered (at least HEAD characters: their head is found in the body). */
  readonly minChars: number

  constructor(minChars = 512, private readonly maxValues = 64, private readonly maxChars = 4 * 1024 * 1024) {
    this.minChars = Math.max(HEAD, minChars)
  }

  /** The value `owner` sent before that `text` holds at `at`, if any. */
  find(text: string, at: number, owner: string): SeenValue | undefined {
    const list = this.byHead.get(text.slice(at, at + HEAD))
    // A slice compared with === (memcmp), not startsWith (a loop over characters, several µs here).
    if (list) for (const v of list) if (v.owner === owner && text.slice(at, at + v.text.length) === v.text) return v
    return undefined
  }

  /** Remember `value` (a member's text as scanned) with the depth its scan reached; the entry, or undefined when it is not kept. */
  add(value: string, peak: number, owner: string): SeenValue | undefined {
    if (value.length < this.minChars || value.length > this.maxChars) return undefined
    const head = value.slice(0, HEAD)
    const had = this.byHead.get(head)?.find((v) => v.owner === owner && v.text === value)
    if (had) return had
    // Only a value sent again is copied and kept: a client whose ASTs are all new pays a Map.set here.
    const mark = `${owner}\u0000${value.length}\u0000${head}`
    if (!this.once.delete(mark)) {
      if (this.once.size >= 4 * this.maxValues) this.once.delete(this.once.keys().next().value!)
      this.once.set(mark, true)
      return undefined
    }
    // A copy of its own: a slice would keep the whole body (its arguments too) alive. Lone
    // surrogates do not survive the round trip: such a value is not remembered.
    const text = Buffer.from(value, 'utf8').toString('utf8')
    if (text !== value) return undefined
    while (this.order.length > 0 && (this.order.length >= this.maxValues || this.chars + text.length > this.maxChars)) {
      const old = this.order.shift()!
      this.chars -= old.text.length
      const l = this.byHead.get(old.text.slice(0, HEAD))!
      if (l.length === 1) this.byHead.delete(old.text.slice(0, HEAD))
      else l.splice(l.indexOf(old), 1)
    }
    const v = { text, peak, owner }
    const list = this.byHead.get(head)
    if (list) list.push(v)
    else this.byHead.set(head, [v])
    this.order.push(v)
    this.chars += text.length
    return v
  }
}

/** scanJson's answer (a function, not a closure made per scan). */
function scanned(tooDeep: boolean, member: string | undefined, start: number, end: number, found: SeenValue | undefined): JsonScan {
  return found !== undefined && member === found.text ? { tooDeep, member, start, end, seen: found } : { tooDeep, member, start, end }
}

/**
 * One pass over a JSON text (not yet parsed: the caller parses what it needs after): whether it nests
 * deeper than `maxDepth` (as a walk of the parsed value would say, the root at depth 0), and the
 * text of the top-level member `name` if it holds an object or an array. Strings are skipped
 * with indexOf, so the pass costs little next to the parse. With `seen`, a member value met
 * before is stepped over whole: the scan of the same characters from the same state would end in
 * the same state (depth back to 1, the same deepest level), so the result is the same. Values are
 * remembered per `owner`.
 */
export function scanJson(text: string, maxDepth: number, name: string, seen?: { values: SeenValues; owner: string }): JsonScan {
  let depth = 0
  let deepest = 0
  let rootObject = false
  let expectKey = false
  let key: string | undefined
  let valueStart = -1
  let valuePeak = 0
  let member: string | undefined
  let found: SeenValue | undefined
  let start = -1
  let end = -1
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      let j = i
      for (;;) {
        j = text.indexOf('"', j + 1)
        if (j < 0) return scanned(deepest - 1 >= maxDepth, member, start, end, found)
        let k = j - 1
        while (text.charCodeAt(k) === BACKSLASH) k--
        if ((j - 1 - k) % 2 === 0) break
      }
      if (depth === 1 && rootObject && expectKey) {
        const raw = text.slice(i + 1, j)
        key = raw.includes('\\') ? (JSON.parse(text.slice(i, j + 1)) as string) : raw
        expectKey = false
      }
      i = j
    } else if (c === 123 || c === 91) {
      if (depth === 0) { rootObject = c === 123; expectKey = rootObject }
      else if (depth === 1) {
        const known = seen !== undefined && rootObject && key === name ? seen.values.find(text, i, seen.owner) : undefined
        if (known) {
          if (known.peak > deepest) deepest = known.peak
          start = i
          end = i + known.text.length
          member = known.text
          found = known
          i = end - 1
          continue
        }
        valueStart = i
        valuePeak = 2
      }
      depth++
      if (depth > deepest) deepest = depth
      if (depth > valuePeak) valuePeak = depth
    } else if (c === 125 || c === 93) {
      depth--
      if (depth === 1 && valueStart >= 0) {
        if (rootObject && key === name) {
          start = valueStart; end = i + 1; member = text.slice(start, end)
          // Remembered for the next body; `seen` is reported only when found (a hit), so a body
          // whose AST is new every time pays no more than the copy.
          if (seen !== undefined && member.length >= seen.values.minChars) seen.values.add(member, valuePeak, seen.owner)
        }
        valueStart = -1
      }
    } else if (c === 44 && depth === 1) expectKey = rootObject
  }
  return scanned(deepest - 1 >= maxDepth, member, start, end, found)
}
