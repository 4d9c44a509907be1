/**
 * "Did you mean …?": the candidate nearest a misspelt name, for every error message that offers one
 * (the VM, the transpiler, the builder, FlowLang, Python, the CLI and the hosts).
 *
 * The names compared often come from a guest: an AST from the network, a tenant's source, a flow
 * document. Comparing two names costs the product of their lengths, so without a bound one error
 * about two 30,000-letter names costs seconds before any fuel is charged. Here a name or candidate
 * longer than SUGGEST_MAX_CHARS is not compared, and one call compares at most SUGGEST_MAX_PAIRS
 * letter pairs (a caller reporting many problems passes one budget for all of them); once the
 * work is spent the error comes without a suggestion.
 */

/** Names longer than this get no suggestion (nobody mistypes a 65-letter name by a letter or two). */
export const SUGGEST_MAX_CHARS = 64

/** Letter pairs one suggestion may compare: ~60 candidates of the longest names, thousands of short ones. */
export const SUGGEST_MAX_PAIRS = 250_000

/** Work left, in letter pairs, shared by the suggestions of one validation. */
export interface SuggestBudget {
  left: number
}

export interface ClosestOptions {
  /** Shared work budget; without one, each call may compare SUGGEST_MAX_PAIRS pairs. */
  budget?: SuggestBudget
}

/** The most edits a suggestion may be away: a third of the name's length, from 1 to 3. */
const maxDistance = (length: number): number => Math.max(1, Math.min(3, Math.floor(length / 3)))

/**
 * The candidate nearest `name` by edit distance, ignoring case, where swapping two adjacent letters
 * (`fule` for `fuel`) is one edit; `name` itself is never suggested. Ties go to the first candidate.
 */
export function closest(name: string, candidates: Iterable<string>, options: ClosestOptions = {}): string | undefined {
  if (name.length > SUGGEST_MAX_CHARS) return undefined
  const budget = options.budget ?? { left: SUGGEST_MAX_PAIRS }
  const lower = name.toLowerCase()
  let bestDistance = maxDistance(name.length) + 1
  let best: string | undefined
  for (const candidate of candidates) {
    if (candidate === name || candidate.length > SUGGEST_MAX_CHARS) continue
    // The distance is at least the difference in length: such a candidate cannot win.
    if (Math.abs(candidate.length - name.length) >= bestDistance) continue
    if ((budget.left -= (name.length + 1) * (candidate.length + 1)) < 0) break
    const d = distance(lower, candidate.toLowerCase())
    if (d < bestDistance) {
      bestDistance = d
      best = candidate
      if (d === 0) break
    }
  }
  return best
}

/** Optimal string alignment distance: edits, a swap of two adjacent letters counting one. */
function distance(a: string, b: string): number {
  let older: number[] = []
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, older[j - 2]! + 1)
      cur[j] = d
    }
    older = prev
    prev = cur
  }
  return prev[b.length]!
}
