/**
 * The custom atoms a workflow module may call, as compileWorkflow's `atoms`
 * option gives them (names, or defineAtom results whose closed input schema
 * also lets the rewrite check a literal argument's fields).
 */
import { ATOM_NAME } from '../../ast/nodes.ts'
import { CORE_ATOM_NAMES } from '../../transpiler/globals.ts'
import type { AtomDef } from '../../vm/atoms/types.ts'
import { workflowError } from '../engine/errors.ts'
import { WORKFLOW_ATOMS, WORKFLOW_GLOBALS } from './rewrite.ts'

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Per-atom field names (null: unknown, only the name is checked). */
export type CustomAtomTable = ReadonlyMap<string, ReadonlyMap<string, { optional: boolean }> | null>

/** Names (or defineAtom results) for compileWorkflow → a table; bad items are WORKFLOW_OPTIONS_INVALID. */
export function customAtomTable(atoms: readonly unknown[] | undefined): CustomAtomTable {
  const table = new Map<string, ReadonlyMap<string, { optional: boolean }> | null>()
  if (atoms === undefined) return table
  if (!Array.isArray(atoms)) throw workflowError('WORKFLOW_OPTIONS_INVALID', 'atoms must be an array of atom names or defineAtom(...) results')
  for (const a of atoms) {
    const def = isRecord(a) && typeof a['op'] === 'string' ? (a as unknown as AtomDef) : undefined
    const name = typeof a === 'string' ? a : def?.op
    if (name === undefined) throw workflowError('WORKFLOW_OPTIONS_INVALID', 'atoms must be an array of atom names or defineAtom(...) results')
    if (!ATOM_NAME.test(name)) throw workflowError('WORKFLOW_OPTIONS_INVALID', `atoms: ${JSON.stringify(name)} is not an atom name`)
    // Not callable as a custom atom from a module: vendor-namespaced names (`slack:post`), and names of workflow
    // globals or core atoms (the global wins; a host's module or a server may well export one, e.g. a `log`).
    if (name.includes(':') || WORKFLOW_GLOBALS.has(name) || (WORKFLOW_ATOMS as readonly string[]).includes(name) || CORE_ATOM_NAMES.has(name)) continue
    // Fields are checked only where the schema closes the object (what tosijs-schema's s.object does).
    const fields = def?.fields && def.inputSchema && isRecord(def.inputSchema['properties']) && def.inputSchema['additionalProperties'] === false
      ? new Map(Object.entries(def.fields).map(([k, f]) => [k, { optional: f.optional === true }]))
      : null
    table.set(name, fields)
  }
  return table
}

