/**
 * AgentVM: validates, compiles (once, cached per AST) and runs ajs/1
 * programs. `run` always resolves to a RunResult; guest errors, bad options
 * and bad ASTs come back in `error`, never as a rejected promise.
 */
import { setLongTimeout } from './long-timer.ts'
import type { AjsProgram } from '../ast/types.ts'
import { validateAst } from '../ast/validate.ts'
import { VmError, toVmError, vmError } from './errors.ts'
import { Compiler, type CompiledProgram } from './compile/compiler.ts'
import { STEP_COMPILERS } from './compile/statements.ts'
import { Run, interrupted, type RunConfig } from './runtime.ts'
import { SOURCE_CHAR_COST, toUnits } from './fuel.ts'
import { checkMembrane, copyIn, copyOut, exportResult } from './membrane.ts'
import { DEFAULT_LIMITS, normalizeOptions, type NormalizedOptions, type RunOptions } from './limits.ts'
import { SourceCache, checkSourceBudget } from './source-cache.ts'
import { coreAtoms } from './atoms/index.ts'
import type { AtomDef } from './atoms/types.ts'
import { procedureStore, isProcedureToken, type ProcedureStore } from './procedures.ts'
import type { RunResult } from './result.ts'
import { compileDiagnosticsOf } from '../diagnostics/compile-diagnostics.ts'
import { atomTools, type ToolDefinition } from './tools.ts'
import { makeArgsCheck } from './args-check.ts'
import { checkDialectArgs, toRunnable } from './dialect.ts'
import { isP } from './compile/async.ts'
import type { GuestFunction } from './compile/compiler.ts'
import { declaredLibraries, isRuntimeLibrary, libraryMissing, libraryTooOld, registeredLibrary, type LibraryLoader, type RuntimeLibrary } from './libraries.ts'

/** Turns source text into an AST; provided by the full package (the VM alone has no parser). */
export type SourceCompiler = (source: string) => AjsProgram

export interface AgentVMOptions {
  /** Where stored procedures live (default: `procedureStore`, the one process-wide in-memory store). */
  procedures?: ProcedureStore
  /** Lets `run` accept source text. `ajs-lang` sets this; `ajs-lang/vm` does not. */
  sourceCompiler?: SourceCompiler
  /**
   * Extra synchronous functions that `call` expressions may name (after helpers and atoms, before
   * the global builtins): the runtime support of another language frontend, e.g. `ajs-lang/python`.
   * A function charges fuel through the run and fails by throwing `{ code, message, value? }`.
   */
  functions?: Readonly<Record<string, GuestFunction>>
  /**
   * Runtime libraries installed on this VM (`pythonLibrary`, `flowLibrary`, ...): a program that
   * declares one on its root (`"libraries": { "python": 1 }`) runs only where it is installed,
   * registered (`import 'ajs-lang/runtime/python'`) or loadable (`loadLibrary`).
   */
  libraries?: readonly RuntimeLibrary[]
  /** Loads a declared library this VM does not have yet, on first use (the full entry loads the known ones). */
  loadLibrary?: LibraryLoader
}

interface CacheEntry {
  plain?: CompiledProgram
  traced?: CompiledProgram
  /** A compile error (the same under any limits). */
  error?: VmError
  /** Validation under the default limits: null = valid; undefined = not checked yet. */
  checked?: VmError | null
  /** Validation under other limit sets, keyed `maxAstNodes:maxAstDepth` (a few at most). */
  checkedFor?: Map<string, VmError | null>
  /** The program's declaration (libraries, atoms) is met on this VM. */
  provided?: boolean
  /** Its args check (the first problem, or undefined), made on first use. */
  args?: (value: unknown) => string | undefined
}

/** How often a run that waits (for an atom, or between time slices) looks at its interrupt flag. */
const INTERRUPT_POLL_MS = 5

export interface VmHost {
  procedures: ProcedureStore
  runChild(target: unknown, input: unknown, parent: Run): Promise<unknown>
}

