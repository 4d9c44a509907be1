// Cold start and heap after import of `ajs-lang/vm`, two revisions side by side:
//   node bench/cold-ab.mjs <rev-before> <rev-after|.> [spawns] [--dist | --cached]   (default 21 spawns each)
// Each revision's src/vm/index.ts is bundled minified with its dependencies inlined (as the bench's
// cold-start section does); with --dist, each revision's own `scripts/build.mjs` builds its dist/
// and the children import dist/vm.js, as the package's users do; with --cached, "the import" is
// `ajs-lang/vm/cached`'s: each revision's src/host/code-cache.ts (bundled) runs the minified bundle
// from a V8 code cache in a folder of that side's, which one untimed child per side writes first, and
// every timed child must hit it (a revision without the loader is refused).
// Fresh `node` processes alternate between the two sides (interleaved, so machine noise hits both
// alike). A timed child starts its clock before its first import and reads the import, then the
// first result of agent-typical from its compiled AST (what an agent host does), wall clock and
// CPU time. It runs with no flags, as a host would: V8 flags such as --expose-gc make V8 refuse
// Node's own code cache of its internal modules, which adds ~4 ms to the first dynamic import.
// A separate `node --expose-gc` child per sample reads the V8 heap after the import and after the
// first run (gc() twice, heapUsed minus the same before the import). Prints the medians.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleRevision, coldDir, root } from './lib/cold-bundle.mjs'

const useDist = process.argv.includes('--dist')
const useCached = process.argv.includes('--cached')
if (useDist && useCached) { console.error('--cached runs the minified bundle of src/vm/index.ts; leave out --dist'); process.exit(2) }
const [revA, revB, spawnsArg = '21'] = process.argv.slice(2).filter((a) => !a.startsWith('--'))
if (!revA || !revB) { console.error('usage: node bench/cold-ab.mjs <rev-before> <rev-after|.> [spawns] [--dist | --cached]'); process.exit(2) }
const dir = coldDir()
const bundle = (rev, name) => bundleRevision(rev, name, dir, { dist: useDist, cached: useCached })

// How a child gets AgentVM: import the VM, or run it through the side's cached loader.
const LOAD = useCached
  ? `const [loaderUrl, vmFile, cacheDir] = process.argv.slice(2)
const load = async () => {
  const { runCachedScript } = await import(loaderUrl)
  return runCachedScript(vmFile, 'cold-ab', { cacheDir, onCodeCache: (e) => { if (!process.env.AJS_COLD_AB_WARM && e.state !== 'hit') throw new Error('code cache ' + e.state) } })
}`
  : `const [vmPath] = process.argv.slice(2)
const load = () => import(vmPath)`

const ARGS_AT = useCached ? 5 : 3
const CHILD = `
${LOAD}
const [astPath, argsJson] = process.argv.slice(${ARGS_AT})
const { readFileSync } = process.getBuiltinModule('node:fs')
const astText = readFileSync(astPath, 'utf8')
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const c0 = cpu()
const t0 = performance.now()
const { AgentVM } = await load()
const t1 = performance.now()
const c1 = cpu()
const r = await new AgentVM().run(JSON.parse(astText), JSON.parse(argsJson), { fuel: 1e9 })
const t2 = performance.now()
const c2 = cpu()
if (r.error) throw new Error(r.error.message)
console.log(JSON.stringify({ importMs: t1 - t0, firstResultMs: t2 - t0, importCpuMs: c1 - c0, firstResultCpuMs: c2 - c0, result: r.result }))
`
const HEAP_CHILD = `
${LOAD}
const [astPath, argsJson] = process.argv.slice(${ARGS_AT})
const { readFileSync } = process.getBuiltinModule('node:fs')
const astText = readFileSync(astPath, 'utf8')
gc(); gc()
const h0 = process.memoryUsage().heapUsed
const { AgentVM } = await load()
gc(); gc()
const h1 = process.memoryUsage().heapUsed
const r = await new AgentVM().run(JSON.parse(astText), JSON.parse(argsJson), { fuel: 1e9 })
gc(); gc()
if (r.error) throw new Error(r.error.message)
console.log(JSON.stringify({ heapAfterImportBytes: h1 - h0, heapAfterRunBytes: process.memoryUsage().heapUsed - h0 }))
`

