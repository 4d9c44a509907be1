/**
 * The workflow globals as VM atoms, bound to one execution. The module
 * frontend rewrites `agent(p, o)` into `agent({ prompt: p, options: o, site })`
 * and so on (frontend/rewrite.ts); here each atom checks its input and hands it to the
 * execution: requests park on a promise the host resolves, calls are queued.
 */
import { defineAtom, runOf } from '../../vm/atoms/define.ts'
import type { AtomContext, AtomDef } from '../../vm/atoms/types.ts'
import type { Run } from '../../vm/runtime.ts'
import { vmError } from '../../vm/errors.ts'
import type { BudgetSnapshot, WorkflowCall, WorkflowRef, WorkflowRequestKind } from './types.ts'

/** What the atoms need from their execution. */
export interface AtomHost {
  request(kind: WorkflowRequestKind, site: string, input: Record<string, unknown>): Promise<unknown>
  call(call: WorkflowCall): void
  readonly budget: BudgetSnapshot
  readonly args: unknown
  /** Told the run the atoms belong to (the execution watches its time slices). */
  attach(run: Run): void
  /** Wait for a signal named `name` (null: any); its payload, or null after `timeoutMs`. */
  signal(site: string, name: string | null, timeoutMs: number | undefined): Promise<unknown>
  /** Publish a value queries read (`execution.query(name)`). */
  expose(name: string, value: unknown): void
  /** Versioning: true on runs that take the new code path (journaled), false on runs replaying past it. */
  patched(id: string): boolean
  /** Change the run's search attributes (null removes one); journaled. Returns them all. */
  upsertAttributes(set: unknown): Record<string, unknown>
  /** End the run and start the next one of its chain with \`args\` (throws: the run stops here). */
  continueAsNew(args: unknown): never
}

const OBJECT = { type: 'object' } as const
const bad = (op: string, message: string) => vmError('ATOM_INPUT_INVALID', `${op}: ${message}`, { op })

function site(op: string, v: unknown): string {
  if (typeof v !== 'string') throw bad(op, 'missing call site (call it as a function, not as an atom)')
  return v
}

function workflowRef(v: unknown): WorkflowRef {
  if (typeof v === 'string' && v.length > 0) return v
  if (v !== null && typeof v === 'object' && typeof (v as { scriptPath?: unknown }).scriptPath === 'string') {
    return { scriptPath: (v as { scriptPath: string }).scriptPath }
  }
  throw bad('workflow', 'the reference must be a workflow name or { scriptPath }')
}

/** Requests wait as long as the host takes: no per-atom time limit (the run's own limits still apply). */
const WAIT = { cost: 1, timeoutMs: 0 }
const NOW = { cost: 0.01, sync: true, timeoutMs: 0 }

export function workflowAtoms(host: AtomHost): AtomDef[] {
  const defs: AtomDef[] = [
    defineAtom('agent', OBJECT, undefined, (input: any) => {
      if (typeof input.prompt !== 'string') throw bad('agent', 'the prompt must be a string')
      const options = input.options ?? undefined
      return host.request('agent', site('agent', input.site), options === undefined ? { prompt: input.prompt } : { prompt: input.prompt, options })
    }, WAIT),
    defineAtom('workflow', OBJECT, undefined, (input: any) => {
      const ref = workflowRef(input.ref)
      const args = input.args ?? undefined
      return host.request('workflow', site('workflow', input.site), args === undefined ? { ref } : { ref, args })
    }, WAIT),
    defineAtom('sleep', OBJECT, undefined, (input: any) => {
      const ms = input.durationMs
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw bad('sleep', 'the duration must be a non-negative number of ms')
      return host.request('sleep', site('sleep', input.site), { durationMs: Math.ceil(ms) })
    }, WAIT),
    defineAtom('log', OBJECT, undefined, (input: any) => {
      host.call({ type: 'log', values: Array.isArray(input.values) ? input.values : [] })
      return null
    }, NOW),
    defineAtom('phase', OBJECT, undefined, (input: any) => {
      if (typeof input.name !== 'string') throw bad('phase', 'the name must be a string')
      const options = input.options ?? undefined
      host.call(options === undefined ? { type: 'phase', name: input.name } : { type: 'phase', name: input.name, options })
      return null
    }, NOW),
    defineAtom('signal', OBJECT, undefined, (input: any) => {
      const name = input.name ?? null
      if (name !== null && (typeof name !== 'string' || name.length === 0 || name.length > 200)) throw bad('signal', 'the name must be a non-empty string (or null for any signal)')
      const t = input.timeoutMs ?? undefined
      if (t !== undefined && (typeof t !== 'number' || !Number.isFinite(t) || t < 0)) throw bad('signal', 'the timeout must be a non-negative number of ms')
      return host.signal(site('signal', input.site), name, t === undefined ? undefined : Math.ceil(t))
    }, WAIT),
    defineAtom('expose', OBJECT, undefined, (input: any) => {
      if (typeof input.name !== 'string' || input.name.length === 0 || input.name.length > 200) throw bad('expose', 'the query name must be a non-empty string')
      host.expose(input.name, input.value ?? null)
      return null
    }, NOW),
    defineAtom('patched', OBJECT, undefined, (input: any) => {
      if (typeof input.id !== 'string' || input.id.length === 0 || input.id.length > 200) throw bad('patched', 'the patch id must be a non-empty string')
      return host.patched(input.id)
    }, NOW),
    defineAtom('upsertAttributes', OBJECT, undefined, (input: any) => host.upsertAttributes(input.set), NOW),
    defineAtom('continueAsNew', OBJECT, undefined, (input: any) => host.continueAsNew(input.args ?? {}), NOW),
    defineAtom('budgetTotal', OBJECT, undefined, () => host.budget.total, NOW),
    defineAtom('budgetSpent', OBJECT, undefined, () => host.budget.spent, NOW),
    defineAtom('budgetRemaining', OBJECT, undefined, () => {
      const { total, spent } = host.budget
      return total === null ? Infinity : Math.max(0, total - spent)
    }, NOW),
    defineAtom('workflowArgs', OBJECT, undefined, () => host.args, NOW),
    defineAtom('workflowTasks', OBJECT, undefined, () => {
      throw vmError('INTERNAL', 'workflowTasks is a compile-time marker and never runs', { op: 'workflowTasks' })
    }, NOW),
  ]
  return defs.map((d) => ({ ...d, fn: (input: unknown, ctx: AtomContext) => { host.attach(runOf(ctx)); return d.fn(input, ctx) } }))
}
