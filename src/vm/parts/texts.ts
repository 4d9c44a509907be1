/**
 * `ajs-lang/vm/texts`: the default message and hint of every runtime error
 * code (src/diagnostics/runtime-codes.ts, docs/errors.md). Importing it
 * registers the table with every AgentVM of the process (errors.ts); the
 * full entry, `ajsc`, the server and the Python and flow entries import it.
 * Without it errors keep their codes and the messages given where they are
 * raised; an error with no message of its own says its code.
 */
import { RUNTIME_CODES } from '../../diagnostics/runtime-codes.ts'
import { registerErrorTexts } from '../errors.ts'

registerErrorTexts(RUNTIME_CODES)

export {}
