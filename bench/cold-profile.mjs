// Where a cold start of `ajs-lang/vm` goes, from CPU profiles of fresh processes:
//   node bench/cold-profile.mjs [rev|.] [spawns] [--dist] [--top N]   (default '.', 9 spawns)
// Each child (`node --cpu-prof --cpu-prof-interval 50`) imports the VM and runs agent-typical from
// its AST once, as bench/cold-ab.mjs's children do, and notes the clock at the import's start, its
// end and the first result; the samples of each window are summed by category and by function.
// The VM is bundled minified but with its names kept (readable frames; parse cost as minified), or
// with --dist the revision's dist/vm.js. A profiler at 50 µs inflates every figure ~2x: read shares.
//
// Categories: "V8 compile of the files" is Node's compileSourceTextModule (V8 parses each file:
// top-level code in full, every function body pre-parsed); "ours" is time in the VM's own frames,
// which includes V8 compiling each function on its first call (lazy compilation has no frame of
// its own); "Node loader" is node:internal frames (resolve, read, link); "GC" the collector.
//
// Then the same bundle as a classic script through node:vm, with and without a V8 code cache
// (made by a process that ran agent-typical once): the difference is what compiling costs.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleRevision, coldDir, root } from './lib/cold-bundle.mjs'

const argv = process.argv.slice(2)
const dist = argv.includes('--dist')
const topAt = argv.indexOf('--top')
const top = topAt >= 0 ? Number(argv[topAt + 1]) : 12
const [rev = '.', spawnsArg = '9'] = argv.filter((a, i) => !a.startsWith('--') && (topAt < 0 || i !== topAt + 1))
const spawns = Number(spawnsArg)
const dir = coldDir()
const b = await bundleRevision(rev, 'rev', dir, { dist, names: true })
const { workloads } = await import(pathToFileURL(join(root, 'bench/workloads/index.mjs')).href)
const w = workloads.find((x) => x.id === 'agent-typical')
const { transpile } = await import(pathToFileURL(b.full).href)
const astPath = join(dir, 'ast.json')
writeFileSync(astPath, JSON.stringify(transpile(w.source, { filename: 'agent-typical.ajs' }).ast))
const argsJson = JSON.stringify(w.args)

const CHILD = `
const [vmPath, astPath, argsJson, marksPath] = process.argv.slice(1)
const { readFileSync, writeFileSync } = await import('node:fs')
const astText = readFileSync(astPath, 'utf8')
const us = () => Number(process.hrtime.bigint() / 1000n)
const m0 = us()
const { AgentVM } = await import(vmPath)
const m1 = us()
const r = await new AgentVM().run(JSON.parse(astText), JSON.parse(argsJson), { fuel: 1e9 })
const m2 = us()
if (r.error) throw new Error(r.error.message)
writeFileSync(marksPath, JSON.stringify([m0, m1, m2]))
`
const profDir = join(dir, 'profiles')
mkdirSync(profDir)
for (let i = 0; i < spawns; i++) {
  const marks = join(dir, `marks-${i}.json`)
  const p = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-interval', '50', '--cpu-prof-dir', join(profDir, String(i)), '--input-type=module', '-e', CHILD, pathToFileURL(b.vm).href, astPath, argsJson, marks], { encoding: 'utf8' })
  if (p.status !== 0) throw new Error(p.stderr)
}