const { workloads } = await import(pathToFileURL(join(root, 'bench/workloads/index.mjs')).href)
const w = workloads.find((x) => x.id === 'agent-typical')
const sides = []
for (const [label, rev] of [['before', revA], ['after', revB]]) {
  const b = await bundle(rev, label)
  const { transpile } = await import(pathToFileURL(b.full).href)
  const astPath = join(dir, `${label}-ast.json`)
  writeFileSync(astPath, JSON.stringify(transpile(w.source, { filename: 'agent-typical.ajs' }).ast))
  if (useCached && !b.loader) throw new Error(`${rev} has no src/host/code-cache.ts (ajs-lang/vm/cached)`)
  // V8 refuses a cache made under other flags: the timed children and the --expose-gc heap children keep one each.
  const loadArgs = (heap) => (useCached ? [pathToFileURL(b.loader).href, b.vm, join(dir, `${label}-code-cache${heap ? '-gc' : ''}`)] : [pathToFileURL(b.vm).href])
  sides.push({ label, rev, loadArgs, astPath, samples: [] })
}
const spawns = Number(spawnsArg)
// Children are files: the first dynamic import of an \`-e\` module costs several ms more, which no host pays.
const childFile = (name, text) => { const f = join(dir, name); writeFileSync(f, text); return f }
const files = { [CHILD]: childFile('cold-ab-child.mjs', CHILD), [HEAP_CHILD]: childFile('cold-ab-heap-child.mjs', HEAP_CHILD) }
const run = (flags, args, script, env = {}) => {
  const p = spawnSync(process.execPath, [...flags, files[script], ...args], { encoding: 'utf8', env: { ...process.env, ...env } })
  if (p.status !== 0) throw new Error(p.stderr)
  return JSON.parse(p.stdout.trim().split('\n').pop())
}
const timed = (s) => run([], [...s.loadArgs(false), s.astPath, JSON.stringify(w.args)], CHILD)
const heap = (s) => run(['--expose-gc'], [...s.loadArgs(true), s.astPath, JSON.stringify(w.args)], HEAP_CHILD)
// A code cache is written by a host's first process: one untimed child of each kind per side first.
if (useCached) {
  for (const s of sides) {
    run([], [...s.loadArgs(false), s.astPath, JSON.stringify(w.args)], CHILD, { AJS_COLD_AB_WARM: '1' })
    run(['--expose-gc'], [...s.loadArgs(true), s.astPath, JSON.stringify(w.args)], HEAP_CHILD, { AJS_COLD_AB_WARM: '1' })
  }
}
for (let i = 0; i < spawns; i++) {
  for (const s of i % 2 === 0 ? sides : [...sides].reverse()) s.samples.push({ ...timed(s), ...heap(s) })
}
const median = (xs) => { const v = [...xs].sort((a, b) => a - b); return v[Math.floor(v.length / 2)] }
const sameResult = JSON.stringify(sides[0].samples[0].result) === JSON.stringify(sides[1].samples[0].result)
console.log(`agent-typical, ${useDist ? "each revision's dist/vm.js" : 'a minified bundle of src/vm/index.ts'}${useCached ? " run by the revision's ajs-lang/vm/cached loader from its code cache" : ''}, ${spawns} fresh node processes per side (interleaved), medians; same result: ${sameResult}`)
console.log('side    rev        import ms (cpu)  import→first result ms (cpu)  heap after import  heap after first run')
for (const s of sides) {
  const m = (k) => median(s.samples.map((x) => x[k]))
  const both = (wall, cpu) => `${m(wall).toFixed(2)} (${m(cpu).toFixed(2)})`
  console.log(`${s.label.padEnd(7)} ${s.rev.slice(0, 10).padEnd(10)} ${both('importMs', 'importCpuMs').padStart(15)}  ${both('firstResultMs', 'firstResultCpuMs').padStart(28)}  ${(m('heapAfterImportBytes') / 1e6).toFixed(3).padStart(14)} MB  ${(m('heapAfterRunBytes') / 1e6).toFixed(3).padStart(17)} MB`)
}
console.log('(wall clock; in brackets the process CPU time, user + system, which time spent descheduled on a loaded machine does not inflate)')
