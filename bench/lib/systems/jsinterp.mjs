// JS-Interpreter (npm js-interpreter, Neil Fraser's sandboxed ES5 stepper).
// It only parses ES5, so the workload source is lowered to ES5 once with the
// TypeScript compiler (a root devDependency) before anything is timed, and
// the four ES2015+ builtins the workloads use are added as ES5 guest code,
// the same way JS-Interpreter ships most of its own library (as polyfills).
// One interpreter per workload defines the functions once; each run sets the
// args (nativeToPseudo), appends a pre-parsed call statement and runs it.
import { pkgVersion } from '../paths.mjs'

const POLYFILLS = `
Object.defineProperty(Array.prototype, 'find', { configurable: true, writable: true, value:
  function (fn, thisArg) { for (var i = 0; i < this.length; i++) { if (fn.call(thisArg, this[i], i, this)) return this[i] } return undefined } })
Object.defineProperty(String.prototype, 'includes', { configurable: true, writable: true, value:
  function (s, from) { return String(this).indexOf(s, from) !== -1 } })
Object.defineProperty(Object, 'assign', { configurable: true, writable: true, value:
  function (target) { for (var a = 1; a < arguments.length; a++) { var src = arguments[a]; if (src != null) { for (var k in src) { if (Object.prototype.hasOwnProperty.call(src, k)) target[k] = src[k] } } } return target } })
Object.defineProperty(Object, 'entries', { configurable: true, writable: true, value:
  function (o) { var ks = Object.keys(o), out = []; for (var i = 0; i < ks.length; i++) out.push([ks[i], o[ks[i]]]); return out } })
`

/** ES5 lowering with the TypeScript compiler (imported lazily: it is big). */
export async function toEs5(source) {
  const ts = (await import('typescript')).default
  return ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES5, module: ts.ModuleKind.None, removeComments: true },
  }).outputText
}

/** A workload `w` may carry `es5Source` already (the cold-start child gets it that way). */
export async function createJsInterpreter() {
  const Interpreter = (await import('js-interpreter')).default
  const version = pkgVersion('js-interpreter')
  return {
    id: 'jsinterp',
    label: 'JS-Interpreter',
    version,
    async prepare(w) {
      const es5 = w.es5Source ?? (await toEs5(w.source))
      const interp = new Interpreter(`${POLYFILLS}\n${es5}`)
      interp.run()
      const global = interp.globalObject
      // Parsed once and appended per run: appendCode only pushes the node.
      const callAst = interp.parse_(`__result = ${w.entry}(__args)`, 'call')
      return {
        isAsync: false,
        run() {
          interp.setProperty(global, '__args', interp.nativeToPseudo(w.args))
          interp.appendCode(callAst)
          interp.run()
          return interp.pseudoToNative(interp.getProperty(global, '__result'))
        },
      }
    },
  }
}
