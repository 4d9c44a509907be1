/**
 * Every opt-in part of the VM at once (regex support, JSON Schema validation, error texts, the
 * hash digest, storing procedures from guest code, Dates, Maps): what
 * the full entry, `ajsc`, the server and the Python and flow entries import,
 * so their VMs behave as before the parts were split out of `ajs-lang/vm`.
 */
import './regex.ts'
import './schema.ts'
import './texts.ts'
import './hash.ts'
import './procedures.ts'
import './dates.ts'
import './maps.ts'

export {}
