// The profiled process of bench/profile.mjs: prepare one workload on one
// system, then run it back to back for spec.ms milliseconds.
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const w = { id: spec.id, source: spec.source, entry: spec.entry, args: spec.args }
const make = {
  native: async () => (await import('./systems/native.mjs')).createNative(),
  ours: async () => (await import('./systems/ours.mjs')).createOurs(await import(pathToFileURL(spec.oursBundle).href), 'profile'),
  quickjs: async () => (await import('./systems/quickjs.mjs')).createQuickJS(),
  sval: async () => (await import('./systems/sval.mjs')).createSval(),
  jsinterp: async () => (await import('./systems/jsinterp.mjs')).createJsInterpreter(),
}
const runner = await (await make[spec.system]()).prepare(w)
const end = performance.now() + spec.ms
let runs = 0
while (performance.now() < end) {
  await runner.run()
  runs++
}
console.log(`${runs} runs in ${spec.ms} ms: ${((spec.ms * 1000) / runs).toFixed(1)} µs per run`)
