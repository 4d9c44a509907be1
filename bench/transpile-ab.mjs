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
import { rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { scratchDir } from './lib/revision.mjs'
import { bundleTranspiler } from './transpile-bundle.mjs'
import { cpuNow, measureSmall, SMALL_NAMES, smallSources } from './lib/transpile-small.mjs'

const root = resolve(import.meta.dirname, '..')

if (process.argv[2] === '--child') {
  const { parse } = await import('acorn')
  const { generateLargeSource } = await import('./workloads/gen-large.mjs')
  const { transpile } = await import(pathToFileURL(process.argv[3]).href)
  const now = process.argv[5] === 'cpu' ? cpuNow : () => performance.now()
  const out = measureSmall(parse, transpile, smallSources(join(root, 'bench/workloads'), generateLargeSource), { rounds: Number(process.argv[4]), now, settle: process.argv[6] === 'settle' })
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
const names = SMALL_NAMES
console.log(`transpile ÷ acorn.parse, median over ${processes} processes per revision (min of ${rounds} rounds each${useCpu ? ', CPU time' : ''}${settle ? ', each batch after one of its own' : ''})`)
names.forEach((name, s) => {
  const ratio = (i) => median(runs[i].map((r) => r[s].transpile / r[s].acorn))
  const us = (i) => `${(median(runs[i].map((r) => r[s].transpile)) * 1000).toFixed(1)} µs`
  console.log(`${name.padEnd(14)} ${String(runs[0][0][s].lines).padStart(5)} lines  ${revA}: ×${ratio(0).toFixed(2)} (${us(0)})  ${revB}: ×${ratio(1).toFixed(2)} (${us(1)})  B/A ${(ratio(1) / ratio(0)).toFixed(3)}`)
})
rmSync(dir, { recursive: true, force: true })
