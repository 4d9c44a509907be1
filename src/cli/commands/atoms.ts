/**
 * `ajsc atoms`: the atoms a program may call, as TypeScript declarations
 * (for a model's prompt) or JSON tool descriptions: the tools of MCP servers
 * (--mcp, --mcp-url), custom atoms (--atoms) and, with --core, the core atoms.
 */
import type { Command } from 'commander'
import { Option } from 'commander'
import { describeAtoms } from '../../codemode/describe.ts'
import { coreAtoms } from '../../vm/index.ts'
import { closest } from '../../diagnostics/suggest.ts'
import { loadCliAtoms, type AtomsFlag } from '../atoms-module.ts'
import { usageError, type CliIO } from '../io.ts'
import { runAtomsOption } from '../options.ts'
import { Reporter } from '../report.ts'
import { mcpOption, mcpUrlOption, openMcp, type McpFlags } from '../mcp.ts'

export interface AtomsOptions extends McpFlags {
  format?: string
  json?: boolean
  atoms?: AtomsFlag
  core?: boolean
  only?: string
}

export async function atomsCommand(opts: AtomsOptions, io: CliIO): Promise<number> {
  const format = opts.format === undefined || opts.format === 'ts' || opts.format === 'typescript' ? 'typescript' : opts.format === 'json' ? 'json' : undefined
  if (!format) throw usageError(`--format must be ts or json, got "${opts.format}"`)
  const custom = (await loadCliAtoms(opts.atoms, io.cwd)).atoms
  const mcp = await openMcp(opts, io.cwd, custom.map((a) => a.op))
  try {
    for (const note of mcp.notes) io.err(`note: ${note}\n`)
    const all = [...(opts.core ? Object.values(coreAtoms) : []), ...custom, ...Object.values(mcp.atoms)]
    const only = opts.only?.split(',').map((s) => s.trim()).filter(Boolean)
    for (const name of only ?? []) checkOnly(name, all.map((a) => a.op), opts.core === true)
    const selected = only ? { only } : {}
    // --json: both forms in the one report (io.ts), --format json's list as `atoms`, the declarations as text.
    if (opts.json) return new Reporter(io, 'atoms', true).finish({ atoms: JSON.parse(describeAtoms(all, { format: 'json', ...selected })), declarations: describeAtoms(all, { format: 'typescript', ...selected }) })
    io.out(describeAtoms(all, { format, ...selected }) + (format === 'json' ? '\n' : ''))
    return 0
  } finally {
    await mcp.close()
  }
}

/** A name of --only that no listed atom has: a typo, or a core atom without --core. */
function checkOnly(name: string, listed: readonly string[], core: boolean): void {
  if (listed.includes(name)) return
  if (!core && Object.hasOwn(coreAtoms, name)) throw usageError(`--only ${name}: ${name} is a core atom, listed only with --core`, `Add --core: ajsc atoms --core --only ${name}`)
  const near = closest(name, [...listed, ...(core ? [] : Object.keys(coreAtoms))])
  throw usageError(`--only ${name}: no such atom${near ? ` (did you mean ${near}?)` : ''}`, 'Run `ajsc atoms` without --only (with --core, --atoms or --mcp as before) to list the atoms\' names.')
}

export function registerAtomsCommand(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program.command('atoms')
    .description('print the atoms a program may call as TypeScript declarations (for a prompt) or JSON: MCP tools, custom atoms, core atoms')
    .addOption(mcpOption())
    .addOption(mcpUrlOption())
    .addOption(runAtomsOption())
    .addOption(new Option('--format <format>', 'ts (TypeScript declarations with doc comments) or json').default('ts'))
    .option('--core', 'include the core atoms (storeGet, httpFetch, llmPredict, ...)')
    .option('--only <names>', 'only these atoms (comma-separated)')
    .option('--json', 'print one JSON report on stdout: the atoms as --format json lists them (`atoms`) and as TypeScript (`declarations`)')
    .action(async (opts: AtomsOptions) => setCode(await atomsCommand(opts, io)))
}
