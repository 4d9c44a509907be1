/**
 * `--args` keys the program does not declare: a misspelled one
 * (`{"nme":"x"}` for `function greet({ name = 'World' })`) would otherwise
 * run silently with the default. One path for every command that passes
 * `--args` to a program it compiles (`ajsc run`, `ajsc workflow run`): each
 * says which keys its entry declares, `argKeyWarnings` words the warning.
 *
 * The keys a program's entry declares come from its inputSchema (what the
 * transpiler writes for the parameters, or a schema a builder gave) or else
 * its parameter pattern; a workflow module's from its `export default
 * function ({ ... })`. A program that takes any key (a `...rest` parameter,
 * a Python block's `args`, a schema whose `additionalProperties` is `true`
 * or a schema, as transpiler/typecheck.ts reads it; a workflow that reads
 * the `args` global) gets no warning. The warning changes neither result
 * nor exit.
 */
import type { AjsProgram } from '../ast/types.ts'
import { CLI_CODES } from '../diagnostics/cli-codes.ts'
import { closest } from '../vm/suggest.ts'
import { paramNames, type JsonDiagnostic } from './report.ts'

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** What an entry takes: its name as messages show it, and its keys. */
export interface DeclaredArgs {
  entry: string
  keys: string[]
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

/** Every read of the compiled workflow's `args` global: the identifier at the top level, the `workflowArgs()` atom inside functions (workflows/frontend/rewrite.ts). */
function argsReads(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((n: number, x) => n + argsReads(x), 0)
  if (!isObj(node)) return 0
  const own = (node.$expr === 'ident' && node.name === 'args') || (node.$expr === 'call' && node.callee === 'workflowArgs') || node.op === 'workflowArgs' ? 1 : 0
  return Object.values(node).reduce((n: number, x) => n + argsReads(x), own)
}

/**
 * The keys a workflow module's `export default function ({ a, b })` takes
 * (compiled as `return main(args)`, workflows/frontend/module.ts), or
 * undefined when the module reads `args` anywhere else, or has no such
 * function: then any key may be read.
 */
export function declaredWorkflowArgs(ast: AjsProgram): DeclaredArgs | undefined {
  const steps = (ast as { steps?: unknown }).steps
  const last = Array.isArray(steps) ? (steps.at(-1) as Record<string, unknown> | undefined) : undefined
  const call = last?.op === 'return' && isObj(last.value) && last.value.$expr === 'call' ? last.value : undefined
  const passed = Array.isArray(call?.args) && call.args.length === 1 && isObj(call.args[0]) && call.args[0].$expr === 'ident' && call.args[0].name === 'args'
  if (!passed || typeof call?.callee !== 'string' || argsReads(ast) !== 1) return undefined
  const fn = (ast.functions as Record<string, { params?: unknown[] }> | undefined)?.[call.callee]
  const pattern = fn?.params?.[0] as { $pattern?: string; rest?: unknown; properties?: unknown } | undefined
  if (pattern?.$pattern !== 'object' || pattern.rest !== undefined || !Array.isArray(pattern.properties)) return undefined
  return { entry: call.callee === 'workflowMain' ? 'the workflow\'s default function' : `\`${call.callee}\``, keys: paramNames({ params: pattern }) }
}

/** One warning per key of `args` the entry does not declare, with the declared key it is closest to. */
export function argKeyWarnings(declared: DeclaredArgs | undefined, args: Record<string, unknown>): JsonDiagnostic[] {
  if (!declared) return []
  const { entry, keys } = declared
  const takes = keys.length > 0 ? `${entry} declares ${keys.map((k) => `\`${k}\``).join(', ')}.` : `${entry} declares no parameters.`
  return Object.keys(args).filter((k) => !keys.includes(k)).map((key) => {
    const near = closest(key, keys)
    return {
      severity: 'warning',
      code: 'CLI_ARGS_UNKNOWN_KEY',
      message: `--args key "${key}" is not a parameter of ${entry}, which ignores it${near ? ` (did you mean \`${near}\`?)` : ''}`,
      hint: `${takes[0]!.toUpperCase()}${takes.slice(1)} ${CLI_CODES.CLI_ARGS_UNKNOWN_KEY.hint}`,
    }
  })
}

/** The warnings for a program `ajsc run` runs (a proc_ token declares nothing the CLI can see). */
export function unknownArgKeys(program: AjsProgram | string, args: Record<string, unknown>): JsonDiagnostic[] {
  if (typeof program === 'string') return []
  const keys = declaredArgKeys(program)
  return argKeyWarnings(keys && { entry: program.name ? `\`${program.name}\`` : 'the program', keys }, args)
}