const ours = (url) => url.startsWith('file:') && (url.endsWith(b.vm.split('/').pop()) || url.includes('/dist/'))
const category = (cf) => {
  if (cf.functionName === 'compileSourceTextModule') return 'V8 compile of the files'
  if (cf.functionName === '(garbage collector)') return 'GC'
  if (ours(cf.url)) return 'ours (run + lazy compile)'
  if (cf.functionName === '(idle)') return 'idle (waiting for I/O)'
  if (cf.functionName === '(program)') return 'V8, unattributed'
  if (cf.url.startsWith('node:') || cf.url === '') return 'Node loader and runtime'
  return 'other'
}
const phases = { import: { cat: new Map(), fn: new Map(), total: 0 }, 'first run': { cat: new Map(), fn: new Map(), total: 0 } }
const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v)
for (let i = 0; i < spawns; i++) {
  const [m0, m1, m2] = JSON.parse(readFileSync(join(dir, `marks-${i}.json`), 'utf8'))
  const sub = join(profDir, String(i))
  const prof = JSON.parse(readFileSync(join(sub, readdirSync(sub)[0]), 'utf8'))
  const byId = new Map(prof.nodes.map((n) => [n.id, n]))
  let t = prof.startTime
  prof.samples.forEach((id, k) => {
    t += prof.timeDeltas[k]
    const dt = (prof.timeDeltas[k + 1] ?? 0) / 1000 / spawns
    const ph = t >= m0 && t < m1 ? phases.import : t >= m1 && t < m2 ? phases['first run'] : null
    if (!ph) return
    const cf = byId.get(id).callFrame
    ph.total += dt
    add(ph.cat, category(cf), dt)
    if (ours(cf.url)) add(ph.fn, `${cf.functionName || '(anonymous)'} @${cf.columnNumber}`, dt)
  })
}
const pct = (v, total) => `${v.toFixed(2).padStart(6)} ms ${((v / total) * 100).toFixed(0).padStart(3)}%`
console.log(`agent-typical, ${dist ? 'dist/vm.js' : 'a bundle of src/vm/index.ts (minified, names kept)'} at ${rev}, ${spawns} profiled fresh processes, mean per process (profiler on: ~2x)`)
for (const [name, ph] of Object.entries(phases)) {
  console.log(`\n${name}: ${ph.total.toFixed(2)} ms`)
  for (const [k, v] of [...ph.cat].sort((x, y) => y[1] - x[1])) if (v >= 0.05) console.log(`  ${pct(v, ph.total)}  ${k}`)
  console.log(`  top functions of ours (self time):`)
  for (const [k, v] of [...ph.fn].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`    ${pct(v, ph.total)}  ${k}`)
}

// With and without a V8 code cache: the bundle as a classic script (its exports turned into a return).
if (!dist) {
  const text = readFileSync(b.vm, 'utf8')
  const exported = Object.fromEntries([...text.match(/export\s*\{([^}]*)\};?\s*$/)[1].matchAll(/([\w$]+)(?:\s+as\s+([\w$]+))?/g)].map((m) => [m[2] ?? m[1], m[1]]))
  const script = join(dir, 'vm-script.js')
  writeFileSync(script, `(function(){${text.replace(/export\s*\{[^}]*\};?\s*$/, '')}\nreturn ${exported.AgentVM}})()`)
  const SCRIPT_CHILD = `
const [scriptPath, astPath, argsJson, mode] = process.argv.slice(1)
const { readFileSync, writeFileSync, existsSync } = await import('node:fs')
const vm = await import('node:vm')
const code = readFileSync(scriptPath, 'utf8'), astText = readFileSync(astPath, 'utf8')
const cachedData = mode === 'use' ? readFileSync(scriptPath + '.cache') : undefined
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const c0 = cpu()
const s = new vm.Script(code, { filename: scriptPath, cachedData })
const AgentVM = s.runInThisContext()
const c1 = cpu()
const r = await new AgentVM().run(JSON.parse(astText), JSON.parse(argsJson), { fuel: 1e9 })
const c2 = cpu()
if (r.error || s.cachedDataRejected) throw new Error(r.error?.message ?? 'code cache rejected')
if (mode === 'make') writeFileSync(scriptPath + '.cache', s.createCachedData())
console.log(JSON.stringify({ importCpuMs: c1 - c0, firstResultCpuMs: c2 - c0 }))
`
  const run = (mode) => {
    const p = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT_CHILD, script, astPath, argsJson, mode], { encoding: 'utf8' })
    if (p.status !== 0) throw new Error(p.stderr)
    return JSON.parse(p.stdout)
  }
  run('make')
  const samples = { none: [], use: [] }
  for (let i = 0; i < Math.max(spawns, 9); i++) for (const mode of i % 2 ? ['use', 'none'] : ['none', 'use']) samples[mode].push(run(mode))
  const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1]
  console.log(`\nthe same bundle as a classic script (node:vm), no profiler, ${samples.none.length} processes each, CPU medians:`)
  for (const [mode, label] of [['none', 'compiled from source'], ['use', 'from a V8 code cache']]) {
    const s = samples[mode]
    console.log(`  ${label.padEnd(21)} import ${median(s.map((x) => x.importCpuMs)).toFixed(2)} ms, import → first result ${median(s.map((x) => x.firstResultCpuMs)).toFixed(2)} ms`)
  }
}
