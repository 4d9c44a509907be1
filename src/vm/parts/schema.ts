/**
 * `ajs-lang/vm/schema`: JSON Schema validation for the VM (tosijs-schema's
 * `validate`), for input schemas richer than "an object with these keys" (the
 * transpiler's types of defaults, `pattern`, `enum`, ...) and for host atoms
 * defined with schemas. Importing it registers it with every AgentVM of the
 * process (schema-hook.ts); it also exports tosijs-schema's `s` builder, the
 * one `defineAtom` takes. The full entry (which exports `s` too), `ajsc`, the
 * server and the Python and flow entries import it.
 */
import { s, validate } from 'tosijs-schema'
import { registerSchemaValidator, type SchemaValidate } from '../schema-hook.ts'

registerSchemaValidator(validate as SchemaValidate)

export { s }
