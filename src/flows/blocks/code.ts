/**
 * `code` blocks: Python function bodies, compiled by the Python frontend
 * (ajs-lang/python). Wired in when that frontend is available.
 */
import type { Step } from '../../ast/types.ts'
import { problem } from '../problems.ts'
import type { Block } from './model.ts'
import type { BlockCompileContext } from './compile.ts'

export interface CodeHelper { params: unknown[]; steps: Step[] }

export function compileCodeBlock(c: BlockCompileContext, stepId: string, _block: Block, _input: string, _out: string): Step[] {
  c.problems.push(problem('InvalidCode', `/blocks/${stepId}/content`, `code block "${stepId}": the Python frontend is not available in this build`))
  return []
}
