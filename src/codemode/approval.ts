/**
 * Approval before a call (code mode). An atom marked `requiresApproval`
 * (defineAtom's option, an MCP tool's `destructiveHint`, or a host policy
 * per call) does not run until someone approves that call, optionally with
 * edited arguments; a rejection makes the call throw `APPROVAL_REJECTED`,
 * which the program can catch.
 *
 * Two hosts decide: `withApprovals` asks a callback in the same process (a
 * TTY prompt in `ajsc run`, a UI), and the workflow engine pauses durably:
 * the pause is a wait on the workflow journal, so it outlives the process
 * (src/workflows/engine/execution.ts, docs/code-mode.md).
 */
import { validate } from 'tosijs-schema'
import type { AtomContext, AtomDef } from '../vm/atoms/types.ts'
import { VmError } from '../vm/errors.ts'

/** The error code of a rejected call. */
export const APPROVAL_REJECTED = 'APPROVAL_REJECTED'

/** A call waiting for approval. */
export interface ApprovalCall {
  /** Stable id of this call (the same on every replay of a workflow). */
  id: string
  op: string
  input: Record<string, unknown>
  /** `line:col` of the call in the program, when known. */
  site?: string
  /** The MCP tool behind the atom, when it is one. */
  mcp?: { server: string; tool: string }
}

/** An answer: true/false, or an object (approve with edited input, reject with a reason). */
export type ApprovalDecision = boolean | { approve: true; input?: Record<string, unknown> } | { approve: false; reason?: string }

/** Decides per call whether approval is needed (beside the atom's own `requiresApproval`). */
export type ApprovalPolicy = (call: { op: string; input: Record<string, unknown>; atom: AtomDef }) => boolean

/** Whether this call of `def` needs approval: the host's policy first, else the atom's mark. */
export function needsApproval(def: AtomDef, input: Record<string, unknown>, policy?: ApprovalPolicy): boolean {
  if (policy) return policy({ op: def.op, input, atom: def }) === true
  const mark = def.requiresApproval
  return typeof mark === 'function' ? mark(input) === true : mark === true
}

/** A decision as data: `{ approve, input?, reason? }` (throws TypeError on anything else). */
export function normalizeDecision(d: unknown): { approve: boolean; input?: Record<string, unknown>; reason?: string } {
  if (d === true || d === false) return { approve: d }
  if (d && typeof d === 'object' && typeof (d as { approve?: unknown }).approve === 'boolean') {
    const { approve, input, reason } = d as { approve: boolean; input?: unknown; reason?: unknown }
    if (input !== undefined && (input === null || typeof input !== 'object' || Array.isArray(input))) throw new TypeError('an approval\'s input must be an object')
    return { approve, ...(approve && input !== undefined ? { input: input as Record<string, unknown> } : {}), ...(!approve && typeof reason === 'string' ? { reason } : {}) }
  }
  throw new TypeError('an approval decision is true, false, { approve: true, input? } or { approve: false, reason? }')
}

/** The catchable error of a rejected call. */
export function rejectedError(op: string, reason?: string): VmError {
  return new VmError(APPROVAL_REJECTED, `${op}: the call was not approved${reason ? `: ${reason}` : ''}`, { op, ...(reason ? { value: { reason } } : {}) })
}

/** The input an approver edited, checked against the atom's schema (ATOM_INPUT_INVALID otherwise). */
export function editedInput(def: AtomDef, input: Record<string, unknown>): Record<string, unknown> {
  if (def.inputSchema && !validate(input as never, def.inputSchema as never)) {
    throw new VmError('ATOM_INPUT_INVALID', `The approved input of ${def.op} does not match its schema: ${JSON.stringify(input).slice(0, 200)}`, { op: def.op })
  }
  return input
}

export interface WithApprovalsOptions {
  /** Decide which calls need approval (default: the atoms' `requiresApproval`). */
  policy?: ApprovalPolicy
}

/**
 * The atoms with their approval step: a call that needs approval first asks
 * `decide` (in this process; for a pause that survives a restart, run the
 * program as a workflow). Atoms that need none are returned as they are.
 * The approval's wait does not count against the atom's own time limit.
 */
export function withApprovals<A extends AtomDef>(atoms: readonly A[] | Readonly<Record<string, A>>, decide: (call: ApprovalCall) => ApprovalDecision | Promise<ApprovalDecision>, options: WithApprovalsOptions = {}): A[] {
  const list = Array.isArray(atoms) ? atoms : Object.values(atoms)
  let n = 0
  return list.map((def) => {
    if (!options.policy && !def.requiresApproval) return def
    const inner = def.fn
    const timeoutMs = def.timeoutMs
    const mcp = (def as { mcp?: { server: string; tool: string } }).mcp
    const fn = async (input: Record<string, unknown>, ctx: AtomContext): Promise<unknown> => {
      let call = input
      if (needsApproval(def, input, options.policy)) {
        const decision = normalizeDecision(await decide({ id: `approval-${++n}`, op: def.op, input: structuredClone(input), ...(mcp ? { mcp: { server: mcp.server, tool: mcp.tool } } : {}) }))
        if (!decision.approve) throw rejectedError(def.op, decision.reason)
        if (decision.input) call = editedInput(def, decision.input)
      }
      return timed(def.op, inner(call, ctx), timeoutMs)
    }
    // The wrapper has no time limit of its own (a person may take a while); the atom's applies to the call.
    return { ...def, fn, timeoutMs: 0, sync: false } as A
  })
}

async function timed(op: string, out: unknown, ms: number | undefined): Promise<unknown> {
  if (!ms || out === null || typeof (out as { then?: unknown })?.then !== 'function') return out
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([out, new Promise((_, reject) => {
      timer = setTimeout(() => reject(new VmError('ATOM_TIMEOUT', `${op}: the atom exceeded its time limit of ${ms} ms`, { op })), ms)
    })])
  } finally {
    if (timer !== undefined) clearTimeout(timer)
  }
}
