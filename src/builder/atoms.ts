/**
 * Atom methods: every atom of the registry is a builder method taking that
 * atom's one input object. Field names are checked here (unknown field ->
 * "did you mean", missing required field) so mistakes surface at the call,
 * not at run time.
 */
import type { Step } from '../ast/types.ts'
import { closest } from '../diagnostics/suggest.ts'
import { argError, at, isPlainObject, value, type Kit } from './body.ts'
import type { AtomEntry, State } from './state.ts'

export function atomCall(st: State, kit: Kit, atom: AtomEntry, input: unknown): State {
  return at(st, atom.op, () => {
    const fields = atom.fields
    const names = Object.keys(fields)
    if (input === undefined) input = {}
    if (!isPlainObject(input) || '$expr' in input) {
      throw argError(`${atom.op} takes one object argument { ${names.join(', ')} }`)
    }
    const step: Step = { op: atom.op }
    for (const k of Object.keys(input)) {
      if (!Object.prototype.hasOwnProperty.call(fields, k)) {
        const hint = closest(k, names)
        throw argError(`${atom.op} has no field \`${k}\`${hint ? ` (did you mean \`${hint}\`?)` : ''}; its fields: ${names.join(', ') || 'none'}`)
      }
    }
    for (const k of names) {
      const v = input[k]
      if (v === undefined) {
        if (!fields[k]!.optional) throw argError(`${atom.op} needs the field \`${k}\``)
        continue
      }
      step[k] = value(st, kit, v)
    }
    return st.push(step)
  })
}

/** The method for atom `op`, or undefined when the registry has no such atom. */
export function atomMethodFor(st: State, op: string): ((st: State, args: unknown[], kit: Kit) => State) | undefined {
  const atom = st.reg.atoms.get(op)
  if (!atom) return undefined
  return (s, [input, ...extra], kit) => {
    if (extra.length > 0) throw at(s, op, () => { throw argError(`${op} takes one object argument`) })
    return atomCall(s, kit, atom, input)
  }
}
