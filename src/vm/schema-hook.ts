/**
 * The VM's side of JSON Schema validation (a program's `inputSchema`, a host
 * atom's input and output schemas). The validator, tosijs-schema, is an opt-in
 * part, `ajs-lang/vm/schema` (src/vm/parts/schema.ts), that registers itself
 * here when imported, so `ajs-lang/vm` stays small; the full entry, `ajsc`,
 * the server and the Python and flow entries import it. Without it the VM
 * still checks the plain-data schemas the transpiler gives most programs (an
 * object with these keys, the types of defaults; args-check.ts); anything
 * richer is refused with FEATURE_MISSING naming the import: a value is never
 * taken as valid unchecked.
 */
import { partMissing } from './atoms/part-hook.ts'
import { processSlot } from './process-slot.ts'

/** tosijs-schema's `validate`: true when `value` matches; `onError` hears each problem as (`a.b` or `root`, message). */
export type SchemaValidate = (value: unknown, schema: unknown, onError?: (path: string, message: string) => void) => boolean

const slot = processSlot<{ validate?: SchemaValidate }>('vm.schema', () => ({}))

/** Called by the schema part when it is imported. */
export function registerSchemaValidator(validate: SchemaValidate): void {
  slot.validate = validate
}

/** The validator, or the refusal naming the import that supplies it: of the program's args, or of atom `op`'s input or output. */
export function schemaValidator(what: 'args' | 'input' | 'output', op?: string): SchemaValidate {
  if (slot.validate) return slot.validate
  const whose = what === 'args' ? "the program's arguments" : `the ${what} of ${op}`
  throw partMissing('schema', `Checking ${whose} against its JSON Schema needs schema validation, and this VM was built without it`, 'JSON Schema checks', op)
}
