// Heap allocated per run, per workload, for one or more revisions of src/:
//   node --expose-gc --min-semi-space-size=256 --max-semi-space-size=256 bench/alloc.mjs <rev> [<rev> ...]
// (AB_IDS=id,id to choose workloads.) Each revision's src/ is taken with `git archive` and bundled
// with esbuild, as bench/ab.mjs does; each workload is warmed (300 runs), then the heap grown by 100
// more runs, with a young generation large enough that no scavenge runs in between, is divided by
// 100. Unlike timings this barely moves with the machine's load: a change that stops an allocation
// in a hot path (a boxed number per fuel charge, a closure context per call) shows here plainly.
import { rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleRevision, scratchDir } from './lib/revision.mjs'

const revs = process.argv.slice(2)
if (revs.length === 0 || typeof globalThis.gc !== 'function') {
  console.error('usage: node --expose-gc --min-semi-space-size=256 --max-semi-space-size=256 bench/alloc.mjs <rev> [<rev> ...]')
  process.exit(2)
}
const root = resolve(import.meta.dirname, '..')
const dir = scratchDir('ajs-alloc-')
const workloadsDir = process.env.AJS_BENCH_WORKLOADS ?? resolve(root, 'bench/workloads')
const { workloads } = await import(pathToFileURL(join(workloadsDir, 'index.mjs')).href)
const ids = process.env.AB_IDS?.split(',')
try {
  for (const [k, rev] of revs.entries()) {
    const M = await import(pathToFileURL(await bundleRevision(rev, dir, `r${k}`, 'index.ts')).href)
    const row = []
    for (const w of workloads.filter((x) => !ids || ids.includes(x.id))) {
      const vm = new M.AgentVM()
      const { ast } = M.transpile(w.source)
      for (let i = 0; i < 300; i++) await vm.run(ast, w.args, { fuel: 1e9 })
      globalThis.gc()
      const before = process.memoryUsage().heapUsed
      for (let i = 0; i < 100; i++) await vm.run(ast, w.args, { fuel: 1e9 })
      row.push(`${w.id} ${((process.memoryUsage().heapUsed - before) / 100 / 1024).toFixed(1)} KB`)
    }
    console.log(`${rev}: ${row.join(', ')}`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
