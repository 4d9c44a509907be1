#!/usr/bin/env node
// CPU profile of one workload on one system, for explaining a gap:
//   node bench/profile.mjs <workload> [--system ours] [--ms 3000] [--top 30] [--perf]
// Runs the workload repeatedly for --ms in a child `node --cpu-prof` and
// prints the functions with the most self time (the .cpuprofile file stays in
// bench/.build/prof/ for Chrome DevTools or speedscope). With --perf the child
// runs under Linux `perf record` instead (node --perf-basic-prof): V8's builtins,
// ICs, runtime and GC get their own names there, where the CPU profiler adds
// them to the JS function that called them.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { benchDir, buildDir, workloadsIndex } from './lib/paths.mjs'

const argv = process.argv.slice(2)
const flag = (name, dflt) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv.splice(i, 2)[1] : dflt
}
const system = flag('system', 'ours')
const ms = Number(flag('ms', 3000))
const top = Number(flag('top', 30))
const usePerf = argv.includes('--perf') ? (argv.splice(argv.indexOf('--perf'), 1), true) : false
const id = argv[0]
if (!id) {
  console.error('usage: node bench/profile.mjs <workload> [--system ours|native|quickjs|sval|jsinterp] [--ms 3000] [--top 30] [--perf]')
  process.exit(1)
}

const { workloads } = await import(pathToFileURL(workloadsIndex).href)
const w = workloads.find((x) => x.id === id)
if (!w) throw new Error(`no workload ${id} (have ${workloads.map((x) => x.id).join(', ')})`)
const spec = { id: w.id, source: w.source, entry: w.entry, args: w.args, ms, system }
if (system === 'ours') {
  const { buildOurs } = await import('./lib/build.mjs')
  const ours = await buildOurs()
  if (!ours.ok) throw new Error(`ours unavailable: ${ours.reason}`)
  spec.oursBundle = ours.bundle
}
const dir = join(buildDir, 'prof')
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
const specPath = join(buildDir, 'profile-spec.json')
writeFileSync(specPath, JSON.stringify(spec))
const child = [join(benchDir, 'lib', 'profile-child.mjs'), specPath]
if (usePerf) {
  const data = join(dir, 'perf.data')
  const r = spawnSync('perf', ['record', '-F', '4999', '-e', 'cpu-clock', '-o', data, process.execPath, '--perf-basic-prof', ...child], { stdio: 'inherit' })
  if (r.error || r.status !== 0) throw new Error(`perf record failed (${r.error?.message ?? `exit ${r.status}`}); it needs Linux perf and kernel.perf_event_paranoid <= 2`)
  const report = spawnSync('perf', ['report', '-i', data, '--no-children', '--sort', 'symbol', '-g', 'none', '--stdio'], { encoding: 'utf8', maxBuffer: 64 << 20 })
  const rows = report.stdout.split('\n').map((l) => l.replace(/(\s+-)+\s*$/, '').match(/^\s*([\d.]+)%\s+\[\.\]\s+(.*)$/)).filter(Boolean)
  console.log(`\n${system} on ${id} under perf (cpu-clock samples; JS frames marked *: optimized): top ${top} by self time (${data})`)
  const srcOfLine = sourceMapper()
  for (const [, pct, sym] of rows.slice(0, top)) {
    const m = sym.match(/\.build\/ajs\.mjs:(\d+)/)
    const src = m ? srcOfLine(Number(m[1])) : undefined
    console.log(`${Number(pct).toFixed(1).padStart(6)}%  ${sym.replace(/file:\/\/\S*\/(bench|node_modules)\//, '$1/')}${src ? ` (${src})` : ''}`)
  }
  process.exit(0)
}
const r = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...child], { stdio: 'inherit' })
if (r.status !== 0) process.exit(r.status ?? 1)

const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
const prof = JSON.parse(readFileSync(join(dir, file), 'utf8'))
// Self time per node = samples hitting it × the mean sampling interval.
const dt = (prof.endTime - prof.startTime) / prof.samples.length / 1000
const hits = new Map()
for (const s of prof.samples) hits.set(s, (hits.get(s) ?? 0) + 1)
// Lines of our unminified bundle map back to sources via esbuild's
// `// src/...` comments that open each module.
const srcOf = sourceMapper()
const byFn = new Map()
let total = 0
for (const node of prof.nodes) {
  const n = hits.get(node.id) ?? 0
  if (!n) continue
  const cf = node.callFrame
  let where = cf.url ? `${cf.url.replace(/^.*\/(bench|node_modules)\//, '$1/')}:${cf.lineNumber + 1}` : ''
  const src = cf.url.endsWith('.build/ajs.mjs') ? srcOf(cf.lineNumber + 1) : undefined
  if (src) where += ` (${src})`
  const key = `${cf.functionName || '(anonymous)'} ${where}`.trim()
  byFn.set(key, (byFn.get(key) ?? 0) + n)
  total += n
}
console.log(`\n${system} on ${id}: ${total} samples, ~${(total * dt).toFixed(0)} ms; top ${top} by self time (profile: ${join(dir, file)})`)
for (const [key, n] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${((100 * n) / total).toFixed(1).padStart(6)}%  ${key}`)
}

/** Line of our unminified bundle -> the source file it came from (undefined for other systems). */
function sourceMapper() {
  if (!spec.oursBundle) return () => undefined
  const marks = []
  readFileSync(spec.oursBundle, 'utf8').split('\n').forEach((l, i) => {
    const m = l.match(/^\/\/ (src\/\S+\.ts)$/)
    if (m) marks.push([i + 1, m[1]])
  })
  return (line) => marks.findLast(([at]) => at <= line)?.[1]
}
