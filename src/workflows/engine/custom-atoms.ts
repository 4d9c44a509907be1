/**
 * The host's custom atoms (defineAtom) in a workflow, journaled like an
 * activity of a durable engine. The module rewrite turns `lookup({ id })`
 * into `lookup({ input: { id }, site: "3:10" })`; the VM gets a wrapper
 * per atom that checks the input against the atom's schema, keys the call
 * (op, site, input hash, occurrence) and either returns the journaled
 * outcome (replay: the atom is not called) or calls the atom and journals
 * its value or error before the workflow sees it.
 *
 * Guarantee: an atom whose outcome is in the journal never runs again for
 * that call. The entry is written after the atom returns, so a crash while
 * it runs (or after it returned, before the entry was durable) runs it
 * again on resume: at least once, as activities in Temporal. A call that is
 * cancelled (the run stopped, a parallel sibling failed) is not journaled.
 */
import { validate } from 'tosijs-schema'
import { runOf } from '../../vm/atoms/define.ts'
import type { AtomContext, AtomDef } from '../../vm/atoms/types.ts'
import { VmError, vmError, type AgentError } from '../../vm/errors.ts'
import type { Run } from '../../vm/runtime.ts'
import { workflowError } from './errors.ts'
import { budgetAtoms } from '../../codemode/budget-atoms.ts'
import type { AtomResolution } from './journal.ts'

/**
 * A custom atom whose call changes its run beyond the value it returns (budgetToken reserves fuel
 * from the run's meter, budgetSettle gives it back): a replay hands back the journaled value without
 * calling the atom, and calls `replayed` with it so the run is changed the same way.
 */
export type ReplayedAtom = AtomDef & { replayed?: (value: unknown, input: Record<string, unknown>, ctx: AtomContext) => void }

/** What a custom atom call produced, as the journal holds it. */
export type AtomOutcome = { resolution: AtomResolution } | { error: AgentError }

/** What the wrappers need from their execution. */
export interface AtomCallHost {
  /** The journaled outcome's value (or a throw), calling the atom only when the journal has none. */
  callAtom(def: AtomDef, input: Record<string, unknown>, site: string, ctx: AtomContext, options?: unknown): unknown
  attach(run: Run): void
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** The atoms startWorkflow executes: defineAtom results, each name once. */
export function customAtomDefs(atoms: unknown): AtomDef[] {
  if (atoms === undefined) return []
  const bad = () => workflowError('WORKFLOW_OPTIONS_INVALID', 'atoms must be an array of defineAtom(...) results (the atoms themselves, not their names)')
  if (!Array.isArray(atoms)) throw bad()
  const seen = new Set<string>()
  for (const a of atoms) {
    if (!isRecord(a) || typeof a['op'] !== 'string' || typeof a['fn'] !== 'function') throw bad()
    if (seen.has(a['op'])) throw workflowError('WORKFLOW_OPTIONS_INVALID', `atoms: two atoms are named "${a['op']}"`)
    if ((budgetAtoms as unknown[]).includes(a)) {
      // Their reservation lives in the run's meter, which a replay rebuilds: they need the workflow's variants.
      throw workflowError('WORKFLOW_OPTIONS_INVALID', `atoms: ${a['op']} from budgetAtoms cannot be journaled in a workflow`, {
        hint: 'Give a workflow workflowBudgetAtoms(tokens) (ajs-lang/codemode): budgetToken and budgetSettle journaled with their reservations, and budgetRun with workflowBudgetAtoms(tokens, { runner }).',
      })
    }
    seen.add(a['op'])
  }
  return atoms as AtomDef[]
}

/** Refuse a run whose program calls atoms the host did not pass (before anything is journaled). */
export function checkAtomsGiven(called: readonly string[], defs: readonly AtomDef[], sourceName: string): void {
  const missing = called.filter((n) => !defs.some((d) => d.op === n))
  if (missing.length === 0) return
  throw workflowError('WORKFLOW_OPTIONS_INVALID', `${sourceName} calls the custom atom${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which this run was not given`, {
    hint: 'Pass the atoms themselves: startWorkflow(program, { atoms: [...] }) / resumeWorkflow(..., { atoms }), or `ajsc workflow run|resume --atoms ./atoms.mjs`.',
  })
}

/** The VM's atom for each custom atom: same name, cost and output schema; the input is `{ input, site }`. */
export function journaledAtoms(defs: readonly AtomDef[], host: AtomCallHost): AtomDef[] {
  return defs.map((def): AtomDef => ({
    op: def.op,
    fields: { input: { kind: 'value', optional: true }, options: { kind: 'value', optional: true }, site: { kind: 'value' } },
    inputSchema: { type: 'object' },
    outputSchema: def.outputSchema,
    // Charged on replay too, so a replay spends the fuel of the first run.
    cost: typeof def.cost === 'function' ? (w: { input?: unknown }, ctx: AtomContext) => (def.cost as (i: unknown, c: AtomContext) => number)(w.input ?? {}, ctx) : def.cost,
    // The wrapper applies the atom's own time limit, so a timeout is an outcome that is journaled.
    timeoutMs: 0,
    docs: def.docs,
    io: def.io,
    fn: (w: { input?: unknown; options?: unknown; site?: unknown }, ctx: AtomContext) => {
      host.attach(runOf(ctx))
      if (typeof w.site !== 'string') throw vmError('ATOM_INPUT_INVALID', `${def.op}: missing call site (a workflow calls custom atoms as functions)`, { op: def.op })
      const input = (w.input ?? {}) as Record<string, unknown>
      if (def.inputSchema && !validate(input as never, def.inputSchema as never)) {
        throw vmError('ATOM_INPUT_INVALID', `Input of ${def.op} does not match its schema: ${JSON.stringify(input).slice(0, 200)}`, { op: def.op })
      }
      return host.callAtom(def, input, w.site, ctx, w.options ?? undefined)
    },
  }))
}

/** Call the atom with its time limit; its value or error as journal data (never throws). */
export async function runAtom(def: AtomDef, input: Record<string, unknown>, ctx: AtomContext): Promise<AtomOutcome> {
  const call = new AbortController()
  const cancel = () => call.abort(ctx.signal.reason)
  ctx.signal.addEventListener('abort', cancel)
  // The atom sees its own signal (aborted on timeout or cancellation); everything else is the VM's context.
  const inner = Object.create(ctx, { signal: { value: call.signal } }) as AtomContext
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    let out = def.fn(input, inner)
    if (out !== null && typeof (out as { then?: unknown })?.then === 'function') {
      const limit = def.timeoutMs ?? 0
      out = await (limit > 0
        ? Promise.race([out, new Promise((_, reject) => {
          timer = setTimeout(() => {
            const err = vmError('ATOM_TIMEOUT', `${def.op}: the atom exceeded its time limit of ${limit} ms`, { op: def.op })
            call.abort(err)
            reject(err)
          }, limit)
        })])
        : out)
    }
    return { resolution: encodeValue(def, out) }
  } catch (e) {
    return { error: errorRecord(def, e) }
  } finally {
    if (timer !== undefined) clearTimeout(timer)
    ctx.signal.removeEventListener('abort', cancel)
  }
}

