// A/B of the transpile growth exponent (time ∝ lines^k, the bench's "transpile growth exponent
// 3k → 12k lines", section 2) between two revisions of src/ (or `.` for the working tree):
//   node bench/transpile-growth-ab.mjs <rev-before> <rev-after|.> [repeats] [--sizes 3k,6k,12k,24k] [--wall] [--v8 '<flags>']
// (--v8: flags for the timed processes, e.g. '--max-semi-space-size=128 --min-semi-space-size=128':
// with a young generation that holds a whole transpile, how much of the time is the scavenger's)
// (a revision may also be a folder holding a src/ tree: a change measured before it is committed)
// As the bench does, every (revision, size) is timed in a fresh process (the garbage of one size
// would slow the next), on the generated large source of bench/lib/transpile.mjs's sizes (24k:
// twice 12k), with batches of acorn.parse (locations on) and of transpile alternating. Timed by the
// process's CPU time (GC threads included; time descheduled on a loaded machine not), or with
// --wall the wall clock. Each repeat runs every size of both revisions, the revisions in turn
// first; it prints each repeat's exponents side by side (acorn's, in the same processes, as the
// control for the machine's noise) and, at the end, the medians over the repeats.
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { SIZES } from './lib/transpile.mjs'
import { scratchDir } from './lib/revision.mjs'
import { bundleTranspiler } from './transpile-bundle.mjs'

const ALL_SIZES = [...SIZES, { label: '24k', helpers: 192, blocks: 2000 }]

if (process.argv[2] === '--child') {
  const [bundle, label, clock] = process.argv.slice(3)
  const { parse } = await import('acorn')
  const { generateLargeSource } = await import('./workloads/gen-large.mjs')
  const { transpile } = await import(pathToFileURL(bundle).href)
  const size = ALL_SIZES.find((s) => s.label === label)
  const source = generateLargeSource({ helpers: size.helpers, blocks: size.blocks })
  const now = clock === 'wall' ? () => performance.now() : () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
  const fns = [() => parse(source, { ecmaVersion: 'latest', sourceType: 'script', locations: true }), () => transpile(source, { filename: `large-${label}.ajs` })]
  for (const t0 = performance.now(); performance.now() - t0 < 300;) for (const fn of fns) fn()
  // Batches of about 60 ms, at least 2 calls (the GC of one call is paid partly in the next).
  const reps = fns.map((fn) => { const t = now(); fn(); fn(); return Math.max(2, Math.round(60 / Math.max((now() - t) / 2, 0.01))) })
  const times = [[], []]
  for (let r = 0; r < 9; r++) {
    for (const i of r % 2 ? [1, 0] : [0, 1]) {
      const t0 = now()
      for (let j = 0; j < reps[i]; j++) fns[i]()
      times[i].push((now() - t0) / reps[i])
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
  process.stdout.write(JSON.stringify({ lines: source.split('\n').length - 1, acorn: median(times[0]), transpile: median(times[1]) }))
  process.exit(0)
}

const args = process.argv.slice(2)
const flag = (name) => { const i = args.indexOf(name); return i === -1 ? undefined : args.splice(i, 2)[1] }
const wall = args.includes('--wall')
const labels = (flag('--sizes') ?? '3k,6k,12k,24k').split(',')
const v8Flags = (flag('--v8') ?? '').split(' ').filter(Boolean)
const [revA, revB, repeats = '3'] = args.filter((a) => a !== '--wall')
const sizes = labels.map((l) => ALL_SIZES.find((s) => s.label === l) ?? (() => { throw new Error(`unknown size ${l} (${ALL_SIZES.map((s) => s.label)})`) })())
if (!revA || !revB || sizes.length < 2) {
  console.error("usage: node bench/transpile-growth-ab.mjs <rev-before> <rev-after|.> [repeats] [--sizes 3k,6k,12k,24k] [--wall] [--v8 '<flags>']")
  process.exit(2)
}
const dir = scratchDir('ajs-tgrowth-')
const revs = [revA, revB]
const bundles = [await bundleTranspiler(revA, dir, 'a'), await bundleTranspiler(revB, dir, 'b')]
const child = (i, label) => JSON.parse(execFileSync(process.execPath, [...v8Flags, import.meta.filename, '--child', bundles[i], label, wall ? 'wall' : 'cpu'], { encoding: 'utf8' }))
const exponent = (rows, j, key) => Math.log(rows[j][key] / rows[0][key]) / Math.log(rows[j].lines / rows[0].lines)
const pairs = sizes.slice(1).map((s, k) => ({ name: `${sizes[0].label}→${s.label}`, j: k + 1 }))
const results = [[], []]
console.log(`transpile growth exponent, ${revA} vs ${revB}: fresh process per revision and size, median of 9 batches (${wall ? 'wall clock' : 'CPU time'}${v8Flags.length ? `, node ${v8Flags.join(' ')}` : ''})`)
for (let r = 0; r < Number(repeats); r++) {
  const rows = [[], []]
  for (const [k, size] of sizes.entries()) for (const i of (r + k) % 2 ? [1, 0] : [0, 1]) rows[i][k] = child(i, size.label)
  rows.forEach((x, i) => results[i].push(x))
  const line = pairs.map(({ name, j }) =>
    `${name}: ${exponent(rows[0], j, 'transpile').toFixed(3)} → ${exponent(rows[1], j, 'transpile').toFixed(3)} (acorn ${exponent(rows[0], j, 'acorn').toFixed(2)}/${exponent(rows[1], j, 'acorn').toFixed(2)})`)
  console.log(`repeat ${r + 1}  ${line.join('  ')}`)
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
console.log(`\nmedians over ${repeats} repeats`)
for (const [i, rev] of revs.entries()) {
  const ms = sizes.map((s, k) => `${s.label} ${median(results[i].map((rows) => rows[k].transpile)).toFixed(2)} ms (×${median(results[i].map((rows) => rows[k].transpile / rows[k].acorn)).toFixed(2)} acorn)`)
  const ex = pairs.map(({ name, j }) => `${name} ${median(results[i].map((rows) => exponent(rows, j, 'transpile'))).toFixed(3)} (acorn ${median(results[i].map((rows) => exponent(rows, j, 'acorn'))).toFixed(2)})`)
  console.log(`${rev.padEnd(10)} ${ms.join('  ')}\n${''.padEnd(10)} exponent ${ex.join('  ')}`)
}
rmSync(dir, { recursive: true, force: true })
