/**
 * The runtime libraries a program may declare (`"libraries": { "python": 1 }`
 * on its root): the support code some frontends' programs call besides the
 * core atoms. Declared once here; the libraries themselves
 * (`ajs-lang/runtime/python`, ...), the VM's refusal of a missing one, the
 * full entry's lazy loader and the docs all read this table (their
 * descriptions live in docs.ts, out of the VM bundle).
 */

export interface LibrarySpec {
  /** The newest version this package provides. A program needing a higher one is refused. */
  readonly version: number
  /** The opt-in module that registers it on every VM of the process (the `ajs-lang/vm` way). */
  readonly module: string
  /** The named export of that module to pass as `new AgentVM(atoms, { libraries: [...] })`. */
  readonly exportName: string
  /**
   * `'engine'`: the library is the engine's own (bound to one execution, e.g. a workflow's journal),
   * so no VM option supplies it: the program runs on that engine. Default `'module'`.
   */
  readonly provider?: 'module' | 'engine'
  /** For an engine library: where its programs run, in the library, the CLI and the server. */
  readonly runOn?: string
}

export const LIBRARIES = {
  python: {
    version: 1,
    module: 'ajs-lang/runtime/python',
    exportName: 'pythonLibrary',
  },
  flow: {
    version: 1,
    module: 'ajs-lang/runtime/flow',
    exportName: 'flowLibrary',
  },
  workflow: {
    version: 1,
    module: 'ajs-lang/workflows',
    exportName: 'startWorkflow',
    provider: 'engine',
    runOn: "startWorkflow() from 'ajs-lang/workflows' (CLI: ajsc workflow run; server: POST /v1/workflows)",
  },
  flowlang: {
    version: 1,
    module: 'ajs-lang/flowlang',
    exportName: 'flowlangLibrary',
    provider: 'engine',
    runOn: "a FlowSession from 'ajs-lang/flowlang' (CLI: ajsc flowlang run | chat), which gives its turns the model, mcp and flowlang capabilities",
  },
} as const satisfies Record<string, LibrarySpec>

export type LibraryName = keyof typeof LIBRARIES

/** A program's declaration: library name → the version it was compiled against. */
export type LibraryRequirements = Partial<Record<string, number>>

export const LIBRARY_NAME = /^[a-z][a-z0-9-]{0,31}$/

export function isKnownLibrary(name: string): name is LibraryName {
  return Object.hasOwn(LIBRARIES, name)
}
