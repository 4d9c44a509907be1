/**
 * Cosine similarity and top-k ranking for the memory store's vector search.
 * Ranking is deterministic: score descending, then key ascending, so the same
 * data and query always give the same order (runs can be replayed).
 */

import { fail } from './errors.ts'

/** A stored vector with its precomputed norm. */
export interface IndexedVector {
  values: Float64Array
  norm: number
}

/** Check and index a vector; throws STORE_BAD_VECTOR. */
export function indexVector(vector: unknown, maxDimensions: number, what = 'vector'): IndexedVector {
  if (!Array.isArray(vector) || vector.length === 0) throw fail('STORE_BAD_VECTOR', `${what} must be a non-empty array of numbers`)
  if (vector.length > maxDimensions) throw fail('STORE_BAD_VECTOR', `${what} has ${vector.length} dimensions, over ${maxDimensions}`)
  const values = new Float64Array(vector.length)
  let sum = 0
  for (let i = 0; i < vector.length; i++) {
    const x: unknown = vector[i]
    if (typeof x !== 'number' || !Number.isFinite(x)) throw fail('STORE_BAD_VECTOR', `${what}[${i}] is not a finite number`)
    values[i] = x
    sum += x * x
  }
  return { values, norm: Math.sqrt(sum) }
}

/** Cosine similarity in [-1, 1]; 0 when either vector has zero length. */
export function cosineSimilarity(a: IndexedVector, b: IndexedVector): number {
  if (a.norm === 0 || b.norm === 0) return 0
  let dot = 0
  for (let i = 0; i < a.values.length; i++) dot += a.values[i]! * b.values[i]!
  return dot / (a.norm * b.norm)
}

/** A scored candidate. */
export interface Scored {
  key: string
  score: number
}

/** Order by score (desc), then key (asc), and keep the first k. */
export function topK<T extends Scored>(items: T[], k: number): T[] {
  items.sort((x, y) => y.score - x.score || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
  return items.slice(0, k)
}
