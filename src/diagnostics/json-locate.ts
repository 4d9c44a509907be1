/**
 * Where a JSON pointer sits in the text it was parsed from.
 *
 * Flow documents, --args files, configs and ASTs are JSON written by people and editors; a problem found at
 * `/flow/edges/3/target` is only useful with the line and column of that
 * value. `locateJson` scans the text once (a strict JSON scanner, no values
 * built) and records the offset of every value by pointer, and the offset of
 * the first syntax error when the text is not JSON. A pointer that does not
 * exist (a missing field) resolves to its nearest existing parent.
 */

export interface JsonLocations {
  /** Offset of the value at `pointer`, or of its nearest existing ancestor. */
  offsetOf(pointer: string): number
  /** Offset of the first syntax error, when the text is not valid JSON. */
  syntaxError?: { offset: number; message: string }
}

const escapePointer = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1')

class Scanner {
  pos = 0
  readonly offsets = new Map<string, number>()
  constructor(readonly text: string) {}

  fail(message: string): never {
    throw Object.assign(new Error(message), { offset: this.pos })
  }

  ws(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos]!)) this.pos++
  }

  value(pointer: string, depth: number): void {
    if (depth > 1000) this.fail('the document nests too deeply')
    this.ws()
    this.offsets.set(pointer, this.pos)
    const ch = this.text[this.pos]
    if (ch === '{') return this.object(pointer, depth)
    if (ch === '[') return this.array(pointer, depth)
    if (ch === '"') return void this.string()
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(this.text.slice(this.pos, this.pos + 400))
    if (!m) this.fail(ch === undefined ? 'unexpected end of the document' : `unexpected character ${JSON.stringify(ch)}`)
    this.pos += m[0].length
  }

  string(): string {
    const m = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/.exec(this.text.slice(this.pos))
    if (!m) this.fail('unterminated or invalid string')
    this.pos += m[0].length
    return JSON.parse(m[0]) as string
  }

  object(pointer: string, depth: number): void {
    this.pos++
    this.ws()
    if (this.text[this.pos] === '}') { this.pos++; return }
    for (;;) {
      this.ws()
      if (this.text[this.pos] !== '"') this.fail('expected a property name in double quotes')
      const key = this.string()
      this.ws()
      if (this.text[this.pos] !== ':') this.fail('expected ":" after a property name')
      this.pos++
      this.value(`${pointer}/${escapePointer(key)}`, depth + 1)
      this.ws()
      const ch = this.text[this.pos++]
      if (ch === '}') return
      if (ch !== ',') { this.pos--; this.fail('expected "," or "}" in an object') }
    }
  }

  array(pointer: string, depth: number): void {
    this.pos++
    this.ws()
    if (this.text[this.pos] === ']') { this.pos++; return }
    for (let i = 0; ; i++) {
      this.value(`${pointer}/${i}`, depth + 1)
      this.ws()
      const ch = this.text[this.pos++]
      if (ch === ']') return
      if (ch !== ',') { this.pos--; this.fail('expected "," or "]" in an array') }
    }
  }
}

/** Scan `text` and index the offset of every value by JSON pointer. */
export function locateJson(text: string): JsonLocations {
  const scanner = new Scanner(text)
  let syntaxError: JsonLocations['syntaxError']
  try {
    scanner.value('', 0)
    scanner.ws()
    if (scanner.pos < text.length) scanner.fail('unexpected text after the document')
  } catch (e) {
    syntaxError = { offset: (e as { offset?: number }).offset ?? scanner.pos, message: (e as Error).message }
  }
  const offsets = scanner.offsets
  return {
    offsetOf(pointer: string): number {
      let p = pointer
      for (;;) {
        const hit = offsets.get(p)
        if (hit !== undefined) return hit
        if (p === '') return 0
        p = p.slice(0, p.lastIndexOf('/'))
      }
    },
    ...(syntaxError ? { syntaxError } : {}),
  }
}
