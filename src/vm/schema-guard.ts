/**
 * Input schemas come with the program, so they are guest data: a `pattern`
 * (or `format: 'email'`) in one runs on the host's backtracking RegExp inside
 * tosijs-schema, where neither fuel nor the deadline can reach. Before a
 * schema is used, every pattern in it passes the same static check as guest
 * regexes (unsafe or exponential shapes are refused, REGEX_UNSAFE), and each
 * check of a value is bounded before it runs: the worst-case backtracking
 * work, the sum over the value's strings of length^degree, must stay within
 * the regex step budget, or the value is refused (ARGS_INVALID).
 */
import { vmError } from './errors.ts'
import { regexSupport } from './builtins/regex-hook.ts'

/** The regex tosijs-schema runs for `format: 'email'`. */
const EMAIL_PATTERN = '^\\S+@\\S+\\.\\S+$'
const MAX_SCHEMA_NODES = 10_000

/** Highest backtracking degree of the patterns in `schema` (0: none); throws REGEX_UNSAFE for a pattern no input makes safe. */
function patternDegree(schema: unknown): number {
  let degree = 0
  let nodes = 0
  const visit = (v: unknown, depth: number): void => {
    if (v === null || typeof v !== 'object') return
    if (++nodes > MAX_SCHEMA_NODES || depth > 100) throw vmError('ARGS_INVALID', 'The input schema is too large to check')
    if (Array.isArray(v)) { for (const x of v) visit(x, depth + 1); return }
    const o = v as Record<string, unknown>
    const pattern = typeof o.pattern === 'string' ? o.pattern : o.format === 'email' ? EMAIL_PATTERN : undefined
    if (pattern !== undefined) {
      const r = regexSupport()
      const re = r.make(pattern, o.format === 'emoji' ? 'u' : '')
      if (re.inputCap() < 0) throw vmError('REGEX_UNSAFE', `Input schema pattern /${pattern.slice(0, 60)}/ can take exponential time`)
      degree = Math.max(degree, r.degree(pattern, ''), 1)
    }
    for (const k of Object.keys(o)) if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') visit(o[k], depth + 1)
  }
  visit(schema, 0)
  return degree
}

/** Work the host regex may do on `value`: sum of length^degree over its strings (stops past the budget). */
function regexWork(value: unknown, degree: number, budget: number): number {
  let work = 0
  const visit = (v: unknown): void => {
    if (work > budget) return
    if (typeof v === 'string') { work += v.length ** degree; return }
    if (v === null || typeof v !== 'object') return
    if (Array.isArray(v)) { for (const x of v) visit(x); return }
    for (const k of Object.keys(v)) visit((v as Record<string, unknown>)[k])
  }
  visit(value)
  return work
}

/**
 * The guard of a schema, made once per schema: `null` when it has no
 * pattern; otherwise a check to call on each value before validating it.
 */
export function schemaGuard(schema: unknown): ((value: unknown) => void) | null {
  const degree = patternDegree(schema)
  if (degree === 0) return null
  const budget = regexSupport().stepBudget
  return (value) => {
    if (regexWork(value, degree, budget) > budget) {
      throw vmError('ARGS_INVALID', `The arguments' strings are too long for the input schema's patterns (worst case over ${budget} regex steps); shorten them or drop the pattern`)
    }
  }
}
