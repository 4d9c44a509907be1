/**
 * `--args` keys the program does not take: a misspelled one (`{"nme":"x"}`
 * for `function greet({ name = 'World' })`) would otherwise run silently
 * with the default. One path for every command that passes `--args` to a
 * program it compiles: each says what its entry takes, `argKeyWarnings`
 * words the warning CLI_ARGS_UNKNOWN_KEY (with did-you-mean).
 *
 * - `ajsc run`: the keys the entry declares, from its inputSchema (what the
 *   transpiler writes for the parameters, or a schema a builder gave) or
 *   else its parameter pattern (declaredArgKeys).
 * - `ajsc eval` and `ajsc workflow run`, whose code takes `args` whole: the
 *   keys it reads (argKeysRead).
 *
 * A program that takes any key gets no warning: a `...rest` parameter, a
 * Python block's `args`, a schema whose `additionalProperties` is `true` or
 * a schema (as transpiler/typecheck.ts reads it), code that passes `args`
 * on whole or reads a computed key. `ajsc flow run` has none to give: a
 * SavedFlow takes its input whole, a Block flow's schema allows additional
 * properties. The warning changes neither result nor exit.
 */
import type { AjsProgram } from '../ast/types.ts'
import { CLI_CODES } from '../diagnostics/cli-codes.ts'
import { closest } from '../diagnostics/suggest.ts'
import { paramNames, type JsonDiagnostic } from './report.ts'

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** What an entry takes: its name as messages show it, and its keys (the keys it reads, with `reads`). */
export interface DeclaredArgs {
  entry: string
  keys: string[]
  reads?: boolean
}

/** The keys the entry takes, or undefined when it takes any (or does not say). */
export function declaredArgKeys(program: AjsProgram): string[] | undefined {
  const params = program.params as { $pattern?: string; rest?: unknown; properties?: unknown } | undefined
  if (isObj(params) && params.rest !== undefined) return undefined
  const schema = program.inputSchema
  if (isObj(schema)) {
    const open = schema.additionalProperties === true || isObj(schema.additionalProperties)
    if (open || (schema.type !== undefined && schema.type !== 'object') || !isObj(schema.properties)) return undefined
    return Object.keys(schema.properties)
  }
  return params?.$pattern === 'object' && Array.isArray(params.properties) ? paramNames(program) : undefined
}

/** A read of the whole `args` object: the identifier, or inside a workflow's functions the `workflowArgs()` atom (workflows/frontend/rewrite.ts). */
const isArgs = (v: unknown): boolean => isObj(v) && ((v.$expr === 'ident' && v.name === 'args') || (v.$expr === 'call' && v.callee === 'workflowArgs') || v.op === 'workflowArgs')

/** The keys an object pattern names, or undefined when it takes any (a rest element, a computed key). */
function patternKeys(pattern: unknown): string[] | undefined {
  if (!isObj(pattern) || pattern.$pattern !== 'object' || pattern.rest !== undefined || !Array.isArray(pattern.properties)) return undefined
  const keys = pattern.properties.map((p: { key?: unknown }) => p.key)
  return keys.every((k): k is string => typeof k === 'string') ? keys : undefined
}

/**
 * The keys of `args` a program whose entry takes it whole reads (an `ajsc eval` snippet, a
 * workflow module): `args.name`, `args['name']`, `args?.name`, `const { name } = args`, and a
 * function called with it whose parameter is a pattern (`export default function ({ name })`,
 * compiled as `return main(args)`). Undefined when any other read takes args whole (passed on,
 * spread, a computed key, a rest element): then any key may be read.
 */
export function argKeysRead(ast: AjsProgram): string[] | undefined {
  const functions = (ast.functions ?? {}) as Record<string, { params?: unknown[] }>
  const keys = new Set<string>()
  let whole = false
  const take = (found: string[] | undefined): void => { if (found) for (const k of found) keys.add(k); else whole = true }
  const visit = (node: unknown): void => {
    if (whole) return
    if (Array.isArray(node)) { node.forEach(visit); return }
    if (!isObj(node)) return
    if (isArgs(node)) { whole = true; return }
    if (node.$expr === 'member' && isArgs(node.object)) {
      const p = node.property
      take(node.computed ? (isObj(p) && p.$expr === 'literal' && typeof p.value === 'string' ? [p.value] : undefined) : typeof p === 'string' ? [p] : undefined)
      return
    }
    if (node.op === 'destructure' && isArgs(node.value)) { take(patternKeys(node.pattern)); visit(node.pattern); return }
    if (node.$expr === 'call' && Array.isArray(node.args) && isArgs(node.args[0]) && typeof node.callee === 'string') {
      take(patternKeys(functions[node.callee]?.params?.[0]))
      visit(node.args.slice(1))
      return
    }
    for (const v of Object.values(node)) visit(v)
  }
  visit([ast.steps, ast.functions])
  return whole ? undefined : [...keys]
}

/**
 * One warning per key of `args` the entry does not take, with the key it is closest to. An
 * entry declares its keys (`ajsc run`: its parameters) or, taking args whole, `reads` them.
 */
export function argKeyWarnings(declared: DeclaredArgs | undefined, args: Record<string, unknown>): JsonDiagnostic[] {
  if (!declared) return []
  const { entry, keys, reads } = declared
  const list = keys.map((k) => `\`${k}\``).join(', ')
  const Entry = `${entry[0]!.toUpperCase()}${entry.slice(1)}`
  const hint = (key: string): string => !reads
    ? `${keys.length > 0 ? `${Entry} declares ${list}.` : `${Entry} declares no parameters.`} ${CLI_CODES.CLI_ARGS_UNKNOWN_KEY.hint}`
    : keys.length > 0 ? `${Entry} reads ${list}. Fix the key's spelling, or leave it out: no other key is read.`
      : `${Entry} reads no key of args: leave --args out, or read the key (\`${/^[A-Za-z_$][\w$]*$/.test(key) ? `args.${key}` : `args[${JSON.stringify(key)}]`}\`).`
  return Object.keys(args).filter((k) => !keys.includes(k)).map((key) => {
    const near = closest(key, keys)
    return {
      severity: 'warning',
      code: 'CLI_ARGS_UNKNOWN_KEY',
      message: `--args key "${key}" is ${reads ? `not read by ${entry}` : `not a parameter of ${entry}`}, which ignores it${near ? ` (did you mean \`${near}\`?)` : ''}`,
      hint: hint(key),
    }
  })
}

/** The warnings for a program `ajsc run` runs (a proc_ token declares nothing the CLI can see). */
export function unknownArgKeys(program: AjsProgram | string, args: Record<string, unknown>): JsonDiagnostic[] {
  if (typeof program === 'string') return []
  const keys = declaredArgKeys(program)
  return argKeyWarnings(keys && { entry: program.name ? `\`${program.name}\`` : 'the program', keys }, args)
}