export class AgentVM {
  /** Every atom this VM can run: core atoms plus the custom ones given to the constructor. */
  readonly atoms: ReadonlyMap<string, AtomDef>
  readonly procedures: ProcedureStore
  private readonly compiled = new WeakMap<object, CacheEntry>()
  private readonly sources = new SourceCache()
  private readonly sourceCompiler?: SourceCompiler
  private functions?: Readonly<Record<string, GuestFunction>>
  private readonly host: VmHost
  /** Installed runtime libraries by name. */
  private readonly libraries = new Map<string, RuntimeLibrary>()
  private readonly loadLibrary?: LibraryLoader
  /**
   * The program last looked up and its entry: a VM mostly runs one program again and again, and an
   * identity test is cheaper than the WeakMap (this one AST stays referenced until another is run).
   */
  private lastProgram?: object
  private lastEntry?: CacheEntry
  private lastConfig?: RunConfig

  constructor(customAtoms: Record<string, AtomDef> | AtomDef[] = {}, options: AgentVMOptions = {}) {
    const table = new Map<string, AtomDef>(Object.entries(coreAtoms))
    const list = Array.isArray(customAtoms) ? customAtoms : Object.values(customAtoms)
    for (const def of list) {
      if (!def || typeof def.fn !== 'function' || typeof def.op !== 'string') throw new TypeError('AgentVM: custom atoms must be made with defineAtom()')
      if (Object.hasOwn(STEP_COMPILERS, def.op)) throw new TypeError(`AgentVM: "${def.op}" is a language op and cannot be replaced`)
      table.set(def.op, def)
    }
    this.atoms = table
    this.procedures = options.procedures ?? procedureStore
    this.sourceCompiler = options.sourceCompiler
    this.functions = options.functions
    this.loadLibrary = options.loadLibrary
    for (const lib of options.libraries ?? []) {
      if (!isRuntimeLibrary(lib)) throw new TypeError('AgentVM: libraries must be made with defineLibrary()')
      try {
        this.install(lib)
      } catch (e) {
        throw new TypeError(`AgentVM: ${(e as Error).message}`)
      }
    }
    this.host = {
      procedures: this.procedures,
      runChild: (target, input, parent) => this.runChild(target, input, parent),
    }
  }

  /**
   * Run a program (AST, procedure token, or source text when a transpiler is
   * available). Never rejects. A program that never waits runs to completion
   * synchronously inside this call; only waiting programs pay for timers and
   * promise hops.
   */
  run<T = unknown>(target: unknown, args: unknown = {}, options?: RunOptions): Promise<RunResult<T>> {
    let opts: NormalizedOptions
    try {
      opts = normalizeOptions(options)
    } catch (e) {
      return Promise.resolve(fail(toVmError(e), 0))
    }
    let program: AjsProgram | Promise<AjsProgram>
    try {
      program = this.resolve(target, opts)
    } catch (e) {
      return Promise.resolve(fail(toVmError(e), 0))
    }
    if (isP(program)) return program.then((p) => this.start<T>(p, args, opts), (e) => fail(toVmError(e), 0))
    // Source text (not a token): cached once it compiles, and charged per character on every run.
    const source = typeof target === 'string' ? target : undefined
    const run = this.start<T>(program, args, opts, source)
    // The compile warnings of a program compiled here or by `transpile` (AJS4003, ...) go with its result.
    const diagnostics = compileDiagnosticsOf(program)
    return diagnostics === undefined ? run : run.then((r) => ({ ...r, diagnostics }))
  }

  private start<T>(program: AjsProgram, args: unknown, opts: NormalizedOptions, source?: string): Promise<RunResult<T>> {
    let ready: void | Promise<void>
    try {
      ready = this.provide(program)
    } catch (e) {
      return Promise.resolve(fail(toVmError(e), 0))
    }
    if (isP(ready)) return ready.then(() => this.started<T>(program, args, opts, source), (e) => fail(toVmError(e), 0))
    return this.started<T>(program, args, opts, source)
  }

