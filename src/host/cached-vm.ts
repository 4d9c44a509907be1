/**
 * `ajs-lang/vm/cached` (Node and Bun): the VM of `ajs-lang/vm`, with the opt-in parts asked for,
 * compiled from a V8 code cache after the first process, which takes about a third off a fresh
 * process's time to its first result (docs/vm.md, "Cold start"). It loads the package's self-contained browser bundles
 * (dist/browser/), whose SHA-256 the build wrote to dist/browser/scripts.json, so a cache is
 * only ever used with the bundle it was made from.
 */
import type * as Vm from '../vm/index.js'
import { VM_PARTS, type VmPart } from '../vm/parts/names.js'
import { runCachedScript, type CodeCacheOptions } from './code-cache.js'

// As in code-cache.ts, Node's builtins as CommonJS modules: no ESM facades on a cold start.
const { existsSync, readFileSync, statSync } = process.getBuiltinModule('node:fs')
const { fileURLToPath } = process.getBuiltinModule('node:url')

export { VM_PARTS, type VmPart }
export { defaultCacheDir, type CodeCacheEvent, type CodeCacheOptions } from './code-cache.js'

/** What `ajs-lang/vm` exports. */
export type VmModule = typeof Vm

export interface LoadVmOptions extends CodeCacheOptions {
  /** The opt-in parts to load with the VM (`[]`: the VM of `ajs-lang/vm` alone). Default: every part, as `ajs-lang`'s VM has. */
  parts?: readonly VmPart[]
}

const BROWSER_DIR = new URL('./browser/', import.meta.url)
let vm: VmModule | undefined
const partsLoaded = new Set<VmPart>()

/**
 * The SHA-256 (16 hex digits) of each shipped bundle, by file name, as the build recorded it; a
 * dist/ without the record (a build older than it) names a file by its size and time instead.
 */
let keys: Record<string, string> | undefined
function keyOf(file: string, name: string): string {
  keys ??= existsSync(new URL('scripts.json', BROWSER_DIR)) ? JSON.parse(readFileSync(new URL('scripts.json', BROWSER_DIR), 'utf8')) as Record<string, string> : {}
  if (keys[name] !== undefined) return keys[name]
  const st = statSync(file)
  return `${st.size}-${Math.round(st.mtimeMs)}`
}

function run(name: string, options: CodeCacheOptions): Record<string, unknown> {
  const file = fileURLToPath(new URL(name, BROWSER_DIR))
  if (!existsSync(file)) {
    throw new Error(`ajs-lang/vm/cached needs the built package: ${file} is missing. Run npm run build in the checkout, or import AgentVM from 'ajs-lang/vm'.`)
  }
  return runCachedScript(file, keyOf(file, name), options)
}

/**
 * The VM module, loaded once per process (later calls return the same module and load only the
 * parts not loaded yet). Use it instead of `ajs-lang/vm`, not beside it: each is its own copy of
 * the VM (the parts register with both).
 */
export function loadVm(options: LoadVmOptions = {}): VmModule {
  const parts = options.parts ?? VM_PARTS
  for (const part of parts) {
    if (!VM_PARTS.includes(part)) throw new TypeError(`loadVm: unknown part '${String(part)}'; the parts are ${VM_PARTS.join(', ')}`)
  }
  vm ??= run('vm.min.js', options) as unknown as VmModule
  for (const part of parts) {
    if (partsLoaded.has(part)) continue
    run(`vm-${part}.min.js`, options)
    partsLoaded.add(part)
  }
  return vm
}
