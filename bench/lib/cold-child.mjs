// One cold start, in a fresh `node` process: argv = <system> <spec.json>.
// The clock starts before the system's first import and stops at the first
// result of agent-typical. The workload text is read before the clock starts
// (every system gets the same text); ours is imported from a minified
// self-contained bundle, built like the shipped dist/; JS-Interpreter gets its ES5 lowering
// made ahead by the parent (a build step, like our transpile for ours-ast).
import { readFileSync } from 'node:fs'

const [system, specPath] = process.argv.slice(2)
const spec = JSON.parse(readFileSync(specPath, 'utf8'))
const w = { id: spec.id, source: spec.source, entry: spec.entry, args: spec.args, es5Source: spec.es5Source }
spec.mustHit = process.argv[4] !== 'warm'

const cases = {
  async native() {
    // eslint-disable-next-line no-new-func -- bench only
    return new Function(`${w.source}\nreturn ${w.entry}`)()(w.args)
  },
  async 'ours-source'() {
    const { AgentVM, transpile } = await import(spec.oursBundleMin ?? spec.oursBundle)
    mark('import')
    const { ast } = transpile(w.source, { filename: `${w.id}.ajs` })
    mark('transpile')
    const vm = new AgentVM()
    mark('new AgentVM')
    return unwrap(await vm.run(ast, w.args, { fuel: 1e9 }))
  },
  async 'ours-ast'() {
    const { AgentVM } = await import(spec.oursVmBundleMin ?? spec.oursVmBundle)
    return firstResultFromAst(AgentVM)
  },
  // ajs-lang/vm/cached: the same minified bundle, compiled from the V8 code cache an earlier process
  // wrote (the parent runs one untimed child first), as every start after a host's first one.
  async 'ours-ast-cached'() {
    const { runCachedScript } = await import(spec.oursCodeCache)
    const mustHit = (e) => { if (spec.mustHit && e.state !== 'hit') throw new Error(`code cache ${e.state}`) }
    const { AgentVM } = runCachedScript(spec.oursVmBundleMin, spec.oursVmKey, { cacheDir: spec.codeCacheDir, onCodeCache: mustHit })
    return firstResultFromAst(AgentVM)
  },
  async quickjs() {
    const { createQuickJS } = await import('./systems/quickjs.mjs')
    return (await (await createQuickJS()).prepare(w)).run()
  },
  async sval() {
    const { createSval } = await import('./systems/sval.mjs')
    return (await (await createSval()).prepare(w)).run()
  },
  async jsinterp() {
    const { createJsInterpreter } = await import('./systems/jsinterp.mjs')
    return (await (await createJsInterpreter()).prepare(w)).run()
  },
}

// Phase boundaries (ours only), to show where a cold start goes.
const phases = {}
let last
function mark(name) {
  const t = performance.now()
  phases[name] = t - last
  last = t
}

/** After the import: the first result of the workload from its AST, in phases. */
async function firstResultFromAst(AgentVM) {
  mark('import')
  const ast = JSON.parse(spec.astText)
  mark('JSON.parse')
  const vm = new AgentVM()
  mark('new AgentVM')
  // The same work vm.run does on a first call, split to show where it goes:
  // validation + closure compilation (cached on the AST), then execution.
  vm.compile(ast)
  mark('validate + compile')
  return unwrap(await vm.run(ast, w.args, { fuel: 1e9 }))
}

function unwrap(r) {
  if (r.error) throw new Error(r.error.message ?? JSON.stringify(r.error))
  return r.result
}

try {
  const t0 = performance.now()
  last = t0
  const result = await cases[system]()
  const t1 = performance.now()
  if (Object.keys(phases).length) mark('first run')
  // performance.now() counts from the process's time origin, so t1 is also
  // "process start -> first result" (including Node's own bootstrap).
  process.stdout.write(JSON.stringify({ ms: t1 - t0, sinceStartMs: t1, phases, result }) + '\n')
} catch (e) {
  process.stdout.write(JSON.stringify({ error: String(e?.message ?? e).split('\n')[0] }) + '\n')
  process.exitCode = 1
}