  /** Add a library's functions and atoms (it never replaces an atom the VM was given). */
  private install(lib: RuntimeLibrary): void {
    const had = this.libraries.get(lib.name)
    if (had === lib) return
    if (had && had.version > lib.version) return
    for (const atom of lib.atoms ?? []) {
      const mine = this.atoms.get(atom.op)
      if (mine && mine !== atom && !had?.atoms?.includes(mine)) {
        throw vmError('OPTIONS_INVALID', `The runtime library "${lib.name}" has an atom "${atom.op}", and this VM already has an atom of that name`, { hint: `Rename your atom "${atom.op}": the name belongs to the "${lib.name}" library.` })
      }
    }
    for (const atom of lib.atoms ?? []) (this.atoms as Map<string, AtomDef>).set(atom.op, atom)
    if (lib.functions) this.functions = { ...this.functions, ...lib.functions }
    this.libraries.set(lib.name, lib)
  }

  /**
   * Meet a program's declaration before it runs: every library it names (installed, registered,
   * or loaded now) and every custom atom it calls. Checked once per program object.
   */
  private provide(program: AjsProgram): void | Promise<void> {
    if (program === null || typeof program !== 'object' || this.entry(program).provided) return
    const wanted = declaredLibraries(program)
    const pending: Array<Promise<void>> = []
    for (const [name, version] of wanted) {
      const lib = this.libraries.get(name) ?? registeredLibrary(name)
      if (lib) {
        if (typeof version === 'number' && lib.version < version) throw libraryTooOld(lib, version)
        this.install(lib)
        continue
      }
      const load = this.loadLibrary
      if (!load || typeof version !== 'number') throw libraryMissing(name, Number(version))
      pending.push(Promise.resolve().then(() => load(name)).then((loaded) => {
        if (!isRuntimeLibrary(loaded) || loaded.name !== name) throw libraryMissing(name, version)
        if (loaded.version < version) throw libraryTooOld(loaded, version)
        this.install(loaded)
      }))
    }
    if (pending.length === 0) return
    return Promise.all(pending).then(() => undefined)
  }

  /**
   * Compile, then check the custom atoms the program declares: a call of a missing atom is the
   * compiler's UNKNOWN_ATOM (located, with a did-you-mean), extended with every other missing
   * one; a declared atom no compiled call reaches is refused here. Before any step runs.
   */
  private compileDeclared(program: AjsProgram, opts: NormalizedOptions): CompiledProgram {
    const entry = this.entry(program)
    const missing = entry.provided ? [] : missingAtoms(program, this.atoms)
    let compiled: CompiledProgram
    try {
      compiled = this.compile(program, opts.trace, opts)
    } catch (e) {
      if (e instanceof VmError && e.code === 'UNKNOWN_ATOM' && missing.length > 1) throw alsoMissing(e, missing)
      throw e
    }
    if (missing.length > 0) {
      const list = missing.slice(0, 10).map((n) => `"${n}"`).join(', ') + (missing.length > 10 ? `, and ${missing.length - 10} more` : '')
      throw vmError('UNKNOWN_ATOM', `The program calls ${missing.length === 1 ? 'an atom' : 'atoms'} this VM does not have: ${list}`)
    }
    entry.provided = true
    return compiled
  }

  private started<T>(program: AjsProgram, args: unknown, opts: NormalizedOptions, source?: string): Promise<RunResult<T>> {
    let rt: Run | undefined
    try {
      const compiled = this.compileDeclared(program, opts)
      if (source !== undefined) this.sources.add(source, program)
      const input = this.input(program, args ?? {}, 'args', 'Arguments do not match the input schema', opts.membraneMaxBytes)
      rt = this.newRun(opts, input, 0)
      if (source !== undefined) rt.charge(source.length * SOURCE_CHAR_COST)
      if (opts.signal?.aborted) throw vmError('ABORTED')
      if (opts.interrupt !== undefined && Atomics.load(opts.interrupt, 0) !== 0) throw interrupted()
      const value = compiled.run(rt, input)
      if (!isP(value)) {
        const done = finish({ result: exported(value, opts) as T, fuelUsed: 0 }, rt)
        rt.end()
        return Promise.resolve(done)
      }
      // Timers and listeners only for runs that actually wait: sync work checks the deadline itself.
      const running = rt
      const cleanup = this.arm(running, opts)
      return value.then(
        (v) => finish({ result: exported(v, opts) as T, fuelUsed: 0 }, running),
        (e) => finish(fail(toVmError(e), running.fuelUsed), running),
      ).then((r) => {
        cleanup()
        running.end()
        return r
      }, (e) => {
        cleanup()
        running.end()
        return finish(fail(toVmError(e), running.fuelUsed), running)
      })
    } catch (e) {
      const r = finish(fail(toVmError(e), rt?.fuelUsed ?? 0), rt)
      rt?.end()
      return Promise.resolve(r as RunResult<T>)
    }
  }

