// One-process A/B of two revisions of src/ on the shared workloads:
//   node bench/ab.mjs <rev-before> <rev-after> [rounds] [--min] [--cpu]   (AB_IDS=id,id to choose workloads)
// Both revisions are extracted with `git archive`, bundled with esbuild and loaded into
// ONE process; each round runs a ~30 ms batch of each, alternating which goes first, so
// machine noise hits both alike. Prints per-workload medians (or minima) and the geomean ratio.
// --cpu: time each batch by the process's CPU time (process.cpuUsage) instead of the wall clock, so
// time the process spends descheduled on a loaded machine (others' test runs) does not count.
import { rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleRevision, scratchDir } from './lib/revision.mjs'

const args = process.argv.slice(2).filter((a) => a !== '--min' && a !== '--cpu')
const useMin = process.argv.includes('--min')
const useCpu = process.argv.includes('--cpu')
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const [revA, revB, rounds = '21'] = args
if (!revA || !revB) { console.error('usage: node bench/ab.mjs <rev-before> <rev-after> [rounds] [--min]'); process.exit(2) }
const root = resolve(import.meta.dirname, '..')
const dir = scratchDir('ajs-ab-')
const load = async (rev, name) => import(pathToFileURL(await bundleRevision(rev, dir, name, 'index.ts')).href)
const A = await load(revA, 'a'), B = await load(revB, 'b')
const workloadsDir = process.env.AJS_BENCH_WORKLOADS ?? resolve(root, 'bench/workloads')
const { workloads } = await import(pathToFileURL(join(workloadsDir, 'index.mjs')).href)
const ids = (process.env.AB_IDS ?? 'arith-loop,string-build,array-pipeline,records,rules,agent-typical').split(',')
const pick = (xs) => { if (useMin) return Math.min(...xs); const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] }
let logSum = 0, n = 0
for (const w of workloads.filter((x) => ids.includes(x.id))) {
  const prep = (M) => { const vm = new M.AgentVM(); const { ast } = M.transpile(w.source); return () => vm.run(ast, w.args, { fuel: 1e9 }) }
  const fa = prep(A), fb = prep(B)
  const batch = async (f) => {
    let k = 0
    const t0 = performance.now(), c0 = useCpu ? cpuMs() : 0
    while (performance.now() - t0 < 30) { const r = await f(); if (r.error) throw new Error(`${w.id}: ${r.error.code}`); k++ }
    return ((useCpu ? cpuMs() - c0 : performance.now() - t0)) / k
  }
  for (let i = 0; i < 3; i++) { await batch(fa); await batch(fb) }
  const ta = [], tb = []
  for (let r = 0; r < Number(rounds); r++) {
    if (r % 2) { tb.push(await batch(fb)); ta.push(await batch(fa)) } else { ta.push(await batch(fa)); tb.push(await batch(fb)) }
  }
  const a = pick(ta), b = pick(tb)
  console.log(`${w.id.padEnd(16)} ${revA}: ${(a * 1000).toFixed(1)} µs  ${revB}: ${(b * 1000).toFixed(1)} µs  ratio ${(b / a).toFixed(3)}`)
  logSum += Math.log(b / a); n++
}
console.log(`geomean ratio ${revB}/${revA}: ${Math.exp(logSum / n).toFixed(3)} (${useMin ? 'minima' : 'medians'} of ${rounds} rounds${useCpu ? ', CPU time' : ''})`)
rmSync(dir, { recursive: true, force: true })