/** The value as JSON (what the journal will hold): the first run and every replay see the same value. */
function encodeValue(def: AtomDef, v: unknown): AtomResolution {
  let text: string | undefined
  try {
    text = JSON.stringify(v)
  } catch (e) {
    throw vmError('ATOM_OUTPUT_INVALID', `${def.op} returned a value that is not JSON data (${(e as Error).message}); a workflow journals atom results as JSON`, { op: def.op })
  }
  return text === undefined ? 'OkUndefined' : { Ok: JSON.parse(text) }
}

/** The error the guest sees, as plain data (the VM's rule for atom errors: ATOM_ERROR, or CAPABILITY_ERROR for I/O atoms). */
function errorRecord(def: AtomDef, e: unknown): AgentError {
  let out: AgentError
  if (e instanceof VmError) {
    out = { name: 'AgentError', code: e.code, message: e.message, op: e.op ?? def.op }
    if (e.value !== undefined) out.value = e.value
  } else {
    const err = e as { message?: unknown; code?: unknown } | null
    const message = typeof err?.message === 'string' ? err.message : String(e)
    const causeCode = typeof err?.code === 'string' ? err.code : undefined
    out = {
      name: 'AgentError', code: def.io ? 'CAPABILITY_ERROR' : 'ATOM_ERROR', op: def.op,
      message: `${def.op}: ${causeCode ? `[${causeCode}] ` : ''}${message}`,
      value: causeCode ? { code: causeCode, message } : { message },
    }
  }
  try {
    return JSON.parse(JSON.stringify(out)) as AgentError
  } catch {
    const { value: _value, ...plain } = out
    return plain
  }
}

/** What the guest gets for a journaled outcome: the value, or the recorded error thrown. */
export function outcomeValue(o: { resolution?: AtomResolution; error?: AgentError }): unknown {
  if (o.error !== undefined) {
    const extra: { op?: string; value?: unknown } = {}
    if (o.error.op !== undefined) extra.op = o.error.op
    if (o.error.value !== undefined) extra.value = structuredClone(o.error.value)
    throw new VmError(o.error.code, o.error.message, extra)
  }
  const r = o.resolution!
  return r === 'OkUndefined' ? undefined : structuredClone(r.Ok)
}
