/**
 * Atom steps: `{ op, ...fields, result? }`. Fields are decoded by their
 * declared kind (all `value` for atoms), evaluated in declaration order,
 * and passed to the atom as one input object.
 */
import type { Step } from '../../ast/types.ts'
import { STEP_COST } from '../fuel.ts'
import type { Frame } from '../runtime.ts'
import type { Scope } from './context.ts'
import { compileError } from './context.ts'
import type { CStepInfo, Compiler } from './compiler.ts'
import { compileValue } from './values.ts'
import { seqN, then } from './async.ts'
import { storeResult } from './statements.ts'
import { invokeAtom } from './atom-invoke.ts'
import { didYouMean } from '../suggest.ts'

const RESERVED = new Set(['op', 'result', 'loc'])

export function compileAtomStep(c: Compiler, step: Step, scope: Scope): CStepInfo {
  const def = c.atoms.get(step.op)
  if (!def) throw compileError('UNKNOWN_ATOM', `Unknown atom "${step.op}"${didYouMean(step.op, c.atoms.keys())}`)
  const keys = Object.keys(step).filter((k) => !RESERVED.has(k))
  for (const k of keys) {
    const spec = def.fields[k]
    if (!spec && !def.inputSchema) throw compileError('AST_INVALID', `Op "${step.op}" has no field "${k}"${didYouMean(k, Object.keys(def.fields))}`)
    if (spec && spec.kind !== 'value') throw compileError('AST_INVALID', `Field "${k}" of "${step.op}" is not a value field`)
  }
  for (const [name, spec] of Object.entries(def.fields)) {
    if (!spec.optional && !keys.includes(name)) throw compileError('AST_INVALID', `Op "${step.op}" needs field "${name}"`)
  }
  const fields = keys.map((k) => compileValue(c, (step as any)[k], scope))
  const fns = fields.map((x) => x.fn)
  const store = storeResult(c, step, scope)
  const loc = step.loc
  const build = (vals: unknown[]) => {
    const input: Record<string, unknown> = {}
    for (let i = 0; i < keys.length; i++) if (vals[i] !== undefined) input[keys[i]!] = vals[i]
    return input
  }
  const cost = STEP_COST + fields.reduce((s, x) => s + x.cost, 0)
  const call = (f: Frame, vals: unknown[]) => then(invokeAtom(f, def, build(vals), loc), (v) => store(f, v))
  const evalFields = seqN(fns, (vals) => vals)
  return {
    run: (f) => then(evalFields(f), (vals) => call(f, vals)),
    async: !def.sync || fields.some((x) => x.async),
    cost,
  }
}
