/**
 * `ajsc run --args` keys the program does not declare: a misspelled one
 * (`{"nme":"x"}` for `function greet({ name = 'World' })`) would otherwise
 * run silently with the default. The keys an entry declares come from its
 * inputSchema (what the transpiler writes for the parameters, or a schema a
 * builder gave) or else its parameter pattern; a program that takes any key
 * (a `...rest` parameter, a Python block's `args`, a schema whose
 * `additionalProperties` is `true` or a schema, as transpiler/typecheck.ts
 * reads it) gets no warning. The warning changes neither result nor exit.
 */
import type { AjsProgram } from '../ast/types.ts'
import { CLI_CODES } from '../diagnostics/cli-codes.ts'
import { closest } from '../vm/suggest.ts'
import { paramNames, type JsonDiagnostic } from './report.ts'

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

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

/** One warning per key of `args` the program does not declare, with the declared key it is closest to. */
export function unknownArgKeys(program: AjsProgram | string, args: Record<string, unknown>): JsonDiagnostic[] {
  if (typeof program === 'string') return []
  const declared = declaredArgKeys(program)
  if (!declared) return []
  const entry = program.name ? `\`${program.name}\`` : 'the program'
  const takes = declared.length > 0 ? `${entry} declares ${declared.map((k) => `\`${k}\``).join(', ')}.` : `${entry} declares no parameters.`
  return Object.keys(args).filter((k) => !declared.includes(k)).map((key) => {
    const near = closest(key, declared)
    return {
      severity: 'warning',
      code: 'CLI_ARGS_UNKNOWN_KEY',
      message: `--args key "${key}" is not a parameter of ${entry}, which ignores it${near ? ` (did you mean \`${near}\`?)` : ''}`,
      hint: `${takes} ${CLI_CODES.CLI_ARGS_UNKNOWN_KEY.hint}`,
    }
  })
}
