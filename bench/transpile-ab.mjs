// A/B of `transpile` between two revisions of src/ (or `.` for the working tree), as a ratio to
// acorn.parse (the bench's baseline: ecmaVersion latest, locations: true):
//   node bench/transpile-ab.mjs <rev-before> <rev-after|.> [processes] [rounds] [--cpu] [--settle]
// (a revision may also be a folder holding a src/ tree, see transpile-bundle.mjs)
// (--cpu: batches timed by the process's CPU time, not the wall clock; --settle: each timed batch
// follows an untimed batch of the same function, so neither side is timed right after the other:
// under Bun, in some runs, the best transpile batch right after an acorn batch was up to a third
// slower than the best one after a transpile batch, while acorn's moved far less — likely the
// sweeping of acorn's garbage (its location objects) charged to whoever allocates next)
// Each revision is bundled with esbuild; then child processes alternate A, B, A, B, ... (one
// revision per process, as the bench runs: a second copy of acorn's parser in the same process
// would make its call sites polymorphic and slow both). In a child, for each source, rounds of a
// ~10 ms batch of acorn.parse and a batch of transpile alternate; its ratio is min(transpile) ÷
// min(acorn): the least disturbed samples on a loaded machine, and load hits both sides alike.
// Prints, per source, the median over the processes of each revision's ratio, and B/A.
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { scratchDir } from './lib/revision.mjs'
import { bundleTranspiler } from './transpile-bundle.mjs'

const root = resolve(import.meta.dirname, '..')
const read = (f) => readFileSync(join(root, 'bench/workloads', f), 'utf8')

if (process.argv[2] === '--child') {
  const { parse } = await import('acorn')
  const { generateLargeSource } = await import('./workloads/gen-large.mjs')
  const { transpile } = await import(pathToFileURL(process.argv[3]).href)
  const rounds = Number(process.argv[4])
  // CPU time of the process (time spent descheduled on a loaded machine does not count), or the wall clock.
  const now = process.argv[5] === 'cpu' ? () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 } : () => performance.now()
  const settle = process.argv[6] === 'settle'
  // The 300-line agent of transpile.ts: the workloads as helpers of one entry.
  const agent300 = ['agent-typical', 'records', 'rules', 'primes', 'array-pipeline', 'string-build', 'helper-fib', 'arith-loop-idiomatic', 'arith-loop']
    .map((f) => read(`${f}.ajs`)).join('\n') + '\nfunction main({ n }) {\n  return { trip: planTrip({ user: { name: n, tier: "gold" }, city: "Lisbon", days: 5, budget: 1800, interests: ["food"] }), recs: records({ count: n }), fib: helperFib({ n: 10 }) }\n}'
  const sources = [read('arith-loop.ajs'), read('helper-fib.ajs'), read('agent-typical.ajs'), read('rules.ajs'), agent300, generateLargeSource({ blocks: 267 })]
  // Warm up on every source first, so the first source is not timed with colder code than the rest.
  for (const t0 = performance.now(); performance.now() - t0 < 400;) {
    for (const src of sources.slice(0, 4)) { parse(src, { ecmaVersion: 'latest', locations: true }); transpile(src) }
  }
  const out = []
  for (const src of sources) {
    const fns = [() => parse(src, { ecmaVersion: 'latest', locations: true }), () => transpile(src)]
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
    out.push({ lines: src.split('\n').length, acorn: best[0], transpile: best[1] })
  }
  process.stdout.write(JSON.stringify(out))
  process.exit(0)
}

const useCpu = process.argv.includes('--cpu')
const settle = process.argv.includes('--settle')
const [revA, revB, processes = '6', rounds = '25'] = process.argv.slice(2).filter((a) => a !== '--cpu' && a !== '--settle')
if (!revA || !revB) { console.error('usage: node bench/transpile-ab.mjs <rev-before> <rev-after|.> [processes] [rounds] [--cpu] [--settle]'); process.exit(2) }
const dir = scratchDir('ajs-tab-')
const bundles = [await bundleTranspiler(revA, dir, 'a'), await bundleTranspiler(revB, dir, 'b')]
const runs = [[], []]
for (let p = 0; p < Number(processes); p++) {
  for (const i of p % 2 ? [1, 0] : [0, 1]) {
    runs[i].push(JSON.parse(execFileSync(process.execPath, [import.meta.filename, '--child', bundles[i], rounds, useCpu ? 'cpu' : 'wall', settle ? 'settle' : 'alternate'], { encoding: 'utf8' })))
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const names = ['arith-loop', 'helper-fib', 'agent-typical', 'rules', '300-line agent', 'generated']
console.log(`transpile ÷ acorn.parse, median over ${processes} processes per revision (min of ${rounds} rounds each${useCpu ? ', CPU time' : ''}${settle ? ', each batch after one of its own' : ''})`)
names.forEach((name, s) => {
  const ratio = (i) => median(runs[i].map((r) => r[s].transpile / r[s].acorn))
  const us = (i) => `${(median(runs[i].map((r) => r[s].transpile)) * 1000).toFixed(1)} µs`
  console.log(`${name.padEnd(14)} ${String(runs[0][0][s].lines).padStart(5)} lines  ${revA}: ×${ratio(0).toFixed(2)} (${us(0)})  ${revB}: ×${ratio(1).toFixed(2)} (${us(1)})  B/A ${(ratio(1) / ratio(0)).toFixed(3)}`)
})
rmSync(dir, { recursive: true, force: true })
