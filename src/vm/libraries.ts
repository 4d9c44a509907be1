/**
 * Runtime libraries: the support code a frontend's programs call besides the
 * core atoms (Python's semantics, the flow steps). A program declares the
 * ones it needs on its root (`"libraries": { "python": 1 }`); a VM gets them
 * from its `libraries` option, from the process-wide registry (an opt-in
 * import such as `ajs-lang/runtime/python` registers itself), or from its
 * `loadLibrary` option (the full entry loads the known ones lazily), and
 * refuses a program whose declaration it cannot meet before running it.
 */
import type { AtomDef } from './atoms/types.ts'
import type { GuestFunction } from './compile/compiler.ts'
import { LIBRARIES, LIBRARY_NAME, isKnownLibrary, type LibrarySpec } from '../ast/libraries.ts'
import { vmError, type VmError } from './errors.ts'
import { processSlot } from './process-slot.ts'

export interface RuntimeLibrary {
  readonly name: string
  /** The newest version it implements; programs declaring this version or an older one run on it. */
  readonly version: number
  /** Synchronous functions `call` expressions may name (the `AgentVMOptions.functions` of this library). */
  readonly functions?: Readonly<Record<string, GuestFunction>>
  /** Atoms its programs call. */
  readonly atoms?: readonly AtomDef[]
}

/** Loads a library the VM does not have yet (the full entry's default loads the known ones). */
export type LibraryLoader = (name: string) => RuntimeLibrary | undefined | Promise<RuntimeLibrary | undefined>

const BRAND = Symbol.for('ajs-lang.runtime-library')

/** Make a runtime library (checked, frozen). */
export function defineLibrary(spec: RuntimeLibrary): RuntimeLibrary {
  if (typeof spec?.name !== 'string' || !LIBRARY_NAME.test(spec.name)) throw new TypeError(`defineLibrary: invalid name ${JSON.stringify(spec?.name)}`)
  if (!Number.isInteger(spec.version) || spec.version < 1) throw new TypeError(`defineLibrary(${spec.name}): version must be a positive integer`)
  for (const a of spec.atoms ?? []) {
    if (!a || typeof a.fn !== 'function' || typeof a.op !== 'string') throw new TypeError(`defineLibrary(${spec.name}): atoms must be made with defineAtom()`)
  }
  return Object.freeze({ ...spec, [BRAND]: true })
}

export function isRuntimeLibrary(value: unknown): value is RuntimeLibrary {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true
}

/** The process-wide registry: a library bundled apart from the VM (two browser scripts) still reaches the VM's copy of this module. */
const registry = (): Map<string, RuntimeLibrary> => processSlot('runtime-libraries', () => new Map())

/** Make a library available to every AgentVM of this process (what `import 'ajs-lang/runtime/python'` does). */
export function registerLibrary(library: RuntimeLibrary): void {
  if (!isRuntimeLibrary(library)) throw new TypeError('registerLibrary: make the library with defineLibrary()')
  const had = registry().get(library.name)
  if (!had || had.version <= library.version) registry().set(library.name, library)
}

/** The registered library of that name, if any. */
export function registeredLibrary(name: string): RuntimeLibrary | undefined {
  return registry().get(name)
}

/** What a program declares: its `libraries`, as [name, version] pairs (empty for old ASTs). */
export function declaredLibraries(program: { libraries?: unknown }): Array<[string, number]> {
  const libs = program.libraries
  if (libs === null || typeof libs !== 'object' || Array.isArray(libs)) return []
  return Object.entries(libs as Record<string, number>)
}

/** The refusal of a program that needs a library this VM cannot get. */
export function libraryMissing(name: string, version: number): VmError {
  if (!isKnownLibrary(name)) {
    return vmError('LIBRARY_MISSING', `The program needs the runtime library "${name}" (version ${version}), which this package does not provide`, {
      hint: `Known libraries: ${Object.keys(LIBRARIES).join(', ')}. Run it on a host that provides "${name}" (new AgentVM(atoms, { libraries: [${name}Library] })), or recompile the program with this package.`,
    })
  }
  const spec: LibrarySpec = LIBRARIES[name]
  if (spec.provider === 'engine') {
    return vmError('LIBRARY_MISSING', `The program needs the "${name}" library (version ${version}), which only its engine provides: it is not a program a plain VM runs`, {
      hint: `Run it on the ${name} engine: ${spec.runOn}.`,
    })
  }
  return vmError('LIBRARY_MISSING', `The program needs the runtime library "${name}" (version ${version}), which this VM does not have`, {
    hint: `Install it on the VM: import { ${spec.exportName} } from '${spec.module}' and pass new AgentVM(atoms, { libraries: [${spec.exportName}] }), or import '${spec.module}' once to register it for every VM (ajs-lang's full entry, ajsc run and ajsc serve load it by themselves).`,
  })
}

/** The refusal of a program compiled against a newer library than the VM's. */
export function libraryTooOld(library: RuntimeLibrary, version: number): VmError {
  return vmError('LIBRARY_VERSION', `The program needs version ${version} of the runtime library "${library.name}"; this VM has version ${library.version}`, {
    hint: 'Upgrade ajs-lang on the host that runs the program, or compile the program with the version the host runs.',
  })
}
