/** "Did you mean …?" suggestions by edit distance. */

/** Edits between two names; swapping two adjacent letters (`fule` for `fuel`) is one edit. */
function distance(a: string, b: string): number {
  const m = a.length, n = b.length
  if (Math.abs(m - n) > 3) return 99
  let older: number[] = []
  let prev = Array.from({ length: n + 1 }, (_, j) => j)
  for (let i = 1; i <= m; i++) {
    const cur = [i]
    for (let j = 1; j <= n; j++) {
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, older[j - 2]! + 1)
      cur[j] = d
    }
    older = prev
    prev = cur
  }
  return prev[n]!
}

/** The closest candidate within a small distance, or undefined. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined
  let bestD = Math.max(1, Math.min(3, Math.floor(name.length / 3)))
  const lower = name.toLowerCase()
  for (const c of candidates) {
    if (c.toLowerCase() === lower) return c
    const d = distance(name, c)
    if (d <= bestD && (best === undefined || d < bestD)) {
      best = c
      bestD = d
    }
  }
  return best
}

export function didYouMean(name: string, candidates: Iterable<string>): string {
  const c = closest(name, candidates)
  return c ? ` (did you mean "${c}"?)` : ''
}
