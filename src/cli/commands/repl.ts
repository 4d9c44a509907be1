/**
 * `ajsc repl`: an interactive AJS prompt. Each entry is compiled and run on
 * the VM like a tiny program; the variables it declares live on in later
 * entries (they are plain data: passed in as the next entry's parameters
 * and returned from it), as does the in-memory store. Unfinished input (an
 * open bracket or string) continues on the next line. Dot commands: .help,
 * .fuel [n], .vars, .clear, .exit. History is kept in ~/.ajsc_history
 * (AJSC_HISTORY names another file; empty disables it).
 */
import { createInterface } from 'node:readline'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { Command } from 'commander'
import { TranspileError } from '../../diagnostics/index.ts'
import { EXIT, type CliIO } from '../io.ts'
import { compileSource } from '../compile.ts'
import { formatDiagnostic, fromAgentError, fromTranspileError, type JsonDiagnostic } from '../report.ts'
import { palette } from '../colors.ts'
import { runAtomsOption, intOption } from '../options.ts'
import { DEFAULT_RUN_TIMEOUT_MS, guestConsole, printWarnings, runAtoms, setupFromFlags, type SetupFlags } from './run.ts'
import type { AtomsFlag, CliAtoms } from '../atoms-module.ts'
import { bodyWithValue, declaredNames, isIncomplete, typedBack } from '../snippet.ts'
import { valueText } from '../value-text.ts'

export interface ReplOptions extends SetupFlags {
  fuel?: string
  atoms?: AtomsFlag
}

const HELP = `Type AJS statements; the value of the last expression is printed.
Variables declared with let/const stay for the next entries. Unfinished input continues on the next line.
  .help         this help
  .fuel [n]     fuel used by the last entry and in total; with n, the budget per entry
  .vars         the variables kept so far
  .clear        forget all variables
  .exit         leave (or Ctrl-D)
`

/** One REPL session: variables and fuel carried from entry to entry. */
export class ReplSession {
  vars: Record<string, unknown> = {}
  fuelBudget: number
  lastFuel = 0
  totalFuel = 0
  private readonly setup: ReturnType<typeof setupFromFlags>
  private readonly atomNames: readonly string[]

  /** `atoms`: those of `--atoms` modules (runAtoms), callable from every entry. */
  constructor(opts: ReplOptions, private readonly io: CliIO, atoms: CliAtoms = { names: [], atoms: [], modules: [] }) {
    this.fuelBudget = intOption(opts.fuel, '--fuel', 1) ?? 1000
    this.setup = setupFromFlags(opts, io, atoms.atoms)
    this.atomNames = atoms.names
  }

  /** Run one entry: its printed value, or the diagnostics that stopped it. */
  async evaluate(code: string): Promise<{ value?: unknown; diagnostics: JsonDiagnostic[] }> {
    const declared = new Set(declaredNames(code))
    // Names declared again in this entry start fresh (a new `let x` replaces the old x).
    const carried = Object.keys(this.vars).filter((n) => !declared.has(n))
    const all = [...new Set([...carried, ...declared])]
    const body = bodyWithValue(code)
    // async, so `await` works at the prompt's top level.
    const prefix = `async function entry({ ${carried.join(', ')} }) { `
    const source = `${prefix}${body.source}\nreturn { value: __value, vars: { ${all.join(', ')} } }\n}\n`
    // Positions point into the entry as typed: line 1 loses the wrapper's columns.
    const unwrap = (d: JsonDiagnostic): JsonDiagnostic => typedBack(d, code, prefix.length, body)
    let ast
    try {
      ast = compileSource(source, '<repl>', this.atomNames, 20).ast
    } catch (e) {
      if (!(e instanceof TranspileError)) throw e
      return { diagnostics: fromTranspileError(e).map(unwrap) }
    }
    const args = Object.fromEntries(carried.map((n) => [n, this.vars[n]]))
    const r = await this.setup.vm.run(ast, args, { capabilities: this.setup.capabilities, fuel: this.fuelBudget, timeoutMs: DEFAULT_RUN_TIMEOUT_MS, onLog: guestConsole(this.io) })
    printWarnings(this.io, r.warnings)
    this.lastFuel = r.fuelUsed
    this.totalFuel = Math.round((this.totalFuel + r.fuelUsed) * 1e4) / 1e4
    if (r.error) {
      const d = unwrap(fromAgentError(r.error, { file: '<repl>', fuel: this.fuelBudget }))
      if (r.error.code === 'FUEL_EXHAUSTED') d.hint = `Raise the budget per entry with .fuel <n> (now ${this.fuelBudget}).`
      return { diagnostics: [d] }
    }
    const out = r.result as { value: unknown; vars: Record<string, unknown> }
    this.vars = { ...this.vars, ...out.vars }
    return { value: out.value, diagnostics: [] }
  }
}