  /** A run's args or an agent's input, copied in and checked: size, the seed dialect's names, the input schema (its check made once per program). */
  private input(program: AjsProgram, value: unknown, what: string, refused: string, max = Infinity): unknown {
    const input = copyIn(value, undefined, what)
    checkMembrane(input, max, what)
    checkDialectArgs(program, input)
    const problem = program.inputSchema && (this.entry(program).args ??= makeArgsCheck(program.inputSchema as Record<string, unknown>))(input)
    if (problem) throw vmError('ARGS_INVALID', `${refused}: ${problem}`)
    return input
  }

  /** The cache entry of a program (made on first use). */
  private entry(program: object): CacheEntry {
    if (program === this.lastProgram) return this.lastEntry!
    let entry = this.compiled.get(program)
    if (!entry) this.compiled.set(program, (entry = {}))
    this.lastProgram = program
    return (this.lastEntry = entry)
  }

  /** Compile (or fetch from cache) a validated program. Throws VmError. */
  compile(program: AjsProgram, traced = false, opts?: Pick<NormalizedOptions, 'limits'>): CompiledProgram {
    const entry = this.entry(program)
    // Validation depends on the run's limits: checked (and cached) per limit set, so one
    // tight-limit run never caches AST_TOO_LARGE for everyone, nor a loose one lets a big AST past.
    const limits = opts?.limits ?? DEFAULT_LIMITS
    let problem: VmError | null | undefined
    if (limits === DEFAULT_LIMITS) {
      if (entry.checked === undefined) entry.checked = checkAst(program, limits)
      problem = entry.checked
    } else {
      const key = `${limits.maxAstNodes}:${limits.maxAstDepth}`
      const seen = (entry.checkedFor ??= new Map())
      problem = seen.get(key)
      if (problem === undefined) {
        problem = checkAst(program, limits)
        if (seen.size < 8) seen.set(key, problem)
      }
    }
    if (problem) throw problem
    if (entry.error) throw entry.error
    const key = traced ? 'traced' : 'plain'
    if (!entry[key]) {
      try {
        entry[key] = new Compiler(program, this.atoms, { trace: traced, functions: this.functions }).compileProgram()
      } catch (e) {
        const err = toVmError(e)
        // A host stack overflow depends on how deep the caller already was: reported, not cached.
        if (err.code === 'STACK_OVERFLOW') throw vmError('AST_TOO_DEEP', 'The AST nests too deeply to compile')
        // A missing opt-in part (FEATURE_MISSING) is the process's, not the AST's: importing it later runs the same object.
        if (err.code === 'FEATURE_MISSING') throw err
        entry.error = err
        throw err
      }
    }
    return entry[key]!
  }

  /** OpenAI-style tool definitions of this VM's expression-callable atoms. */
  getTools(): ToolDefinition[] {
    return atomTools(this.atoms.values())
  }

