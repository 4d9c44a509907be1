// V8 heap allocated by ONE run of a workload, in a fresh process started with
// --expose-gc and a young generation big enough (--min/max-semi-space-size)
// that no GC happens during the run. Then heapUsed(after) - heapUsed(before),
// taken right after a full gc(), is exactly what the run allocated on the V8
// heap (garbage included). A PerformanceObserver on 'gc' entries proves no
// collection happened inside the window; if one did, the sample is flagged as
// a lower bound. argv = <system> <spec.json>
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { PerformanceObserver } from 'node:perf_hooks'

const [system, specPath] = process.argv.slice(2)
const spec = JSON.parse(readFileSync(specPath, 'utf8'))
const w = { id: spec.id, source: spec.source, entry: spec.entry, args: spec.args, es5Source: spec.es5Source }

const factories = {
  native: async () => (await import('./systems/native.mjs')).createNative(),
  ours: async () => {
    const mod = await import(pathToFileURL(spec.oursBundle).href)
    return (await import('./systems/ours.mjs')).createOurs(mod, 'bench')
  },
  sval: async () => (await import('./systems/sval.mjs')).createSval(),
  jsinterp: async () => (await import('./systems/jsinterp.mjs')).createJsInterpreter(),
}

const gcTimes = []
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcTimes.push(e.startTime)
}).observe({ entryTypes: ['gc'] })

process.on('uncaughtException', (e) => {
  process.stdout.write(JSON.stringify({ error: String(e?.message ?? e).split('\n')[0] }) + '\n')
  process.exit(1)
})
const runner = await (await factories[system]()).prepare(w)
const noop = { isAsync: runner.isAsync, run: runner.isAsync ? async () => undefined : () => undefined }
for (let i = 0; i < spec.warmup; i++) await runner.run()

let keep
async function once(r) {
  gc()
  gc()
  const t0 = performance.now()
  const h0 = process.memoryUsage().heapUsed
  keep = r.isAsync ? await r.run() : r.run()
  const h1 = process.memoryUsage().heapUsed
  const t1 = performance.now()
  return { bytes: h1 - h0, t0, t1 }
}
const samples = []
for (let i = 0; i < spec.samples; i++) {
  const base = await once(noop) // what the measurement itself allocates
  const s = await once(runner)
  samples.push({ ...s, base: base.bytes })
}
await new Promise((r) => setTimeout(r, 20)) // let the gc entries arrive
const out = samples.map((s) => ({
  bytes: s.bytes - s.base,
  gcInside: gcTimes.some((t) => t >= s.t0 && t <= s.t1),
}))
process.stdout.write(JSON.stringify({ samples: out, result: keep }) + '\n')
