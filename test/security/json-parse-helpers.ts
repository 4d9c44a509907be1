/** What the JSON.parse suites (json-long-keys, json-long-strings, json-doc-arrays) share. */
import { MAX_KEY_CHARS } from '../../src/vm/builtins/sizes.ts'

/** Records the texts the engine's JSON.parse is given until `restore`. */
function spyParse(): { seen: string[]; restore: () => void } {
  const seen: string[] = []
  const native = JSON.parse
  JSON.parse = ((t: string, r?: any) => { seen.push(t); return native(t, r) }) as typeof JSON.parse
  return { seen, restore: () => { JSON.parse = native } }
}

/** The texts the engine's JSON.parse is given during `f`. */
export function parsedTexts(f: () => void): string[] {
  const spy = spyParse()
  try { f() } finally { spy.restore() }
  return spy.seen
}

/** The same during an async `f` (a guest run). */
export async function parsedDuring(f: () => Promise<unknown>): Promise<string[]> {
  const spy = spyParse()
  try { await f() } finally { spy.restore() }
  return spy.seen
}

/** Whether a parsed value has a key over MAX_KEY_CHARS (the reference for a refusal). */
export const longKey = (v: unknown): boolean => v !== null && typeof v === 'object'
  && (Array.isArray(v) ? v.some(longKey) : Object.entries(v).some(([k, x]) => k.length > MAX_KEY_CHARS || longKey(x)))

/** A deterministic draw in [0, n) (xorshift32 from `seed`), for the random texts. */
export function draws(seed: number): (n: number) => number {
  return (n) => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) % n }
}
