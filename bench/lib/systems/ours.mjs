// Our VM, from the esbuild bundle of src/index.ts (see build.mjs). The source
// is transpiled once per workload and the same AST object is reused, so the
// VM's per-AST compile cache is hit on every timed run.
export function createOurs(mod, version) {
  const { AgentVM, transpile } = mod
  return {
    id: 'ours',
    label: 'ajs-lang VM',
    version,
    prepare(w) {
      const ast = transpileOrThrow(transpile, w)
      const vm = new AgentVM()
      const runner = {
        isAsync: true,
        fuelUsed: undefined, // of the last run, reported next to the timings
        async run() {
          const r = await vm.run(ast, w.args, { fuel: 1e9 })
          if (r.error) throw new Error(`guest error: ${r.error.message ?? JSON.stringify(r.error)}`)
          runner.fuelUsed = r.fuelUsed
          return r.result
        },
      }
      return runner
    },
  }
}

/** transpile() may report problems instead of throwing; make both loud. */
export function transpileOrThrow(transpile, w) {
  const out = transpile(w.source, { filename: `${w.id}.ajs` })
  if (!out || !out.ast) {
    const why = out?.errors ?? out?.diagnostics ?? out
    throw new Error(`transpile produced no AST: ${JSON.stringify(why)?.slice(0, 500)}`)
  }
  return out.ast
}
