// Timing primitives: batches sized to a target duration, interleaved rounds
// in a shuffled order (so drift, GC debt and thermal effects spread over all
// systems instead of favouring whoever runs first), medians per system.

export const now = () => performance.now()

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

export function geomean(xs) {
  return xs.length ? Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length) : NaN
}

/** Small seeded PRNG (mulberry32): the shuffles are reproducible from the seed. */
export function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function shuffle(xs, rand) {
  const a = [...xs]
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[a[i], a[j]] = [a[j], a[i]]
  }
  return a
}

let sink
/** Time n back-to-back runs; async runners are awaited one by one (their real API cost). */
export async function timeBatch(runner, n) {
  const run = runner.run
  if (runner.isAsync) {
    const t0 = now()
    for (let i = 0; i < n; i++) sink = await run()
    return now() - t0
  }
  const t0 = now()
  for (let i = 0; i < n; i++) sink = run()
  return now() - t0
}

/** Iterations per sample so that one sample lasts about targetMs (also warms the JIT up). */
export async function calibrate(runner, targetMs) {
  let n = 1
  for (;;) {
    const t = await timeBatch(runner, n)
    if (t >= targetMs / 4 || n >= 1 << 20) {
      return { iters: Math.max(1, Math.round((n * targetMs) / Math.max(t, 1e-3))), perRunMs: t / n }
    }
    n *= 4
  }
}

/** At least 3 runs and warmupMs of running, so the JIT has settled before calibrating. */
async function warmUp(runner, warmupMs) {
  const t0 = now()
  for (let i = 0; i < 3 || now() - t0 < warmupMs; i++) await timeBatch(runner, 1)
}

/**
 * runners: { id: runner }. Each round visits every runner once in a fresh
 * shuffled order and records ms per run. Rounds are capped so that the whole
 * measurement stays near budgetMs (at least minRounds).
 * Returns { id: { medianMs, samples, iters } }.
 */
export async function measureInterleaved(runners, { rounds, targetMs, budgetMs, minRounds = 3, warmupMs = 200, rand }) {
  const ids = Object.keys(runners)
  const iters = {}
  let roundCost = 0
  for (const id of ids) {
    await warmUp(runners[id], warmupMs)
    const c = await calibrate(runners[id], targetMs)
    iters[id] = c.iters
    roundCost += c.iters * c.perRunMs
  }
  const n = Math.max(minRounds, Math.min(rounds, Math.floor(budgetMs / Math.max(roundCost, 1e-3))))
  const samples = Object.fromEntries(ids.map((id) => [id, []]))
  for (let r = 0; r < n; r++) {
    for (const id of shuffle(ids, rand)) {
      const t = await timeBatch(runners[id], iters[id])
      samples[id].push(t / iters[id])
    }
  }
  return Object.fromEntries(ids.map((id) => [id, { medianMs: median(samples[id]), samples: samples[id], iters: iters[id] }]))
}

/** Deep equality of the JSON form of two values (key order ignored), as the check before timing. */
export function sameJson(a, b) {
  return eq(toJson(a), toJson(b))
}
const toJson = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)))
function eq(a, b) {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && eq(a[k], b[k]))
}
