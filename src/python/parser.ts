/**
 * The Python grammar (@lezer/python), loaded on first use. It is an optional dependency of
 * ajs-lang (docs/packaging.md): the VM, the JS transpiler and the builder never load it, and a
 * program that transpiles Python without it installed gets a MissingDependencyError naming the
 * package and its install command. Loaded with `require` so transpilePython stays synchronous.
 */
import { createRequire } from 'node:module'
import type { LRParser } from '@lezer/lr'
import { loadOptionalSync } from '../host/optional.ts'

let parser: LRParser | undefined

/** The @lezer/python parser (the same object on every call). */
export function pythonParser(): LRParser {
  parser ??= loadOptionalSync('python', () => (createRequire(import.meta.url)('@lezer/python') as { parser: LRParser }).parser)
  return parser
}
