/**
 * One way to turn a CLI input into an AST: `.json` files are ASTs (checked
 * with validateAst), `.py` files Python blocks (python-source.ts), anything
 * else AJS source for the transpiler. The
 * atom names known to the transpiler are the core ones, the batteries and
 * any `--atoms` the user declares.
 */
import { transpile, type TranspileResult } from '../transpiler/index.ts'
import { validateAst, type AstProblem } from '../ast/validate.ts'
import type { AjsProgram } from '../ast/types.ts'
import { walk, type AstPath } from '../ast/walk.ts'
import { BATTERY_ATOM_NAMES } from '../batteries/names.ts'
import { jsonSyntaxAt, type JsonSyntaxAt } from './json-text.ts'

export const isAstPath = (path: string): boolean => path.endsWith('.json')

/** A Python block (python-source.ts): compiled by the Python frontend, which a command loads first with preparePython. */
export const isPythonPath = (path: string): boolean => /\.py$/i.test(path)
let compilePython: ((source: string, filename: string) => CliCompiled) | undefined

/** What a CLI input compiles to; `argsParam`: the one parameter the run's `--args` object is bound to whole (a Python block body's `args`). */
export interface CliCompiled extends TranspileResult {
  argsParam?: string
}

/**
 * Load the Python frontend when one of these inputs (files, or the globs naming them) is Python: our own
 * module, imported only then, so a command without `.py` inputs never loads the parser.
 */
export async function preparePython(inputs: readonly string[]): Promise<void> {
  if (compilePython || !inputs.some(isPythonPath)) return
  compilePython = (await import('./python-source.ts')).compilePythonSource
}

/** Atom names for the transpiler: batteries plus user-declared ones (`--atoms a,b`). */
export function atomNames(extra: readonly string[] = []): string[] {
  return [...BATTERY_ATOM_NAMES, ...extra]
}

/** Transpile source; throws TranspileError (carrying up to `maxErrors` refusals). */
export function compileSource(source: string, filename: string, extraAtoms: readonly string[] = [], maxErrors = 1, typed?: Readonly<Record<string, unknown>>): CliCompiled {
  if (isPythonPath(filename)) {
    if (!compilePython) throw new Error(`${filename}: the Python frontend was not loaded (preparePython)`)
    return compilePython(source, filename)
  }
  // With atoms that carry schemas (MCP tools, module atoms): type-checked against them (code mode).
  if (typed) return transpile(source, { filename, atoms: { ...Object.fromEntries(atomNames(extraAtoms).map((n) => [n, true])), ...typed } as never, maxErrors, typecheck: true })
  return transpile(source, { filename, atoms: atomNames(extraAtoms), maxErrors })
}

export type AstLoad = { ast: AjsProgram; problems: [] } | { ast?: undefined; problems: AstProblem[] | [{ path: string; message: string; at?: JsonSyntaxAt }] }

/** Parse and validate an AST file's text. */
export function loadAst(text: string): AstLoad {
  let ast: unknown
  try {
    ast = JSON.parse(text)
  } catch (e) {
    const at = jsonSyntaxAt(text)
    return { problems: [{ path: '', message: `not valid JSON: ${(e as Error).message}`, ...(at ? { at } : {}) }] }
  }
  const problems = validateAst(ast)
  return problems.length > 0 ? { problems } : { ast: ast as AjsProgram, problems: [] }
}

/** Split a comma-separated option value (`a,b, c`). */
export const splitList = (v: string | undefined): string[] => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)

/**
 * A source map of a minified AST: the positions `--minify` removed, keyed by
 * the JSON pointer of their node, and the source file. `ajsc run` puts them
 * back when it finds `<ast>.map` next to the AST, so a run-time error in a
 * minified AST still points at `file:line:col` of the source.
 */
export interface AstSourceMap {
  ajsmap: 1
  file?: string
  locs: Record<string, [number, number]>
}

export const sourceMapPath = (astPath: string): string => `${astPath}.map`

/** Serialize for `ajsc build`: pretty, compact, or minified (with the map of what was removed when `sourcemap`). */
export function serializeAst(ast: AjsProgram, opts: { pretty?: boolean; minify?: boolean; sourcemap?: boolean }): { text: string; map?: string } {
  if (!opts.minify) return { text: opts.pretty ? `${JSON.stringify(ast, null, 2)}\n` : `${JSON.stringify(ast)}\n` }
  const map: AstSourceMap = { ajsmap: 1, ...((ast as { file?: string }).file ? { file: (ast as { file?: string }).file } : {}), locs: {} }
  const text = `${JSON.stringify(stripLocations(ast, map.locs))}\n`
  return opts.sourcemap ? { text, map: `${JSON.stringify(map)}\n` } : { text }
}

/**
 * Put the positions of a source map back into a minified AST (a copy).
 * Pointers that no longer match a node are ignored: a map never changes
 * what a program does, only where its errors point.
 */
export function restoreLocations(ast: AjsProgram, map: AstSourceMap): AjsProgram {
  const copy = structuredClone(ast) as AjsProgram & { file?: string }
  if (map.file) copy.file = map.file
  for (const [pointer, loc] of Object.entries(map.locs)) {
    let node: unknown = copy
    for (const key of pointer.split('/').slice(1)) {
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined
    }
    if (node !== null && typeof node === 'object' && !Array.isArray(node)) (node as Record<string, unknown>)['loc'] = loc
  }
  return copy
}

/** True when `value` has the shape of an AstSourceMap. */
export function isAstSourceMap(value: unknown): value is AstSourceMap {
  return typeof value === 'object' && value !== null && (value as AstSourceMap).ajsmap === 1 && typeof (value as AstSourceMap).locs === 'object'
}

/**
 * Remove source positions for the smallest output (`--minify`): `loc` on
 * steps and expression nodes and the root's `file`. Literal values are
 * copied untouched (a literal object may have a key named `loc`). Removed
 * positions are recorded in `locs` by JSON pointer.
 */
export function stripLocations(ast: AjsProgram, locs?: Record<string, [number, number]>): AjsProgram {
  const { file: _file, ...rest } = structuredClone(ast) as AjsProgram & { file?: string }
  const take = (node: { loc?: [number, number] }, path: AstPath) => {
    if (node.loc === undefined) return
    if (locs && Array.isArray(node.loc)) locs[path.length === 0 ? '' : `/${path.map((k) => String(k).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`] = node.loc
    delete node.loc
  }
  take(rest, [])
  walk(rest, { step: take, expr: take })
  return rest
}
