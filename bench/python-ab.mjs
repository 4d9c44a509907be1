// One-process A/B of two revisions of src/ on the Python blocks of bench/python.mjs:
//   node bench/python-ab.mjs <rev-before> <rev-after> [rounds] [ids] [--cpu]   (ids: int-loop,classes,...; rev `.`: the working tree)
// Both revisions are extracted with `git archive`, bundled with esbuild (src/python/index.ts) and
// loaded into ONE process; each round runs one block of each, alternating which goes first, so
// machine noise hits both alike. Prints per-block medians and their ratio (after / before), and the
// geometric mean. The two results must be the same text.
import { rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleRevision, scratchDir } from './lib/revision.mjs'
import { PYTHON_BLOCKS } from './python.mjs'

// --cpu: time each run by the process's CPU time instead of the wall clock (steadier on a loaded machine).
const cpu = process.argv.includes('--cpu')
const [revA, revB, rounds = '15', ids] = process.argv.slice(2).filter((a) => a !== '--cpu')
if (!revA || !revB) { console.error('usage: node bench/python-ab.mjs <rev-before> <rev-after> [rounds] [ids]'); process.exit(2) }
const root = resolve(import.meta.dirname, '..')
const dir = scratchDir('ajs-pyab-')
// `.`: the working tree as it is (uncommitted edits included). Dependencies bundled in, as before.
const load = async (rev, name) => import(pathToFileURL(await bundleRevision(rev, dir, name, 'python/index.ts', { packages: 'bundle', target: 'node20', nodePaths: [join(root, 'node_modules')] })).href)
const A = await load(revA, 'a'), B = await load(revB, 'b')
const blocks = PYTHON_BLOCKS.filter((b) => !ids || ids.split(',').includes(b.id))
const runner = (m, b) => {
  const { ast } = m.transpilePython(b.body, { params: ['initial', ...Object.keys(b.input)], jsonText: true })
  const vm = m.createPythonVM()
  return async () => {
    const t0 = performance.now(), c0 = process.cpuUsage()
    const r = await vm.run(ast, { initial: {}, ...b.input }, { fuel: 1e9, timeoutMs: 120_000 })
    if (r.error) throw new Error(`${b.id}: ${r.error.code} ${r.error.message}`)
    const c = process.cpuUsage(c0)
    return [cpu ? (c.user + c.system) / 1000 : performance.now() - t0, r.result]
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ratios = []
const minRatios = []
for (const b of blocks) {
  const ra = runner(A, b), rb = runner(B, b)
  const [, x] = await ra(), [, y] = await rb()
  if (x !== y) console.log(`  ${b.id}: RESULTS DIFFER`)
  const ta = [], tb = []
  for (let i = 0; i < Number(rounds); i++) {
    if (i % 2) { ta.push((await ra())[0]); tb.push((await rb())[0]) } else { tb.push((await rb())[0]); ta.push((await ra())[0]) }
  }
  const r = median(tb) / median(ta)
  // The ratio of the fastest runs: what a loaded machine disturbs least.
  const rmin = Math.min(...tb) / Math.min(...ta)
  ratios.push(r)
  minRatios.push(rmin)
  console.log(`  ${b.id.padEnd(12)} before ${median(ta).toFixed(2).padStart(8)} ms   after ${median(tb).toFixed(2).padStart(8)} ms   ×${r.toFixed(3)}   (fastest: ×${rmin.toFixed(3)})`)
}
const geo = (rs) => Math.exp(rs.reduce((s, r) => s + Math.log(r), 0) / rs.length).toFixed(3)
console.log(`  geometric mean after/before ×${geo(ratios)}   (fastest runs: ×${geo(minRatios)})`)
rmSync(dir, { recursive: true, force: true })
