/**
 * `--atoms` for the CLI: the host loader (src/host/atoms-module.ts) with its
 * errors as CliErrors (same codes, messages, hints and positions), so the
 * reporter prints them like every other CLI error.
 */
import type { AtomDef } from '../vm/atoms/types.ts'
import {
  AtomsModuleError,
  atomsOfModule as hostAtomsOfModule,
  loadAtomsModule as hostLoadAtomsModule,
  loadHostAtoms,
  type AtomsFlag,
  type HostAtoms,
} from '../host/atoms-module.ts'
import { MissingDependencyError } from '../host/optional.ts'
import { CliError } from './io.ts'
import { HostStartError } from '../host/start-error.ts'
import { resolve } from 'node:path'
import { suggestPath } from './not-found.ts'

export { isAtom, isModuleItem, type AtomsFlag } from '../host/atoms-module.ts'
export type CliAtoms = HostAtoms

/** A loader error as the CLI's error; anything else unchanged. */
export function toCliError(e: unknown): unknown {
  if (e instanceof MissingDependencyError) return new CliError('CLI_MISSING_DEPENDENCY', e.message, { hint: e.hint })
  if (e instanceof HostStartError) return new CliError(e.code, e.message, { hint: e.hint })
  if (!(e instanceof AtomsModuleError)) return e
  return new CliError(e.code, e.message, {
    file: e.file,
    hint: e.hint,
    ...(e.line !== undefined ? { line: e.line } : {}),
    ...(e.column !== undefined ? { column: e.column } : {}),
  })
}

/** A missing module named with a typo: the hint names the nearest file that exists. */
function withSuggestion(e: unknown, cwd: string): unknown {
  if (!(e instanceof CliError) || e.code !== 'CLI_ATOMS_NOT_FOUND' || e.file === undefined) return e
  const near = suggestPath(resolve(cwd, e.file), e.file)
  return near === undefined ? e : new CliError(e.code, e.message, { file: e.file, hint: `Did you mean --atoms ${near}? ${e.hint}` })
}

/** Read every `--atoms` value: names as declared, modules imported (in order). */
export const loadCliAtoms = (flag: AtomsFlag, cwd: string): Promise<CliAtoms> =>
  loadHostAtoms(flag, cwd).catch((e: unknown) => { throw withSuggestion(toCliError(e), cwd) })

/** The atoms one module exports (named exports, or a default array, object or atom). */
export function atomsOfModule(namespace: Record<string, unknown>, item: string): AtomDef[] {
  try {
    return hostAtomsOfModule(namespace, item)
  } catch (e) {
    throw toCliError(e)
  }
}

/** Import one module of atoms. */
export const loadAtomsModule = (item: string, cwd: string): Promise<AtomDef[]> =>
  hostLoadAtomsModule(item, cwd).catch((e: unknown) => { throw withSuggestion(toCliError(e), cwd) })
