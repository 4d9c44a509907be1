#!/usr/bin/env node
// Abort latency of pure loops (issue 11): how long after a host timer aborts
// the run's AbortSignal does `while (true) {}` (fuel 1e12) end as ABORTED?
//
//   node bench/abort-latency.mjs                 # 20 runs, abort 30..60 ms after the start
//   node bench/abort-latency.mjs --runs 50 --interrupt
//   node bench/abort-latency.mjs --in-helper     # the loop in a helper the entry calls
//
// Two figures per run, both in the same process as the run (the seed's example):
// - due → result: from the moment the abort timer was due to fire until vm.run
//   resolved. This is what a user waits: the timer itself can only fire when
//   the run lets the event loop turn (the time slicing).
// - abort() → result: from the timer callback calling controller.abort().
// With --interrupt, also the `interrupt` option from another thread: the run
// executes in a worker thread and the main thread sets the flag.
// Runs on Node: src/ is bundled with esbuild into bench/.build/ first.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { buildDir, repoDir } from './lib/paths.mjs'

const argv = process.argv.slice(2)
const runsAt = argv.indexOf('--runs')
const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : 20
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a positive whole number')
const withInterrupt = argv.includes('--interrupt')

const { build } = await import('esbuild')
mkdirSync(buildDir, { recursive: true })
const bundle = join(buildDir, 'abort-latency-ajs.mjs')
await build({ entryPoints: [join(repoDir, 'src', 'index.ts')], bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'silent', outfile: bundle })
const { AgentVM, transpile } = await import(pathToFileURL(bundle).href)

// --in-helper: the loop runs in a helper the entry calls (its pausing variant), not in the entry itself.
const SOURCE = argv.includes('--in-helper')
  ? 'function spin() { let i = 0; while (true) { i = i + 1 } }\nfunction main() { spin(); return 1 }'
  : 'function spin() { let i = 0; while (true) { i = i + 1 } }'
const ast = transpile(SOURCE).ast
const vm = new AgentVM()

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
  return { median, worst: s[s.length - 1] }
}
const ms = (x) => `${x.toFixed(2)} ms`

const due = []
const fromAbort = []
for (let i = 0; i < runs; i++) {
  const controller = new AbortController()
  const delay = 30 + ((i * 7) % 31)
  const start = performance.now()
  let abortedAt = 0
  setTimeout(() => { abortedAt = performance.now(); controller.abort() }, delay)
  const r = await vm.run(ast, {}, { fuel: 1e12, signal: controller.signal })
  const end = performance.now()
  if (r.error?.code !== 'ABORTED') throw new Error(`run ${i}: expected ABORTED, got ${JSON.stringify(r.error ?? r.result)}`)
  due.push(end - (start + delay))
  fromAbort.push(end - abortedAt)
}

console.log(`abort latency over ${runs} aborted pure loops (while (true)${argv.includes("--in-helper") ? " in a helper" : ""}, fuel 1e12), Node ${process.version}`)
const d = stats(due), a = stats(fromAbort)
console.log(`  timer due → ABORTED result:   median ${ms(d.median)}, worst ${ms(d.worst)}`)
console.log(`  abort() call → ABORTED result: median ${ms(a.median)}, worst ${ms(a.worst)}`)

if (withInterrupt) {
  // The worker runs the same loop; the main thread sets the flag and times the answer.
  const workerFile = join(buildDir, 'abort-latency-worker.mjs')
  writeFileSync(workerFile, `
import { parentPort, workerData } from 'node:worker_threads'
const { AgentVM, transpile } = await import(${JSON.stringify(pathToFileURL(bundle).href)})
const vm = new AgentVM()
const ast = transpile(${JSON.stringify(SOURCE)}).ast
parentPort.on('message', async (flag) => {
  parentPort.postMessage({ started: true })
  const r = await vm.run(ast, {}, { fuel: 1e12, interrupt: flag })
  parentPort.postMessage({ code: r.error?.code })
})
`)
  const worker = new Worker(workerFile)
  const lat = []
  for (let i = 0; i < runs; i++) {
    const flag = new Int32Array(new SharedArrayBuffer(4))
    const done = new Promise((resolve) => {
      const onMessage = (m) => {
        if (m.started) {
          setTimeout(() => { const t = performance.now(); Atomics.store(flag, 0, 1); resolve(t) }, 20)
          return
        }
      }
      worker.on('message', onMessage)
    })
    const ended = new Promise((resolve) => {
      const onEnd = (m) => { if (m.code !== undefined) { worker.off('message', onEnd); resolve({ t: performance.now(), code: m.code }) } }
      worker.on('message', onEnd)
    })
    worker.postMessage(flag)
    const setAt = await done
    const { t, code } = await ended
    worker.removeAllListeners('message')
    if (code !== 'ABORTED') throw new Error(`worker run ${i}: expected ABORTED, got ${code}`)
    lat.push(t - setAt)
  }
  await worker.terminate()
  const w = stats(lat)
  console.log(`  interrupt flag set (main thread) → ABORTED (worker): median ${ms(w.median)}, worst ${ms(w.worst)}`)
}
