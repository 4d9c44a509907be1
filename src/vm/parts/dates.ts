/**
 * `ajs-lang/vm/dates`: Dates for the VM, `new Date(...)` (`Date.time`) and the Date methods as `Date`
 * statics (builtins/dates.ts). Importing it registers them with every AgentVM of the process
 * (builtins/part-statics.ts); the full entry, `ajsc`, the server and the Python and flow entries import it.
 * A VM without it refuses a program using a Date with FEATURE_MISSING naming this import.
 */
import { DATE_STATICS } from '../builtins/dates.ts'
import { registerStatics } from '../builtins/part-statics.ts'

registerStatics('Date', DATE_STATICS)

export {}
