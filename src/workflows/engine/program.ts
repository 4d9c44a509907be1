/**
 * What the engine runs: a compiled workflow module (compileWorkflow, in the
 * frontend, produces it; startWorkflow runs it and pins its journal to it).
 */
import type { AjsProgram } from '../../ast/types.ts'

/** A compiled workflow module: what `startWorkflow` runs and a journal is pinned to. */
export interface WorkflowProgram {
  /** Marks the object as a compiled workflow (so a plain AST is never mistaken for one). */
  format: 'ajs-workflow/1'
  ast: AjsProgram
  /** `export const meta`, or `{}` when the module has none. */
  meta: Record<string, unknown>
  /** sha256 of the canonical AST without its file name: a journal records it and refuses any other. */
  astHash: string
  sourceName: string
  /** Custom atoms the module calls (sorted): a run must be given them (startWorkflow's `atoms`). */
  atoms: readonly string[]
}

/** True for what compileWorkflow returns. */
export function isWorkflowProgram(v: unknown): v is WorkflowProgram {
  return v !== null && typeof v === 'object' && (v as WorkflowProgram).format === 'ajs-workflow/1'
}
