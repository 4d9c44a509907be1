/**
 * The one way a host builds a VM: from what it offers (custom atoms, the
 * battery atoms, runtime libraries, a procedure store, capabilities, run
 * defaults). `ajsc run`, the server's pool workers, flows, Python and the
 * workflow engine all assemble their VMs here, so every host gives a program
 * the same atoms and libraries for the same offer, and every host checks a
 * program's declaration (`libraries`, `atoms`) the same way before it runs.
 */
import { AgentVM, type AgentVMOptions, type SourceCompiler } from '../vm/agent-vm.ts'
// Every host built here (the Python and flow entries, workflows, ajsc, the server) has the VM's opt-in parts.
import '../vm/parts/all.ts'
import type { AtomDef } from '../vm/atoms/types.ts'
import type { LibraryLoader, RuntimeLibrary } from '../vm/libraries.ts'
import type { ProcedureStore } from '../vm/procedures.ts'
import type { RunOptions } from '../vm/limits.ts'
import type { RunResult } from '../vm/result.ts'

/** A VM class with AgentVM's constructor: the runtime one, or the full entry's (source text, builder). */
export type VmClass<V extends AgentVM = AgentVM> = new (atoms: AtomDef[], options: AgentVMOptions) => V

export interface HostOffer<V extends AgentVM = AgentVM> {
  /** Atoms every program may call besides the core ones, in order: a later atom replaces an earlier one of the same name. */
  atoms?: readonly AtomDef[] | Readonly<Record<string, AtomDef>>
  /** Atoms that come first, so `atoms` may replace them (the battery atoms, for `ajsc run` and `ajsc serve`). */
  baseAtoms?: readonly AtomDef[]
  /** Runtime libraries installed up front. */
  libraries?: readonly RuntimeLibrary[]
  /** Loads a library a program declares and the VM does not have (the full entry's loads the known ones lazily). */
  loadLibrary?: LibraryLoader
  procedures?: ProcedureStore
  sourceCompiler?: SourceCompiler
  /** The VM class (default: the runtime AgentVM). */
  VM?: VmClass<V>
  /** Capabilities every run gets (a run's own are added over them). */
  capabilities?: Record<string, unknown>
  /** Request context every run gets, unless the run passes its own. */
  context?: Record<string, unknown>
  /** Run options every run starts from (fuel, timeoutMs, limits, maxHeapBytes, ...). */
  defaults?: RunOptions
  /** Any other AgentVM option (e.g. `functions`); the fields above win. */
  vmOptions?: AgentVMOptions
}

export interface Host<V extends AgentVM = AgentVM> {
  readonly vm: V
  readonly capabilities: Record<string, unknown>
  /** One run's options: the host's defaults, capabilities and context, then the run's own. */
  runOptions(options?: RunOptions): RunOptions
  /** `vm.run` with `runOptions(options)`. */
  run<T = unknown>(target: unknown, args?: unknown, options?: RunOptions): Promise<RunResult<T>>
}

/** The atom list of an offer: base atoms first, then the host's own (same name: the later wins). */
function offeredAtoms(offer: Pick<HostOffer, 'atoms' | 'baseAtoms'>): AtomDef[] {
  const own = offer.atoms === undefined ? [] : Array.isArray(offer.atoms) ? offer.atoms : Object.values(offer.atoms)
  return [...(offer.baseAtoms ?? []), ...own]
}

/** Build the VM a host offers (throws TypeError for atoms or libraries not made with defineAtom / defineLibrary). */
export function assembleVM<V extends AgentVM = AgentVM>(offer: HostOffer<V> = {}): V {
  const options: AgentVMOptions = { ...offer.vmOptions }
  if (offer.procedures) options.procedures = offer.procedures
  if (offer.sourceCompiler) options.sourceCompiler = offer.sourceCompiler
  if (offer.libraries) options.libraries = offer.libraries
  if (offer.loadLibrary) options.loadLibrary = offer.loadLibrary
  const VM = (offer.VM ?? AgentVM) as VmClass<V>
  return new VM(offeredAtoms(offer), options)
}

/** A VM plus the capabilities, context and defaults every run of this host gets. */
export function assembleHost<V extends AgentVM = AgentVM>(offer: HostOffer<V> = {}): Host<V> {
  const vm = assembleVM(offer)
  const capabilities = { ...offer.capabilities }
  const runOptions = (options: RunOptions = {}): RunOptions => {
    const out: RunOptions = { ...offer.defaults, ...options }
    out.capabilities = { ...capabilities, ...options.capabilities }
    const context = options.context ?? offer.context
    if (context !== undefined) out.context = context
    return out
  }
  return {
    vm,
    capabilities,
    runOptions,
    run: (target, args = {}, options) => vm.run(target, args, runOptions(options)),
  }
}
