// QuickJS compiled to wasm (quickjs-emscripten-core + the release-sync
// variant). One runtime + context per workload; the source is evaluated once
// to define the functions, then each run calls a wrapper that takes the args
// as a JSON string and returns the result as a JSON string: data has to cross
// the wasm boundary somehow, and JSON is the standard cheap way.
import { pkgVersion } from '../paths.mjs'

export async function createQuickJS() {
  const { newQuickJSWASMModuleFromVariant } = await import('quickjs-emscripten-core')
  const variant = (await import('@jitl/quickjs-wasmfile-release-sync')).default
  const QuickJS = await newQuickJSWASMModuleFromVariant(variant)
  const version = pkgVersion('quickjs-emscripten-core')
  return {
    id: 'quickjs',
    label: 'QuickJS (wasm)',
    version,
    prepare(w) {
      const rt = QuickJS.newRuntime()
      rt.setMemoryLimit(-1)
      const ctx = rt.newContext()
      const code = `${w.source}\nglobalThis.__call = (s) => JSON.stringify(${w.entry}(JSON.parse(s)));`
      ctx.unwrapResult(ctx.evalCode(code, `${w.id}.js`)).dispose()
      const call = ctx.getProp(ctx.global, '__call')
      return {
        isAsync: false,
        run() {
          const arg = ctx.newString(JSON.stringify(w.args))
          const res = ctx.callFunction(call, ctx.undefined, arg)
          arg.dispose()
          const handle = ctx.unwrapResult(res)
          const text = ctx.getString(handle)
          handle.dispose()
          return JSON.parse(text)
        },
        dispose() {
          call.dispose()
          ctx.dispose()
          rt.dispose()
        },
      }
    },
  }
}
