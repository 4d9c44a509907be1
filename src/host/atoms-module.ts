/**
 * Host modules of custom atoms, for every host that loads them from paths
 * (the CLI's `--atoms`, the server's config `atoms` and its pool workers).
 *
 * `--atoms`: the custom atoms a command knows. Each value (the flag may be
 * repeated, and a value may hold several items separated by commas) is
 * either atom names (`--atoms weather,geocode`: enough to compile) or a host
 * module of atoms (`--atoms ./atoms.mjs`: the names to compile and the atoms
 * themselves, so `ajsc run` can install them on its VM). A module is what a
 * user of the library writes: named exports made with `defineAtom`, or a
 * default export that is an array or an object of them. Other exports are
 * ignored; a module without any atom is an error.
 */
import { existsSync } from 'node:fs'
import { extname, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { AtomDef } from '../vm/atoms/types.ts'
import { AgentVM } from '../vm/agent-vm.ts'
import { CLI_CODES } from '../diagnostics/cli-codes.ts'

/** The codes a loader error carries (the CLI's codes, so every host reports the same ones). */
export type AtomsModuleCode = 'CLI_ATOMS_NOT_FOUND' | 'CLI_ATOMS_LOAD' | 'CLI_ATOMS_NONE' | 'CLI_ATOMS_INVALID'

/**
 * Why a module of atoms could not be loaded: a stable code, the module item
 * as written (`file`), where in it when known, and a hint (the code's default
 * hint unless a more precise one applies). The CLI turns it into its CliError.
 */
export class AtomsModuleError extends Error {
  override name = 'AtomsModuleError'
  readonly code: AtomsModuleCode
  readonly hint: string
  readonly file: string
  readonly line: number | undefined
  readonly column: number | undefined

  constructor(code: AtomsModuleCode, message: string, extra: { file: string; hint?: string; line?: number; column?: number }) {
    super(message)
    this.code = code
    this.hint = extra.hint ?? CLI_CODES[code].hint
    this.file = extra.file
    this.line = extra.line
    this.column = extra.column
  }
}

export interface HostAtoms {
  /** Every name the transpiler may accept: declared names and the op of each module atom. */
  names: string[]
  /** The atoms of the modules, for the VM (empty when only names were given). */
  atoms: AtomDef[]
  /** The module items as the user wrote them. */
  modules: string[]
}

/** The flag's value(s) as commander collects them: one string, or one per `--atoms`. */
export type AtomsFlag = string | readonly string[] | undefined

const MODULE_EXTENSION = /\.(?:[cm]?js|[cm]?ts)$/
const TS_EXTENSION = /\.[cm]?ts$/

/** A path to a module (by extension, or written as a path), not an atom name. */
export const isModuleItem = (item: string): boolean =>
  MODULE_EXTENSION.test(item) || /^\.{0,2}[\\/]/.test(item) || /^[A-Za-z]:[\\/]/.test(item)

/** Recognise an atom the way AgentVM does: an object with a string `op` and a function `fn` (what defineAtom returns). */
export const isAtom = (value: unknown): value is AtomDef =>
  typeof value === 'object' && value !== null && typeof (value as AtomDef).op === 'string' && typeof (value as AtomDef).fn === 'function'

/** Read every `--atoms` value: names as declared, modules imported (in order). */
export async function loadHostAtoms(flag: AtomsFlag, cwd: string): Promise<HostAtoms> {
  const values = flag === undefined ? [] : typeof flag === 'string' ? [flag] : flag
  const items = values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean)
  const names: string[] = []
  const byOp = new Map<string, { atom: AtomDef; from: string }>()
  const modules: string[] = []
  for (const item of items) {
    if (!isModuleItem(item)) {
      names.push(item)
      continue
    }
    modules.push(item)
    for (const atom of await loadAtomsModule(item, cwd)) {
      const seen = byOp.get(atom.op)
      if (seen && seen.atom !== atom) {
        throw new AtomsModuleError('CLI_ATOMS_INVALID', `two atoms are named "${atom.op}" (in ${seen.from} and ${item})`, { file: item, hint: 'Give each atom its own name, or load only one of the modules.' })
      }
      byOp.set(atom.op, { atom, from: item })
    }
  }
  const atoms = [...byOp.values()].map((v) => v.atom)
  return { names: [...new Set([...names, ...atoms.map((a) => a.op)])], atoms, modules }
}

