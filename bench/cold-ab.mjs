// Cold start and heap after import of `ajs-lang/vm`, two revisions side by side:
//   node bench/cold-ab.mjs <rev-before> <rev-after|.> [spawns] [--dist] [--no-gc]   (default 21 spawns each)
// Each revision's src/vm/index.ts is bundled minified with its dependencies inlined (as the bench's
// cold-start section does); with --dist, each revision's own `scripts/build.mjs` builds its dist/
// and the children import dist/vm.js, as the package's users do. Then fresh `node --expose-gc` processes alternate
// between the two (interleaved, so machine noise hits both alike). Each child times, from before
// its first import: the import, then the first result of agent-typical from its compiled AST
// (what an agent host does), and reads the V8 heap after the import (gc() twice, heapUsed minus
// the same before the import). Prints the medians, wall clock and CPU time. With --no-gc the child
// does not collect before the import, as a real process would not: whether the first scavenge falls
// before the first result then depends on what the import allocates (the heap figures lose their baseline).
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleRevision, coldDir, root } from './lib/cold-bundle.mjs'

const useDist = process.argv.includes('--dist')
const preGc = !process.argv.includes('--no-gc')
const [revA, revB, spawnsArg = '21'] = process.argv.slice(2).filter((a) => !a.startsWith('--'))
if (!revA || !revB) { console.error('usage: node bench/cold-ab.mjs <rev-before> <rev-after|.> [spawns] [--dist] [--no-gc]'); process.exit(2) }
const dir = coldDir()
const bundle = (rev, name) => bundleRevision(rev, name, dir, { dist: useDist })

const CHILD = `
const [vmPath, astPath, argsJson] = process.argv.slice(1)
const { readFileSync } = await import('node:fs')
const astText = readFileSync(astPath, 'utf8')
${preGc ? 'gc(); gc()' : ''}
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const h0 = process.memoryUsage().heapUsed
const c0 = cpu()
const t0 = performance.now()
const { AgentVM } = await import(vmPath)
const t1 = performance.now()
const c1 = cpu()
const r = await new AgentVM().run(JSON.parse(astText), JSON.parse(argsJson), { fuel: 1e9 })
const t2 = performance.now()
const c2 = cpu()
gc(); gc()
const h1 = process.memoryUsage().heapUsed
if (r.error) throw new Error(r.error.message)
console.log(JSON.stringify({ importMs: t1 - t0, firstResultMs: t2 - t0, importCpuMs: c1 - c0, firstResultCpuMs: c2 - c0, heapAfterRunBytes: h1 - h0, result: r.result }))
`
const HEAP_CHILD = `
const [vmPath] = process.argv.slice(1)
gc(); gc()
const h0 = process.memoryUsage().heapUsed
const m = await import(vmPath)
gc(); gc()
console.log(JSON.stringify({ heapAfterImportBytes: process.memoryUsage().heapUsed - h0, keep: typeof m.AgentVM }))
`

const { workloads } = await import(pathToFileURL(join(root, 'bench/workloads/index.mjs')).href)
const w = workloads.find((x) => x.id === 'agent-typical')
const sides = []
for (const [label, rev] of [['before', revA], ['after', revB]]) {
  const b = await bundle(rev, label)
  const { transpile } = await import(pathToFileURL(b.full).href)
  const astPath = join(dir, `${label}-ast.json`)
  writeFileSync(astPath, JSON.stringify(transpile(w.source, { filename: 'agent-typical.ajs' }).ast))
  sides.push({ label, rev, url: pathToFileURL(b.vm).href, astPath, samples: [] })
}
const spawns = Number(spawnsArg)
const run = (args, script) => {
  const p = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script, ...args], { encoding: 'utf8' })
  if (p.status !== 0) throw new Error(p.stderr)
  return JSON.parse(p.stdout.trim().split('\n').pop())
}
for (let i = 0; i < spawns; i++) {
  for (const s of i % 2 === 0 ? sides : [...sides].reverse()) {
    s.samples.push({ ...run([s.url, s.astPath, JSON.stringify(w.args)], CHILD), ...run([s.url], HEAP_CHILD) })
  }
}
const median = (xs) => { const v = [...xs].sort((a, b) => a - b); return v[Math.floor(v.length / 2)] }
const sameResult = JSON.stringify(sides[0].samples[0].result) === JSON.stringify(sides[1].samples[0].result)
console.log(`agent-typical, ${useDist ? "each revision's dist/vm.js" : 'a minified bundle of src/vm/index.ts'}, ${spawns} fresh node processes per side (interleaved)${preGc ? '' : ', no gc() before the import'}, medians; same result: ${sameResult}`)
console.log('side    rev        import ms (cpu)  import→first result ms (cpu)  heap after import  heap after first run')
for (const s of sides) {
  const m = (k) => median(s.samples.map((x) => x[k]))
  const both = (wall, cpu) => `${m(wall).toFixed(2)} (${m(cpu).toFixed(2)})`
  console.log(`${s.label.padEnd(7)} ${s.rev.slice(0, 10).padEnd(10)} ${both('importMs', 'importCpuMs').padStart(15)}  ${both('firstResultMs', 'firstResultCpuMs').padStart(28)}  ${(m('heapAfterImportBytes') / 1e6).toFixed(3).padStart(14)} MB  ${(m('heapAfterRunBytes') / 1e6).toFixed(3).padStart(17)} MB`)
}
console.log('(wall clock; in brackets the process CPU time, user + system, which time spent descheduled on a loaded machine does not inflate)')
