/**
 * Compiled workflow programs, cached by the hash of what they are compiled
 * from (source, source name, the tenant's custom atom names): a workflow's
 * steps compile its source once per process, not once per step. Bounded
 * (least recently used out); `compiles` counts real compilations (tests
 * count work with it instead of timing it).
 */
import { createHash } from 'node:crypto'
import type { AtomDef } from '../vm/atoms/types.ts'
import { compileWorkflow } from '../workflows/frontend/module.ts'
import type { WorkflowProgram } from '../workflows/engine/program.ts'

export class WorkflowProgramCache {
  private readonly programs = new Map<string, WorkflowProgram>()
  /** Compilations done (cache misses). */
  compiles = 0

  constructor(private readonly max = 256) {}

  get(source: string, sourceName: string, atoms: readonly AtomDef[]): WorkflowProgram {
    const key = createHash('sha256').update(sourceName).update('\0').update(atoms.map((a) => a.op).sort().join(',')).update('\0').update(source).digest('hex')
    const hit = this.programs.get(key)
    if (hit) {
      this.programs.delete(key)
      this.programs.set(key, hit)
      return hit
    }
    const program = compileWorkflow(source, { sourceName, atoms: [...atoms] })
    this.compiles++
    this.programs.set(key, program)
    if (this.programs.size > this.max) this.programs.delete(this.programs.keys().next().value!)
    return program
  }
}

/** The process's cache (workflow steps of every tenant; the key includes the atoms a tenant may call). */
export const workflowPrograms = new WorkflowProgramCache()
