/** Parsing of flag values; a malformed value given on the command line is a usage error (exit 2). */
import { statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Option } from 'commander'
import { CliError, readText, usageError, type CliIO } from './io.ts'
import { jsonSyntaxAt } from './json-text.ts'

/** A non-negative number, or undefined when the flag is absent. */
export function numberOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw usageError(`${flag} must be a non-negative number, got "${value}"`)
  return n
}

/**
 * `--timeout <ms>` of the commands that run a program: more than 0 (0 would
 * stop every run at once, where a user may have meant "no limit"), or the default when absent.
 */
export function timeoutOption(value: string | undefined, defaultMs: number): number {
  const n = numberOption(value, '--timeout')
  if (n === 0) throw usageError('--timeout must be more than 0 ms, got "0"', `Give the limit in ms, e.g. --timeout 5000; without the flag a run has ${defaultMs} ms.`)
  return n ?? defaultMs
}

/** `--llm`: an absolute http(s) URL, or undefined when the flag is absent. */
export function llmUrlOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  let url: URL | undefined
  try { url = new URL(value) } catch { url = undefined }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw usageError(`--llm must be an absolute http:// or https:// URL, got "${value}"`, 'Name the OpenAI-compatible endpoint with its scheme and path, e.g. --llm http://127.0.0.1:1234/v1 (LM Studio) or --llm http://127.0.0.1:11434/v1 (Ollama).')
  }
  return value
}

/** An integer >= `min`, or undefined when the flag is absent. */
export function intOption(value: string | undefined, flag: string, min = 0): number | undefined {
  const n = numberOption(value, flag)
  if (n !== undefined && (!Number.isInteger(n) || n < min)) throw usageError(`${flag} must be an integer >= ${min}, got "${value}"`)
  return n
}

/**
 * A JSON-object flag (`--args`, `--input`): inline JSON, `@file.json`, or `-`
 * for stdin. Absent: `{}`. Malformed inline JSON is a usage error (exit 2);
 * a bad file or stdin is an input error (exit 1).
 */
export async function jsonObjectFlag(opt: string | undefined, flag: string, io: CliIO): Promise<Record<string, unknown>> {
  if (opt === undefined) return {}
  const [text, from, code] = opt === '-' ? [await io.readStdin(), `stdin (${flag} -)`, 'CLI_BAD_JSON' as const]
    : opt.startsWith('@') ? [readText(resolve(io.cwd, opt.slice(1)), opt.slice(1)), opt.slice(1), 'CLI_BAD_JSON' as const]
      : [opt, flag, 'CLI_USAGE' as const]
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    // A file or stdin the user wrote: where the syntax breaks (inline JSON is one short line, shown in the message).
    const at = code === 'CLI_BAD_JSON' ? jsonSyntaxAt(text) : undefined
    throw (code === 'CLI_USAGE' ? pathGivenAsJson(opt, flag, io) : undefined)
      ?? new CliError(code, `${from} is not valid JSON: ${(e as Error).message}`, at ? { file: from, ...at } : {})
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new CliError(code, `${from} must be a JSON object`)
  return value as Record<string, unknown>
}

/**
 * Inline JSON that is a path (a newcomer's `--args /tmp/args.json`): the
 * error names the @ form when the file exists, or says it does not; other
 * malformed JSON gets undefined (the parser's message).
 */
function pathGivenAsJson(value: string, flag: string, io: CliIO): CliError | undefined {
  const home = io.env['HOME']
  // `--args=~/a.json` reaches us unexpanded, and `@~/a.json` would not be expanded by the shell either: name the expanded path.
  const shown = (value === '~' || value.startsWith('~/')) && home ? join(home, value.slice(1)) : value
  const stat = statSync(resolve(io.cwd, shown), { throwIfNoEntry: false })
  if (!stat && !/^(\/|\.\.?\/|~)/.test(value) && !value.endsWith('.json')) return undefined
  const takes = `${flag} takes JSON, @file.json or -`
  if (stat?.isFile()) return usageError(`${takes}: did you mean ${flag} @${shown}?`, `A file is read when its path starts with @: ${flag} @${shown}.`)
  const inline = `Pass the object inline (${flag} '{"key": "value"}')`
  if (stat) return usageError(`${takes}: "${value}" is not JSON, and it is a directory`, `${inline}, or name a JSON file in it: ${flag} @${join(shown, 'args.json')}.`)
  return usageError(`${takes}: "${value}" is not JSON, and no such file exists either`, `${inline}, or write the file and pass ${flag} @${shown}.`)
}

/** `--atoms <module|names>`, repeatable: commander collects every value (atoms-module.ts reads them). */
export const atomsOption = (description: string): Option => new Option('--atoms <module|names>', description)
  .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value])

/** `--atoms` of the commands that run a program: only modules, since the VM needs the atoms' code. */
export const runAtomsOption = (): Option => atomsOption('custom atoms to install on the VM: a module of defineAtom exports (./atoms.mjs); repeatable')