  /** An AST as is; a token from the store (maybe async); source through the transpiler (cached). */
  private resolve(target: unknown, opts: NormalizedOptions): AjsProgram | Promise<AjsProgram> {
    if (typeof target === 'string') {
      if (isProcedureToken(target)) {
        const token = target
        return Promise.resolve(this.procedures.get(token)).then((entry) => {
          if (!entry) throw vmError('PROCEDURE_NOT_FOUND', `Unknown or expired procedure token "${token.slice(0, 48)}"`)
          return toRunnable(entry.ast) as AjsProgram
        })
      }
      if (!this.sourceCompiler) throw vmError('SOURCE_NOT_SUPPORTED')
      let ast = this.sources.get(target)
      if (!ast) {
        checkSourceBudget(target, opts.fuel, opts.timeoutMs)
        const started = Date.now()
        try {
          ast = this.sourceCompiler(target)
        } catch (e) {
          throw sourceError(e)
        }
        if (Date.now() - started > opts.timeoutMs) throw vmError('TIMEOUT', `Compiling the source took longer than the run's time limit of ${opts.timeoutMs} ms`)
      }
      return ast
    }
    if (target === null || typeof target !== 'object' || Array.isArray(target)) {
      throw vmError('AST_INVALID', 'vm.run expects an AST object, a procedure token or source text')
    }
    // A root without `ajs` is the seed's dialect: run as its ajs/1 migration (dialect.ts).
    return toRunnable(target) as AjsProgram
  }

  /**
   * A run's config is made once per options object and kept for the next run given the same one
   * (normalizeOptions hands every fuel-only run the same): only what differs per run is built per
   * run. Spelled out, not spread: a config built by `...opts` made run-time property reads on it
   * 3x slower in the benchmarks (object shape).
   */
  private newRun(opts: NormalizedOptions, args: unknown, agentDepth: number, parent?: Run): Run {
    let config = this.lastConfig
    if (config?.options !== opts) {
      config = this.lastConfig = {
        fuelUnits: toUnits(opts.fuel),
        signal: opts.signal,
        interrupt: opts.interrupt,
        capabilities: opts.capabilities,
        context: opts.context,
        costOverrides: opts.costOverrides,
        quotas: opts.quotas,
        quotaUsed: opts.quotaUsed,
        timeoutOverrides: opts.timeoutOverrides,
        membraneMaxBytes: opts.membraneMaxBytes,
        maxHeapBytes: opts.maxHeapBytes,
        maxCallDepth: opts.limits.maxCallDepth,
        maxAgentDepth: opts.limits.maxAgentDepth,
        trace: opts.trace,
        onLog: opts.onLog,
        random: opts.random,
        now: opts.now,
        uuid: opts.uuid,
        host: this.host,
        options: opts,
      }
    }
    const now = Date.now()
    return new Run(config, args, agentDepth, parent?.deadline ?? now + opts.timeoutMs, parent?.sliceStart ?? now, parent)
  }

  /** Timer and host signal: both stop the run and cancel whatever it waits for. */
  private arm(rt: Run, opts: NormalizedOptions): () => void {
    const stop = (err: VmError) => { try { rt.stop(err) } catch { /* stop() throws by design */ } }
    // Clamped and re-armed (long-timer.ts): a time limit above 2^31-1 ms neither fires at once nor early.
    const timer = setLongTimeout(() => stop(vmError('TIMEOUT', `The run exceeded its time limit of ${opts.timeoutMs} ms`)), rt.deadline - Date.now())
    const onAbort = () => stop(vmError('ABORTED'))
    if (opts.signal?.aborted) onAbort()
    opts.signal?.addEventListener('abort', onAbort)
    // A waiting run ticks no more: poll the interrupt flag while it waits.
    const flag = opts.interrupt
    const poll = flag === undefined ? undefined : setInterval(() => {
      if (Atomics.load(flag, 0) !== 0) stop(interrupted())
    }, INTERRUPT_POLL_MS)
    return () => {
      timer.clear()
      if (poll !== undefined) clearInterval(poll)
      opts.signal?.removeEventListener('abort', onAbort)
    }
  }