/** The atoms one module exports (named exports, or a default array, object or atom). */
export function atomsOfModule(namespace: Record<string, unknown>, item: string): AtomDef[] {
  const found: AtomDef[] = []
  const add = (value: unknown): void => { if (isAtom(value) && !found.includes(value)) found.push(value) }
  for (const [key, value] of Object.entries(namespace)) if (key !== 'default') add(value)
  const fallback = namespace['default']
  if (Array.isArray(fallback)) fallback.forEach(add)
  else if (isAtom(fallback)) add(fallback)
  else if (typeof fallback === 'object' && fallback !== null) Object.values(fallback).forEach(add)
  const byOp = new Map<string, AtomDef>()
  for (const atom of found) {
    if (byOp.has(atom.op)) throw new AtomsModuleError('CLI_ATOMS_INVALID', `two different atoms are named "${atom.op}"`, { file: item, hint: 'Give each atom its own name (the first argument of defineAtom).' })
    byOp.set(atom.op, atom)
  }
  if (found.length === 0) {
    const exported = Object.keys(namespace)
    throw new AtomsModuleError('CLI_ATOMS_NONE', `the module exports no atoms${exported.length ? ` (its exports: ${exported.join(', ')})` : ''}`, { file: item })
  }
  try {
    // The VM's own check (language ops cannot be replaced), reported before anything compiles.
    new AgentVM(found)
  } catch (e) {
    throw new AtomsModuleError('CLI_ATOMS_INVALID', (e as Error).message.replace(/^AgentVM: /, ''), { file: item })
  }
  return found
}

/** Import one module of atoms. */
export async function loadAtomsModule(item: string, cwd: string): Promise<AtomDef[]> {
  const path = resolve(cwd, item)
  if (!existsSync(path)) throw new AtomsModuleError('CLI_ATOMS_NOT_FOUND', `no such module (looked for ${path})`, { file: item })
  let namespace: Record<string, unknown>
  try {
    // The operator's own host code, named on the command line: it runs with the
    // same trust as the command line itself (never guest input, never sandboxed).
    namespace = await import(pathToFileURL(path).href) as Record<string, unknown>
  } catch (e) {
    throw loadError(e, item, path)
  }
  return atomsOfModule(namespace, item)
}

/** Why an import failed, in the user's terms: the error the module threw (and where), or Node refusing TypeScript. */
function loadError(e: unknown, item: string, path: string): AtomsModuleError {
  const code = (e as { code?: unknown } | null)?.code
  if (TS_EXTENSION.test(extname(path)) && typeof code === 'string' && /UNKNOWN_FILE_EXTENSION|TYPESCRIPT|TYPE_STRIPPING/.test(code)) {
    return new AtomsModuleError('CLI_ATOMS_LOAD', `this runtime cannot import a TypeScript module (${code})`, {
      file: item,
      hint: `Compile it to JavaScript (e.g. \`npx esbuild ${item} --format=esm --outfile=${item.replace(TS_EXTENSION, '.mjs')}\`) and pass the .mjs, or run ajsc with Bun (\`bunx --bun ajsc ...\`), which imports TypeScript directly.`,
    })
  }
  // Bun reports a syntax error as a BuildMessage and an unresolved import as a ResolveMessage.
  const name = e instanceof Error ? (e.name === 'BuildMessage' ? 'SyntaxError' : e.name === 'ResolveMessage' ? 'Error' : e.name) : ''
  const described = e instanceof Error ? `${name === 'Error' ? '' : `${name}: `}${e.message}` : `it threw ${JSON.stringify(e) ?? String(e)}`
  const where = e instanceof Error ? locationIn(e, path) : undefined
  const run = TS_EXTENSION.test(path) ? 'bun' : 'node'
  return new AtomsModuleError('CLI_ATOMS_LOAD', `the module failed to load: ${described}`, {
    file: item,
    ...where,
    hint: `Fix the module (\`${run} ${item}\` runs it alone and shows the error); ajsc imports it as your own host code.`,
  })
}

/**
 * Where in the module it failed: Bun's syntax errors carry a `position`;
 * otherwise the first stack frame inside the module (Node names only the
 * line of a syntax error).
 */
function locationIn(e: Error, path: string): { line: number; column?: number } | undefined {
  const position = (e as { position?: { file?: unknown; line?: unknown; column?: unknown } }).position
  if (position && position.file === path && typeof position.line === 'number') {
    return { line: position.line, ...(typeof position.column === 'number' ? { column: position.column } : {}) }
  }
  const stack = typeof e.stack === 'string' ? e.stack : ''
  for (const name of [pathToFileURL(path).href, path]) {
    const at = stack.indexOf(`${name}:`)
    if (at < 0) continue
    const m = /^:(\d+)(?::(\d+))?/.exec(stack.slice(at + name.length))
    if (m) return { line: Number(m[1]), ...(m[2] ? { column: Number(m[2]) } : {}) }
  }
  return undefined
}
