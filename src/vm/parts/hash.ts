/**
 * `ajs-lang/vm/hash`: the SHA-256 behind the `hash` atom (atoms/part-hook.ts). Without it the atom
 * is listed as ever and a call of it is refused with FEATURE_MISSING naming this import.
 */
import { registerAtomPart } from '../atoms/part-hook.ts'
import { sha256Hex } from '../atoms/sha256.ts'

registerAtomPart('hash', sha256Hex)

export {}