  /** agentRun without an `agent` capability: run the child here, sharing the caller's fuel and deadline. */
  private async runChild(target: unknown, input: unknown, parent: Run): Promise<unknown> {
    const depth = parent.agentDepth + 1
    const max = parent.config.maxAgentDepth
    if (depth > max) throw vmError('STACK_OVERFLOW', `agentRun nested deeper than ${max}`)
    if (typeof target === 'string' && !isProcedureToken(target)) {
      throw vmError('PROCEDURE_NOT_FOUND', `agentRun: "${String(target).slice(0, 48)}" is not a procedure token (pass a proc_ token or an AST)`)
    }
    const opts = parent.config.options
    const program = await this.resolve(target, opts)
    await this.provide(program)
    const compiled = this.compileDeclared(program, opts)
    const args = this.input(program, input, 'agent input', "agentRun: input does not match the agent's input schema")
    const child = this.newRun(opts, args, depth, parent)
    const onParentAbort = () => { try { child.stop(parent.stopped ?? vmError('ABORTED')) } catch { /* by design */ } }
    parent.controller.signal.addEventListener('abort', onParentAbort)
    try {
      let value = compiled.run(child, args)
      if (isP(value)) value = await value
      return copyIn(copyOut(value ?? null))
    } finally {
      parent.controller.signal.removeEventListener('abort', onParentAbort)
      child.release()
      if (child.trace && parent.trace) parent.trace.push(...child.trace)
      parent.warnings.push(...child.warnings)
      child.end()
    }
  }
}

/** The custom atoms a program declares that this VM lacks. */
function missingAtoms(program: AjsProgram, atoms: ReadonlyMap<string, AtomDef>): string[] {
  return Array.isArray(program.atoms) ? program.atoms.filter((name) => typeof name === 'string' && !atoms.has(name)) : []
}

/** The compiler's located UNKNOWN_ATOM, naming the other missing atoms too. */
function alsoMissing(e: VmError, missing: string[]): VmError {
  const more = missing.filter((n) => !e.message.includes(`"${n}"`)).slice(0, 10).map((n) => `"${n}"`)
  if (more.length === 0) return e
  const out = new VmError(e.code, `${e.message} (this VM also lacks ${more.join(', ')})`)
  for (const k of ['op', 'loc', 'file', 'hint', 'path'] as const) if (e[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = e[k]
  return out
}

/** Validate an AST under a limit set: the first problem as a VmError, or null. */
function checkAst(program: AjsProgram, limits: NormalizedOptions['limits']): VmError | null {
  const problems = validateAst(program, { maxDepth: limits.maxAstDepth, maxNodes: limits.maxAstNodes })
  if (problems.length === 0) return null
  const first = problems[0]!
  return vmError((first.code ?? 'AST_INVALID') as 'AST_INVALID', `${first.path || '/'}: ${first.message}`, { path: first.path, details: problems.map(({ path, message }) => ({ path, message })) })
}

/** A transpile failure keeps its own code and location (it is the program's fault, never INTERNAL). */
function sourceError(e: unknown): VmError {
  if (e instanceof RangeError) return vmError('AST_TOO_DEEP', 'The source nests too deeply to compile')
  const t = e as { code?: unknown; message?: unknown; line?: unknown; column?: unknown; hint?: unknown }
  if (t && typeof t.code === 'string' && typeof t.message === 'string') {
    const err = new VmError(t.code, t.message)
    if (typeof t.line === 'number' && typeof t.column === 'number') err.loc = [t.line, t.column]
    if (typeof t.hint === 'string') err.hint = t.hint
    return err
  }
  if (e instanceof SyntaxError && /stack/i.test(e.message)) return vmError('AST_TOO_DEEP', 'The source nests too deeply to compile')
  return toVmError(e)
}

/** The run's value handed to the host, within `membraneMaxBytes`. */
function exported(value: unknown, opts: NormalizedOptions): unknown {
  const out = exportResult(value ?? null)
  checkMembrane(out, opts.membraneMaxBytes, 'result')
  return out
}

function fail(err: VmError, fuelUsed: number): RunResult<never> {
  const error = err.toAgentError()
  // A thrown guest value leaves as plain data like a result (it may be shared, cyclic or huge).
  if (error.value !== undefined) {
    try { error.value = copyOut(error.value) } catch { error.value = '(the thrown value is too large or cyclic to report)' }
  }
  return { result: null, error, fuelUsed }
}

function finish<T>(result: RunResult<T>, rt: Run | undefined): RunResult<T> {
  if (rt) {
    result.fuelUsed = rt.fuelUsed
    if (rt.trace) result.trace = rt.trace
    if (rt.warnings.length > 0) result.warnings = rt.warnings
  }
  return result
}
