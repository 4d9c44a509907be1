#!/usr/bin/env node
// How fast can the VM build an object whose keys it only knows at run time (an object literal's
// closure, the args copy)? node bench/object-build.mjs
// Six literal shapes built by shared closures, as the compiled programs share them: keyed stores
// into {} (what the VM does), a spread of a per-literal template then keyed stores, and
// Object.assign of a template then keyed stores. Prints ns per object, three rounds each.
function makers(keys) {
  const n = keys.length
  const template = {}
  for (const k of keys) template[k] = undefined
  return {
    'keyed stores into {}': (vals) => { const o = {}; for (let i = 0; i < n; i++) o[keys[i]] = vals[i]; return o },
    '{ ...template } then stores': (vals) => { const o = { ...template }; for (let i = 0; i < n; i++) o[keys[i]] = vals[i]; return o },
    'Object.assign({}, template) then stores': (vals) => { const o = Object.assign({}, template); for (let i = 0; i < n; i++) o[keys[i]] = vals[i]; return o },
  }
}
const shapes = [
  ['greeting', 'picked', 'cheapCount', 'hotel', 'remaining', 'warn', 'note', 'tags', 'limit', 'echo'],
  ['url', 'query', 'limit'], ['band', 'nights', 'total'], ['x', 'y'], ['name', 'age', 'email', 'id'], ['a', 'b', 'c', 'd', 'e', 'f'],
]
const built = shapes.map(makers)
const values = shapes.map((s) => s.map((k, i) => (i % 2 ? k : i)))
const N = 300_000
let sink
for (let round = 0; round < 3; round++) {
  for (const way of Object.keys(built[0])) {
    const t0 = performance.now()
    for (let r = 0; r < N; r++) for (let j = 0; j < built.length; j++) sink = built[j][way](values[j])
    console.log(`${way.padEnd(40)} ${(((performance.now() - t0) / N / built.length) * 1e6).toFixed(0).padStart(4)} ns per object`)
  }
}
if (!sink) throw new Error('unreachable')
