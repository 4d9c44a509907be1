/**
 * Short keys for long texts in a host index (builtins/set-vars.ts). V8 hashes a text over MAX_KEY_CHARS by
 * its length alone, so in one native Map every such text of one length would share a bucket, each compared
 * with all the others (1,000 keys of 100,000 characters: 25 s for one Map.from in Node). Such a text is
 * keyed instead as in text-tokens.ts: cut in pieces of MAX_KEY_CHARS (hashed whole), each distinct piece
 * numbered, and the numbers of its pieces, a short text, key it. Only `add` numbers new pieces: a lookup of
 * a text with a piece never seen is a miss, and keeps nothing of the text it was given.
 */
import { MAX_KEY_CHARS } from './sizes.ts'

/** Whether `k` is a text a native Map must not be keyed by. */
export const isLongKey = (k: unknown): k is string => typeof k === 'string' && k.length > MAX_KEY_CHARS

/** A coder of long texts for one index: the short key of `s`, or undefined when one of its pieces is new and `add` is false. */
export function longKeyCoder(): (s: string, add?: boolean) => string | undefined {
  const pieces = new Map<string, number>()
  return (s, add) => {
    let key = ''
    for (let i = 0; i < s.length; i += MAX_KEY_CHARS) {
      const p = s.slice(i, i + MAX_KEY_CHARS)
      let n = pieces.get(p)
      if (n === undefined) {
        if (!add) return undefined
        pieces.set(p, (n = pieces.size))
      }
      key += String.fromCharCode(n & 0xffff, n >>> 16)
    }
    return key
  }
}
