/**
 * The CLI's view of the process: output streams, stdin, environment and
 * color. Commands receive a `CliIO` instead of touching `process` so they can
 * be run in-process by tests and never exit on their own.
 */
import { fstatSync, readFileSync } from 'node:fs'

export interface CliIO {
  out(text: string): void
  err(text: string): void
  /** Whole stdin as text. */
  readStdin(): Promise<string>
  /** True when stdin is a pipe or a redirected file (so `ajsc run x.ajs < args.json` reads it). */
  stdinHasData(): boolean
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
    stdinHasData: () => {
      try {
        const st = fstatSync(0)
        return st.isFIFO() || st.isFile()
      } catch {
        return false
      }
    },
    color: wantsColor(process.stderr, process.env),
    cwd: process.cwd(),
    env: process.env,
  }
}

/** Read a file as UTF-8, or throw a CliError naming it. */
export function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new CliError(code === 'ENOENT' ? `${path}: no such file` : `${path}: ${(e as Error).message}`, 1)
  }
}

/** An error the CLI reports as one line; `exitCode` 2 is a usage error, 1 a failure. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: 1 | 2 = 2) {
    super(message)
    this.name = 'CliError'
  }
}
