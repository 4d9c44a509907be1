/** `ajsc ... --help` in-process, as a user reads it: for tests that hold the docs to the commands. */
import { runCli } from '../../src/cli/program.ts'

/** The help text of `ajsc <args> --help`. */
export async function helpOf(args: readonly string[]): Promise<string> {
  let out = ''
  await runCli([...args, '--help'], { out: (t) => { out += t }, err: () => {}, readStdin: async () => '', color: false, cwd: process.cwd(), env: {} })
  return out
}

/** The command names a help text lists under "Commands:" (without `help`). */
const commandNames = (text: string): string[] => {
  const at = text.indexOf('\nCommands:')
  return at < 0 ? [] : [...text.slice(at).matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]!).filter((c) => c !== 'help')
}

/** Every command a user can run ('run', 'flow run', ...; groups by their subcommands), with its help text. */
export async function everyCommand(): Promise<Map<string, string>> {
  const commands = new Map<string, string>()
  for (const c of commandNames(await helpOf([]))) {
    const text = await helpOf([c])
    const subs = commandNames(text)
    if (subs.length === 0) commands.set(c, text)
    for (const s of subs) commands.set(`${c} ${s}`, await helpOf([c, s]))
  }
  return commands
}
