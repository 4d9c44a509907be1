#!/usr/bin/env node
// CPU profile of one workload on one system, for explaining a gap:
//   node bench/profile.mjs <workload> [--system ours] [--ms 3000] [--top 30]
// Runs the workload repeatedly for --ms in a child `node --cpu-prof` and
// prints the functions with the most self time (the .cpuprofile file stays in
// bench/.build/prof/ for Chrome DevTools or speedscope).
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
const id = argv[0]
if (!id) {
  console.error('usage: node bench/profile.mjs <workload> [--system ours|native|quickjs|sval|jsinterp] [--ms 3000] [--top 30]')
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
const r = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, join(benchDir, 'lib', 'profile-child.mjs'), specPath], { stdio: 'inherit' })
if (r.status !== 0) process.exit(r.status ?? 1)

const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
const prof = JSON.parse(readFileSync(join(dir, file), 'utf8'))
// Self time per node = samples hitting it × the mean sampling interval.
const dt = (prof.endTime - prof.startTime) / prof.samples.length / 1000
const hits = new Map()
for (const s of prof.samples) hits.set(s, (hits.get(s) ?? 0) + 1)
// Lines of our unminified bundle map back to sources via esbuild's
// `// src/...` comments that open each module.
const srcOf = (() => {
  if (!spec.oursBundle) return () => undefined
  const marks = []
  readFileSync(spec.oursBundle, 'utf8').split('\n').forEach((l, i) => {
    const m = l.match(/^\/\/ (src\/\S+\.ts)$/)
    if (m) marks.push([i + 1, m[1]])
  })
  return (line) => marks.findLast(([at]) => at <= line)?.[1]
})()
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
