/**
 * `ajs-lang/vm/maps`: Maps for the VM, the `Map` statics a Map variable's methods lower to
 * (builtins/maps.ts). Importing it registers them with every AgentVM of the process
 * (builtins/part-statics.ts); the full entry, `ajsc`, the server and the Python and flow entries import
 * it. A VM without it refuses a program using a Map with FEATURE_MISSING naming this import.
 */
import { MAP_STATICS } from '../builtins/maps.ts'
import { registerStatics } from '../builtins/part-statics.ts'

registerStatics('Map', MAP_STATICS)

export {}
