/**
 * `ajs-lang/vm/maps`: Maps and Sets for the VM, the `Map` statics a Map variable's methods lower to
 * (builtins/maps.ts) and the `Set` statics a Set variable's do (builtins/set-vars.ts). Importing it registers them with every AgentVM of the process
 * (builtins/part-statics.ts); the full entry, `ajsc`, the server and the Python and flow entries import
 * it. A VM without it refuses a program using a Map or a Set variable with FEATURE_MISSING naming this import.
 */
import { MAP_STATICS } from '../builtins/maps.ts'
import { SET_VAR_STATICS } from '../builtins/set-vars.ts'
import { registerStatics } from '../builtins/part-statics.ts'

registerStatics('Map', MAP_STATICS)
registerStatics('Set', SET_VAR_STATICS)

export {}
