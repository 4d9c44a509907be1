/**
 * `--mcp "<command>"` and `--mcp-url <url>` (both repeatable): the tools of
 * MCP servers as atoms for a command (code mode, issue 25). The servers are
 * opened in order; a later server's tool whose name an earlier one took is
 * renamed (reported as a warning).
 */
import { Option } from 'commander'
import type { McpAtom, McpAtomSet } from '../codemode/index.ts'
import { CliError, usageError } from './io.ts'
import { splitCommand } from './commands/flowlang-session.ts'

export interface McpFlags { mcp?: string[]; mcpUrl?: string[] }

const collect = (value: string, prev: string[] = []) => [...prev, value]
export const mcpOption = () => new Option('--mcp <command>', 'an MCP server to start over stdio; its tools become atoms (repeatable), e.g. --mcp "npx -y @modelcontextprotocol/server-everything"').argParser(collect)
export const mcpUrlOption = () => new Option('--mcp-url <url>', 'an MCP server over streamable HTTP; its tools become atoms (repeatable)').argParser(collect)

/** Whether any MCP server is named. */
export const usesMcp = (flags: McpFlags): boolean => (flags.mcp?.length ?? 0) + (flags.mcpUrl?.length ?? 0) > 0

/** Add --mcp and --mcp-url to a command. */
export const withMcpOptions = <C extends { addOption(o: Option): C }>(cmd: C): C => cmd.addOption(mcpOption()).addOption(mcpUrlOption())

export interface CliMcp {
  atoms: Record<string, McpAtom>
  /** Renamed tools as warning lines. */
  notes: string[]
  close(): Promise<void>
}

export async function openMcp(flags: McpFlags, cwd: string, taken: Iterable<string> = []): Promise<CliMcp> {
  const sets: McpAtomSet[] = []
  const atoms: Record<string, McpAtom> = {}
  const notes: string[] = []
  const used = new Set(taken)
  const close = async () => { await Promise.all(sets.map((s) => s.close())) }
  const sources = [
    ...(flags.mcp ?? []).map((cmd) => {
      const [command, ...args] = splitCommand(cmd)
      if (!command) throw usageError('--mcp needs a command, e.g. --mcp "npx -y @modelcontextprotocol/server-everything"')
      return { label: cmd, spec: { command, args, cwd } as const }
    }),
    ...(flags.mcpUrl ?? []).map((url) => {
      try { new URL(url) } catch { throw usageError(`--mcp-url needs a URL, got "${url}"`) }
      return { label: url, spec: { url } as const }
    }),
  ]
  try {
    for (const { label, spec } of sources) {
      let set: McpAtomSet
      try {
        // Code mode's MCP client loads with the first --mcp, not with every `ajsc`.
        const { mcpAtoms } = await import('../codemode/index.ts')
        set = await mcpAtoms(spec, { taken: used })
      } catch (e) {
        throw new CliError('CLI_MCP', `${label}: ${(e as Error).message}`)
      }
      sets.push(set)
      for (const [op, atom] of Object.entries(set.atoms)) { atoms[op] = atom; used.add(op) }
      for (const r of set.renamed) notes.push(`MCP tool "${r.tool}" of ${set.server} is the atom ${r.op} (${r.reason}${r.with ? ` with "${r.with}"` : ''})`)
    }
  } catch (e) {
    await close()
    throw e
  }
  return { atoms, notes, close }
}
