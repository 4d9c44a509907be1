/**
 * "Did you mean ...?": the closest candidate by edit distance.
 * Only runs on the error path, so clarity beats speed here.
 */

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = up
    }
  }
  return prev[b.length]!
}

/** The best candidate within a distance proportional to the name's length, if any. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase()
  let best: string | undefined
  let bestScore = Math.max(2, Math.floor(name.length / 3)) + 1
  for (const c of candidates) {
    if (c === name) continue
    const score = c.toLowerCase() === lower ? 0 : distance(lower, c.toLowerCase())
    if (score < bestScore) {
      bestScore = score
      best = c
    }
  }
  return best
}

/** `Did you mean `x`? ` or an empty string (prefix of a hint). */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const best = closest(name, candidates)
  return best === undefined ? '' : `Did you mean \`${best}\`? `
}
