/**
 * V8 hashes a text over MAX_KEY_CHARS (16,383) by its length alone, so in one native Set or Map every such
 * text of one length shares a bucket and is compared with each other one, to their first difference:
 * `new Set` of 1,000 texts of 100,000 characters that share their start took 6 s in Node (9 s for the
 * guest's Set.from, paid as one read of each). Such a text stands in a native Set as a token instead, one
 * per distinct text. The engine finds it: the text is cut in pieces of MAX_KEY_CHARS, which it hashes
 * whole; each distinct piece gets a number, and the numbers of a text's pieces, as a short text, are the
 * key of its token. Equal texts have equal keys and only they do; each character is hashed and compared once.
 * (A key is 2 characters a piece: over MAX_KEY_CHARS itself only for texts over 134M characters.)
 */
import { MAX_KEY_CHARS } from './sizes.ts'

/** A long text inside a native Set: hashed by identity. Never a guest value. */
class Token { constructor(readonly text: string) {} }

/**
 * A function that gives `items` with each text over MAX_KEY_CHARS replaced by its token (the same token for
 * equal texts in every array it is given: make one per call).
 */
export function tokenizer(): (items: readonly unknown[]) => unknown[] {
  const pieces = new Map<string, number>()
  const tokens = new Map<string, Token>()
  const token = (s: string): Token => {
    let key = ''
    for (let i = 0; i < s.length; i += MAX_KEY_CHARS) {
      const p = s.slice(i, i + MAX_KEY_CHARS)
      let n = pieces.get(p)
      if (n === undefined) pieces.set(p, (n = pieces.size))
      key += String.fromCharCode(n & 0xffff, n >>> 16)
    }
    let t = tokens.get(key)
    if (!t) tokens.set(key, (t = new Token(s)))
    return t
  }
  return (items) => items.map((e) => (typeof e === 'string' && e.length > MAX_KEY_CHARS ? token(e) : e))
}

/** The items of `xs` as an array, each token's text in its place. */
export const untoken = (xs: Iterable<unknown>): unknown[] => Array.from(xs, (x) => (x instanceof Token ? x.text : x))
