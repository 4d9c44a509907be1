/**
 * Custom atoms of the server: host modules of defineAtom exports named by
 * the config's `atoms` (and `ajsc serve --atoms`). Atoms are functions, so
 * they cannot be sent to a worker thread: the host imports the modules once
 * at start-up (to fail the start, not a run, when one is broken, and to
 * learn the names procedures compile against), and every pool worker
 * imports the same absolute paths itself. Loading is the hosts' shared loader (src/host),
 * so the errors carry the CLI's codes (CLI_ATOMS_NOT_FOUND, CLI_ATOMS_LOAD, ...).
 */
import { loadHostAtoms } from '../host/atoms-module.ts'
import type { AtomDef } from '../vm/atoms/types.ts'
import { checkTenantAtoms, type ServeConfig } from './config.ts'

export interface ServerAtoms {
  /** Absolute paths of the modules (what the pool workers import). */
  modules: string[]
  /** The atoms, in module order. */
  atoms: AtomDef[]
}

export const NO_ATOMS: ServerAtoms = Object.freeze({ modules: [], atoms: [] }) as ServerAtoms

/** Import the config's atom modules (throws an AtomsModuleError with the CLI's codes) and check the tenants' allowlists against them (ServeConfigError). */
export async function loadServerAtoms(config: ServeConfig): Promise<ServerAtoms> {
  if (config.atoms.length === 0) {
    checkTenantAtoms(config, [])
    return NO_ATOMS
  }
  const { atoms } = await loadHostAtoms(config.atoms, process.cwd())
  checkTenantAtoms(config, atoms.map((a) => a.op))
  return { modules: [...config.atoms], atoms }
}

/** The custom atoms one tenant may call: all of them, or those its `atoms` allowlist names. */
export function atomsOfTenant<T extends { op: string }>(atoms: readonly T[], allow: readonly string[] | undefined): T[] {
  return allow === undefined ? [...atoms] : atoms.filter((a) => allow.includes(a.op))
}
