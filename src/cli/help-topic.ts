/**
 * `ajsc help <command>` (and `ajsc flow help <command>`): commander's help
 * command prints the whole help on stderr for a name that is no command, with
 * no 'unknown command' line, and ignores words after the first (`ajsc help
 * flow validate` showed flow's help). Read before commander parses: an
 * unknown topic is the same CLI_USAGE error, with did-you-mean, as `ajsc
 * frobnicate`, and a known one is the command line of that command's --help.
 */
import type { Command } from 'commander'
import { closest } from '../diagnostics/suggest.ts'
import { usageError, type CliError } from './io.ts'
import { usageHint } from './report.ts'

const named = (group: Command, word: string): Command | undefined => group.commands.find((c) => c.name() === word || c.aliases().includes(word))

/**
 * For `help` followed by words: a usage error when one names no command of
 * its group, else the argv asking that command for `--help`; undefined
 * without a `help` command word (commander handles the rest).
 */
export function helpTopic(argv: readonly string[], program: Command): CliError | string[] | undefined {
  const words = argv.filter((w) => !w.startsWith('-'))
  const path: string[] = []
  let group = program
  let i = 0
  // Down the command groups typed before `help` (`ajsc flow help run`); a command's own words end the walk.
  for (; words[i] !== 'help'; i++) {
    if (i === words.length) return undefined
    const sub = named(group, words[i]!)
    if (!sub || sub.commands.length === 0) return undefined
    path.push(words[i]!)
    group = sub
  }
  for (i++; i < words.length; i++) {
    const sub = named(group, words[i]!)
    if (!sub) {
      const near = closest(words[i]!, group.commands.map((c) => c.name()))
      return usageError(`unknown command '${words[i]}'${near ? ` (did you mean ${near}?)` : ''}`, usageHint(path.length > 0 ? path.join(' ') : 'ajsc'))
    }
    path.push(words[i]!)
    group = sub
  }
  return [...path, '--help']
}
