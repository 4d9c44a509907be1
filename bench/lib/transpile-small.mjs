// Transpile ÷ acorn.parse on the sources an agent is: the workloads from 12 to 66 lines, the
// 300-line agent (the workloads as helpers of one entry) and a generated 3,336-line source. Shared
// by bench/transpile-ab.mjs (two revisions side by side) and the bench's transpile section (issue
// 28's goal, "≤ ×1.5 at every size"). Per source, rounds of a ~10 ms batch of acorn.parse and a
// batch of transpile alternate, in CPU time; the least disturbed batch of each (min per call) makes
// the ratio. With `settle`, each timed batch follows an untimed batch of the same function, so
// neither side is timed right after the other (the sweeping of acorn's garbage, its location
// objects, is otherwise charged to whoever allocates next).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export const SMALL_NAMES = ['arith-loop', 'helper-fib', 'agent-typical', 'rules', '300-line agent', 'generated']
export const PARSE_OPTIONS = { ecmaVersion: 'latest', locations: true }

/** The sources, in SMALL_NAMES order. */
export function smallSources(workloadsDir, generateLargeSource) {
  const read = (f) => readFileSync(join(workloadsDir, f), 'utf8')
  const agent300 = ['agent-typical', 'records', 'rules', 'primes', 'array-pipeline', 'string-build', 'helper-fib', 'arith-loop-idiomatic', 'arith-loop']
    .map((f) => read(`${f}.ajs`)).join('\n') + '\nfunction main({ n }) {\n  return { trip: planTrip({ user: { name: n, tier: "gold" }, city: "Lisbon", days: 5, budget: 1800, interests: ["food"] }), recs: records({ count: n }), fib: helperFib({ n: 10 }) }\n}'
  return [read('arith-loop.ajs'), read('helper-fib.ajs'), read('agent-typical.ajs'), read('rules.ajs'), agent300, generateLargeSource({ blocks: 267 })]
}

export const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }

/** Per source: lines, and the least time per call of acorn.parse and of transpile (ms). */
export function measureSmall(parse, transpile, sources, { rounds = 25, now = cpuNow, settle = true } = {}) {
  // Warm up on every source first, so the first source is not timed with colder code than the rest.
  for (const t0 = performance.now(); performance.now() - t0 < 400;) {
    for (const src of sources.slice(0, 4)) { parse(src, PARSE_OPTIONS); transpile(src) }
  }
  return sources.map((src) => {
    const fns = [() => parse(src, PARSE_OPTIONS), () => transpile(src)]
    const reps = fns.map((fn) => {
      for (let n = 1; ; n *= 2) { const t = performance.now(); for (let i = 0; i < n; i++) fn(); if (performance.now() - t > 10) return n }
    })
    const best = [Infinity, Infinity]
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < 2; k++) {
        const i = (k + r) % 2
        if (settle) for (let j = 0; j < reps[i]; j++) fns[i]()
        const t0 = now()
        for (let j = 0; j < reps[i]; j++) fns[i]()
        best[i] = Math.min(best[i], (now() - t0) / reps[i])
      }
    }
    return { lines: src.split('\n').length, acorn: best[0], transpile: best[1] }
  })
}
