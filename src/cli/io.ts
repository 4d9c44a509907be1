/**
 * The CLI's view of the process (streams, stdin, environment, color) and the
 * conventions every `ajsc` command follows. Commands receive a `CliIO`
 * instead of touching `process`, so tests run them in-process, and they never
 * exit on their own (only main.ts calls process.exit).
 *
 * Conventions (new commands: use these helpers, see report.ts):
 * - Exit codes (`EXIT`): 0 ok; 1 the command line is fine but an input, the
 *   program or the run failed; 2 the command line itself is wrong (unknown
 *   command or flag, missing or malformed flag value, conflicting flags).
 *   Throw `new CliError(code, message)` with a code of
 *   src/diagnostics/cli-codes.ts: the code decides the exit status.
 * - Channels: stdout carries only the command's product (an AST, a result,
 *   the `--json` report); every diagnostic and progress line goes to stderr.
 * - `--json`: exactly one JSON object on stdout for every outcome, errors
 *   and usage errors included: `{ command, ok, exitCode, diagnostics, ...}`
 *   where each diagnostic is `{ severity, code, message, hint?, file?,
 *   line?, column?, path?, op?, frame? }`, `line`/`column` 1-based as in the
 *   text output, `file` relative to the working directory. Build it with a
 *   `Reporter` (report.ts): `add()` diagnostics, `finish(payload)`.
 * - Hints name CLI flags (`--fuel`, `--timeout`, `--allow-private`), not
 *   library options: `cliHint` in report.ts translates them.
 */
import { readFileSync } from 'node:fs'
import { CLI_CODES, type CliCode } from '../diagnostics/cli-codes.ts'
import { notFoundHint } from './not-found.ts'

export const EXIT = Object.freeze({ ok: 0, failure: 1, usage: 2 } as const)

export interface CliIO {
  out(text: string): void
  err(text: string): void
  /** Whole stdin as text (only read when the user asked: `-` or `--args -`). */
  readStdin(): Promise<string>
  /** True when stdin is a terminal (an interactive `ajsc repl`). */
  stdinIsTTY?: boolean
  /** Colors for stderr diagnostics. */
  color: boolean
  cwd: string
  env: Readonly<Record<string, string | undefined>>
}

/** Colors only on a terminal, never with NO_COLOR set to a non-empty value (https://no-color.org). */
export function wantsColor(stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false
  if (env['TERM'] === 'dumb') return false
  return stream.isTTY === true
}

/** The real process. */
export function processIO(): CliIO {
  return {
    out: (text) => { process.stdout.write(text) },
    err: (text) => { process.stderr.write(text) },
    readStdin: () => new Promise((resolve, reject) => {
      const chunks: Buffer[] = []
      process.stdin.on('data', (c: Buffer) => chunks.push(c))
      process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      process.stdin.on('error', reject)
    }),
    stdinIsTTY: process.stdin.isTTY === true,
    color: wantsColor(process.stderr, process.env),
    cwd: process.cwd(),
    env: process.env,
  }
}

/** Read a file as UTF-8, or throw a CliError naming it (as the user wrote it: `shown`). */
export function readText(path: string, shown: string = path): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new CliError('CLI_NOT_FOUND', `${shown}: no such file`, { file: shown, hint: notFoundHint(path, shown) })
    if (code === 'EISDIR') throw new CliError('CLI_READ', `${shown} is a directory`, { file: shown, hint: 'Name one file here; `ajsc check` and `ajsc build` take directories (every .ajs inside).' })
    throw new CliError('CLI_READ', `${shown}: ${(e as Error).message}`, { file: shown })
  }
}

/**
 * An error `ajsc` reports itself (not a compile or run diagnostic). The code
 * (src/diagnostics/cli-codes.ts) fixes the exit status and the default hint.
 */
export class CliError extends Error {
  override name = 'CliError'
  readonly code: CliCode
  readonly exitCode: 1 | 2
  readonly hint: string
  readonly file: string | undefined
  /** 1-based position in `file`, when known (e.g. where an --atoms module threw). */
  readonly line: number | undefined
  readonly column: number | undefined
  /** Code frame of `file` around the position, when the text is at hand (a JSON syntax error). */
  readonly frame: string | undefined

  constructor(code: CliCode, message: string, extra: { hint?: string; file?: string; line?: number; column?: number; frame?: string } = {}) {
    super(message)
    this.code = code
    this.exitCode = CLI_CODES[code].exit
    this.hint = extra.hint ?? CLI_CODES[code].hint
    this.file = extra.file
    this.line = extra.line
    this.column = extra.column
    this.frame = extra.frame
  }
}

/** A usage error (exit 2): the command line is wrong. */
export const usageError = (message: string, hint?: string): CliError => new CliError('CLI_USAGE', message, hint ? { hint } : {})
