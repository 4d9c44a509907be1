/**
 * The AgentVM of the full package: the runtime plus the transpiler, so
 * `vm.run(source)` compiles source text (cached) with the VM's own atoms
 * known to the transpiler, plus `vm.Agent`, the typed builder over the VM's
 * atoms (the runtime-only `ajs-lang/vm` entry has neither). It runs the AST
 * of every frontend: the runtime libraries a program declares (Python,
 * flows) load on first use.
 */
import { AgentVM as RuntimeVM, type AgentVMOptions } from './vm/agent-vm.ts'
import type { AtomDef } from './vm/atoms/types.ts'
import type { LibraryLoader, RuntimeLibrary } from './vm/libraries.ts'
import { isKnownLibrary, type LibraryName } from './ast/libraries.ts'
import { transpile } from './transpiler/index.ts'
import { createBuilder, type VmAtoms } from './builder/index.ts'
// The full package runs the seed's AST dialect too (the migration registers itself with the VM).
import './vm/seed-dialect.ts'
// ... and has every opt-in part of the VM (regex support, error texts), as before they were split out of ajs-lang/vm.
import './vm/parts/all.ts'
import type { AgentRoot } from './builder/types.ts'

/** How the full entry gets each known library: one loader per name of the catalog (src/ast/libraries.ts). */
const LOADERS: Record<LibraryName, () => Promise<RuntimeLibrary> | undefined> = {
  python: () => import('./python/library.ts').then((m) => m.pythonLibrary),
  flow: () => import('./flows/library.ts').then((m) => m.flowLibrary),
  // Engine libraries: the workflow engine binds its library to one execution (the journal), a
  // FlowLang turn needs its session's capabilities; no VM loads them on its own.
  workflow: () => undefined,
  flowlang: () => undefined,
}

/** Loads the runtime libraries this package provides, on first use (the full entry's default `loadLibrary`). */
export const loadKnownLibrary: LibraryLoader = (name) => (isKnownLibrary(name) ? LOADERS[name]() : undefined)

export class AgentVM<C extends Record<string, AtomDef> | AtomDef[] = {}> extends RuntimeVM {
  #agent?: AgentRoot<VmAtoms<C>>

  constructor(customAtoms: C = {} as C, options: AgentVMOptions = {}) {
    let self: RuntimeVM | undefined
    super(customAtoms, {
      sourceCompiler: (source) => transpile(source, { atoms: [...(self?.atoms.keys() ?? [])] }).ast,
      loadLibrary: loadKnownLibrary,
      ...options,
    })
    self = this
  }

  /** The builder root over this VM's atoms: core atoms plus the custom ones, typed from their schemas. */
  get Agent(): AgentRoot<VmAtoms<C>> {
    return (this.#agent ??= createBuilder<C>(this.atoms.values()))
  }
}
