/**
 * One way to turn a CLI input into an AST: `.json` files are ASTs (checked
 * with validateAst), anything else is AJS source for the transpiler. The
 * atom names known to the transpiler are the core ones, the batteries and
 * any `--atoms` the user declares.
 */
import { transpile, type TranspileResult } from '../transpiler/index.ts'
import { validateAst, type AstProblem } from '../ast/validate.ts'
import type { AjsProgram } from '../ast/types.ts'
import { BATTERY_ATOM_NAMES } from '../batteries/names.ts'

export const isAstPath = (path: string): boolean => path.endsWith('.json')

/** Atom names for the transpiler: batteries plus user-declared ones (`--atoms a,b`). */
export function atomNames(extra: readonly string[] = []): string[] {
  return [...BATTERY_ATOM_NAMES, ...extra]
}

/** Transpile source; throws TranspileError. */
export function compileSource(source: string, filename: string, extraAtoms: readonly string[] = []): TranspileResult {
  return transpile(source, { filename, atoms: atomNames(extraAtoms) })
}

export type AstLoad = { ast: AjsProgram; problems: [] } | { ast?: undefined; problems: AstProblem[] | [{ path: string; message: string }] }

/** Parse and validate an AST file's text. */
export function loadAst(text: string): AstLoad {
  let ast: unknown
  try {
    ast = JSON.parse(text)
  } catch (e) {
    return { problems: [{ path: '', message: `not valid JSON: ${(e as Error).message}` }] }
  }
  const problems = validateAst(ast)
  return problems.length > 0 ? { problems } : { ast: ast as AjsProgram, problems: [] }
}

/** Split a comma-separated option value (`a,b, c`). */
export const splitList = (v: string | undefined): string[] => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)

/**
 * Remove source positions for the smallest output (`--minify`): `loc` on
 * steps and expression nodes and the root's `file`. Literal values are
 * copied untouched (a literal object may have a key named `loc`).
 */
export function stripLocations(ast: AjsProgram): AjsProgram {
  const { file: _file, ...rest } = ast as AjsProgram & { file?: string }
  return strip(rest) as AjsProgram
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip)
  if (value === null || typeof value !== 'object') return value
  const node = value as Record<string, unknown>
  if (node['$expr'] === 'literal') return node
  const isNode = typeof node['op'] === 'string' || typeof node['$expr'] === 'string'
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(node)) {
    if (k === 'loc' && isNode) continue
    out[k] = strip(v)
  }
  return out
}