function historyFile(io: CliIO): string | undefined {
  const configured = io.env['AJSC_HISTORY']
  if (configured === '') return undefined
  return configured ?? join(homedir(), '.ajsc_history')
}

export async function replCommand(opts: ReplOptions, io: CliIO): Promise<number> {
  const c = palette(io.color)
  const session = new ReplSession(opts, io, await runAtoms(opts.atoms, io))
  const file = historyFile(io)
  const history = file && existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).reverse().slice(0, 500) : []
  const terminal = io.stdinIsTTY === true
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal, history, historySize: 500, prompt: 'ajs> ' })
  const entered: string[] = []
  if (terminal) io.out(`ajs-lang REPL: .help for help, .exit or Ctrl-D to leave\n`)
  let buffer = ''
  const prompt = () => { if (terminal) rl.setPrompt(buffer ? '...  ' : 'ajs> '); if (terminal) rl.prompt() }
  const print = (d: JsonDiagnostic) => io.err(formatDiagnostic(d, c))

  const handle = async (line: string): Promise<boolean> => {
    if (!buffer && line.trim().startsWith('.')) {
      const [cmd, arg] = line.trim().split(/\s+/)
      if (cmd === '.exit') return false
      if (cmd === '.help') io.out(HELP)
      else if (cmd === '.vars') io.out(`${JSON.stringify(session.vars, null, 2)}\n`)
      else if (cmd === '.clear') { session.vars = {}; io.out('variables cleared\n') }
      else if (cmd === '.fuel') {
        if (arg !== undefined) {
          const n = Number(arg)
          if (Number.isInteger(n) && n > 0) session.fuelBudget = n
          else io.err(`.fuel takes a whole number > 0, got "${arg}"\n`)
        }
        io.out(`fuel: last ${session.lastFuel}, total ${session.totalFuel}, budget per entry ${session.fuelBudget}\n`)
      } else io.err(`unknown command ${cmd}; .help lists them\n`)
      return true
    }
    buffer = buffer ? `${buffer}\n${line}` : line
    if (isIncomplete(buffer)) return true
    const code = buffer
    buffer = ''
    if (code.trim() === '') return true
    entered.push(code.replace(/\n/g, ' '))
    const { value, diagnostics } = await session.evaluate(code)
    for (const d of diagnostics) print(d)
    if (diagnostics.length === 0 && value !== null && value !== undefined) io.out(`${valueText(value)}\n`)
    return true
  }

  // Lines are handled one at a time, in order, even when piped in faster than they run.
  let chain = Promise.resolve(true)
  prompt()
  await new Promise<void>((resolveDone) => {
    rl.on('line', (line) => {
      chain = chain.then(async (goOn) => {
        if (!goOn) return false
        const more = await handle(line)
        if (!more) rl.close()
        else prompt()
        return more
      })
    })
    rl.on('close', () => { void chain.then(() => resolveDone()) })
  })
  if (buffer.trim()) io.err('unfinished input was dropped\n')
  if (file && entered.length > 0) {
    try {
      const kept = (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []).concat(entered).slice(-500)
      writeFileSync(file, `${kept.join('\n')}\n`)
    } catch { /* history is a convenience; never fail the session for it */ }
  }
  return EXIT.ok
}

export function registerReplCommand(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program.command('repl')
    .description('an interactive AJS prompt: variables persist across lines; .help, .fuel, .vars; history in ~/.ajsc_history')
    .option('--fuel <n>', 'fuel budget per entry (default 1000; .fuel changes it)')
    .option('--allow-fetch <hosts>', 'grant httpFetch for these hosts')
    .option('--allow-private <hosts>', 'allow these private or loopback hosts')
    .option('--llm <url>', 'OpenAI-compatible endpoint for llmPredict')
    .option('--model <name>', 'model name for --llm')
    .addOption(runAtomsOption())
    .action(async (opts: ReplOptions) => setCode(await replCommand(opts, io)))
}
