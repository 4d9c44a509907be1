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
import { checkTenantAtoms, ServeConfigError, type ServeConfig } from './config.ts'
import { BUDGET_ATOM_NAMES } from '../codemode/budget-atoms.ts'
import { openServerMcp, type ServerMcp } from './mcp.ts'

export interface ServerAtoms {
  /** Absolute paths of the modules (what the pool workers import). */
  modules: string[]
  /** The atoms, in module order, then the MCP servers' tools (the host's own, connected). */
  atoms: AtomDef[]
  /** The config's MCP servers, connected by the host (absent: none). */
  mcp?: ServerMcp
}

export const NO_ATOMS: ServerAtoms = Object.freeze({ modules: [], atoms: [] }) as ServerAtoms

/**
 * Import the config's atom modules (throws an AtomsModuleError with the CLI's codes), connect to
 * its MCP servers (CLI_MCP), and check the tenants' allowlists against both (ServeConfigError).
 * Close `mcp` when done (the host does).
 */
export async function loadServerAtoms(config: ServeConfig): Promise<ServerAtoms> {
  if (config.atoms.length === 0 && !config.mcp?.length) {
    checkTenantAtoms(config, [])
    return NO_ATOMS
  }
  const { atoms } = config.atoms.length > 0 ? await loadHostAtoms(config.atoms, process.cwd()) : { atoms: [] as AtomDef[] }
  // A module's atom would replace the server's own budget atom in runs (and its nesting depth with it).
  const budget = atoms.find((a) => BUDGET_ATOM_NAMES.has(a.op))
  if (budget) throw new ServeConfigError('config.atoms', `${budget.op}: the budget atoms are the server's own (config "budgetTokens" gives runs budgetToken, budgetSettle and budgetRun, and workflows budgetToken and budgetSettle); a module may not define them`)
  const mcp = config.mcp?.length ? await openServerMcp(config.mcp, atoms.map((a) => a.op)) : undefined
  const all = [...atoms, ...(mcp?.atoms ?? [])]
  try {
    checkTenantAtoms(config, all.map((a) => a.op))
  } catch (e) {
    await mcp?.close()
    throw e
  }
  return { modules: [...config.atoms], atoms: all, ...(mcp ? { mcp } : {}) }
}

/** The custom atoms one tenant may call: all of them, or those its `atoms` allowlist names. */
export function atomsOfTenant<T extends { op: string }>(atoms: readonly T[], allow: readonly string[] | undefined): T[] {
  return allow === undefined ? [...atoms] : atoms.filter((a) => allow.includes(a.op))
}
