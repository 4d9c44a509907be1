/**
 * A host that cannot start (an MCP server that does not answer, ...): a
 * stable CLI code and a hint, thrown by host code below the CLI (the
 * server) and reported by `ajsc` as its own error, without the server
 * importing the CLI.
 */
import { CLI_CODES, type CliCode } from '../diagnostics/cli-codes.ts'

export class HostStartError extends Error {
  override name = 'HostStartError'
  readonly hint: string

  constructor(readonly code: CliCode, message: string, hint?: string) {
    super(message)
    this.hint = hint ?? CLI_CODES[code].hint
  }
}
