/**
 * Compiled workflow programs, cached by the hash of what they are compiled
 * from (source, source name, the tenant's custom atom names): a workflow's
 * steps compile its source once per process, not once per step. Bounded
 * (least recently used out); `compiles` counts real compilations (tests
 * count work with it instead of timing it).
 *
 * On the server the compilation itself runs in a pool thread
 * (RunPool.compileWorkflow, as procedures compile with RunPool.compile): the
 * event loop only waits for the program, which comes back as JSON text.
 */
import { createHash } from 'node:crypto'
import type { AtomDef } from '../vm/atoms/types.ts'
import { TranspileError } from '../diagnostics/index.ts'
import { compileWorkflow } from '../workflows/frontend/module.ts'
import { WorkflowError } from '../workflows/engine/errors.ts'
import type { WorkflowProgram } from '../workflows/engine/program.ts'
import type { ServerLimits } from './config.ts'
import { HttpError } from './errors.ts'
import { programFromBody, transpileAgentError } from './procedures.ts'

/** Compiles a workflow's source somewhere else (a pool thread); the atoms by name. Rejects with the HttpError the server answers. */
export type WorkflowCompiler = (source: string, sourceName: string, atoms: readonly string[]) => Promise<WorkflowProgram>

/**
 * Compile a workflow module as the server accepts it: refusals as HttpError
 * (422 PROGRAM_REJECTED with the transpiler's error), and with `limits`, the
 * same AST size and depth limits as every other program the server accepts.
 */
export function compileServerWorkflow(source: string, sourceName: string, atoms: ReadonlyArray<AtomDef | string>, limits?: Pick<ServerLimits, 'maxAstNodes' | 'maxAstDepth'>): WorkflowProgram {
  let program: WorkflowProgram
  try {
    program = compileWorkflow(source, { sourceName, atoms: [...atoms] })
  } catch (e) {
    if (e instanceof TranspileError) throw new HttpError('PROGRAM_REJECTED', e.message, { agentError: transpileAgentError(e) })
    if (e instanceof WorkflowError) throw new HttpError('PROGRAM_REJECTED', e.message, { agentError: { name: 'AgentError', code: e.code, message: e.message, hint: e.hint } })
    throw e
  }
  if (limits) programFromBody({ ast: program.ast }, limits as ServerLimits)
  return program
}

const atomNames = (atoms: ReadonlyArray<AtomDef | string>): string[] => atoms.map((a) => (typeof a === 'string' ? a : a.op))

export class WorkflowProgramCache {
  private readonly programs = new Map<string, WorkflowProgram>()
  /** Compilations in flight by key (two steps of one new source wait for one compilation). */
  private readonly pending = new Map<string, Promise<WorkflowProgram>>()
  /** Compilations done (cache misses). */
  compiles = 0

  constructor(private readonly max = 256) {}

  private keyOf(source: string, sourceName: string, atoms: readonly string[]): string {
    return createHash('sha256').update(sourceName).update('\0').update([...atoms].sort().join(',')).update('\0').update(source).digest('hex')
  }

  private hit(key: string): WorkflowProgram | undefined {
    const hit = this.programs.get(key)
    if (hit) {
      this.programs.delete(key)
      this.programs.set(key, hit)
    }
    return hit
  }

  private put(key: string, program: WorkflowProgram): void {
    this.programs.set(key, program)
    if (this.programs.size > this.max) this.programs.delete(this.programs.keys().next().value!)
  }

  /** The program, compiled in this thread on a miss. */
  get(source: string, sourceName: string, atoms: readonly AtomDef[]): WorkflowProgram {
    const key = this.keyOf(source, sourceName, atomNames(atoms))
    const hit = this.hit(key)
    if (hit) return hit
    const program = compileWorkflow(source, { sourceName, atoms: [...atoms] })
    this.compiles++
    this.put(key, program)
    return program
  }

  /** The program, compiled by `compiler` (a pool thread) on a miss; without one, in this thread. Refusals reject (HttpError). */
  async load(source: string, sourceName: string, atoms: readonly AtomDef[], compiler?: WorkflowCompiler): Promise<WorkflowProgram> {
    if (!compiler) return this.get(source, sourceName, atoms)
    const names = atomNames(atoms)
    const key = this.keyOf(source, sourceName, names)
    const hit = this.hit(key)
    if (hit) return hit
    let compiling = this.pending.get(key)
    if (!compiling) {
      compiling = compiler(source, sourceName, names).then((program) => {
        this.compiles++
        this.put(key, program)
        return program
      }).finally(() => this.pending.delete(key))
      this.pending.set(key, compiling)
    }
    return compiling
  }
}

/** The process's cache (workflow steps of every tenant; the key includes the atoms a tenant may call). */
export const workflowPrograms = new WorkflowProgramCache()
