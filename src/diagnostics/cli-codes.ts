/**
 * Stable codes of the errors `ajsc` itself reports (before or around a
 * compile or a run): bad command lines, missing inputs, unreadable files.
 * Each code fixes its exit status, so the exit-code rule lives in one table:
 * 2 when the command line is wrong, 1 when the command line is fine but an
 * input, the program or the run fails; 0 marks a warning, which leaves the
 * exit status to the command. Part of the one registry with `codes.ts`
 * (transpiler) and `runtime-codes.ts` (VM).
 */

export interface CliCodeSpec {
  exit: 0 | 1 | 2
  message: string
  hint: string
}

export const CLI_CODES = {
  CLI_USAGE: { exit: 2, message: 'Invalid command line', hint: 'Run `ajsc <command> --help` for the options of the command.' },
  CLI_NOT_FOUND: { exit: 1, message: 'No such file or directory', hint: 'Check the path; it is resolved from the working directory.' },
  CLI_NO_INPUTS: { exit: 1, message: 'No input files', hint: 'Name .ajs files, a directory that contains some, or a glob such as "src/**/*.ajs".' },
  CLI_READ: { exit: 1, message: 'Cannot read the input', hint: 'Check the file permissions and that it is text (UTF-8).' },
  CLI_WRITE: { exit: 1, message: 'Cannot write the output', hint: 'Check that the output directory is writable.' },
  CLI_EXISTS: { exit: 1, message: 'The files exist already', hint: 'Choose an empty directory, or overwrite with --force.' },
  CLI_BAD_JSON: { exit: 1, message: 'Not valid JSON', hint: 'Pass a JSON object, for example --args \'{"name":"World"}\'.' },
  CLI_CONFIG: { exit: 1, message: 'The config file is JSON but not a valid config', hint: 'Fix the key the message names (at the marker); docs/serve.md describes every key of the config file.' },
  CLI_ATOMS_NOT_FOUND: { exit: 1, message: 'No such atoms module', hint: 'The path after --atoms is resolved from the current directory; write it as ./atoms.mjs or an absolute path.' },
  CLI_ATOMS_LOAD: { exit: 1, message: 'The atoms module failed to load', hint: 'Fix the error in the module (run it alone with `node atoms.mjs` to see it); ajsc imports it as your own host code.' },
  CLI_ATOMS_NONE: { exit: 1, message: 'The atoms module exports no atoms', hint: "Export atoms made with defineAtom: `export const myAtom = defineAtom('myAtom', s.object({ ... }), s.any, async (input) => ...)`, or `export default [atomA, atomB]`." },
  CLI_ATOMS_INVALID: { exit: 1, message: 'The atoms module exports atoms the VM cannot take', hint: 'Give each atom its own name, and none of a language op (if, while, seq, ...).' },
  CLI_MCP: { exit: 1, message: 'Cannot use the MCP server', hint: 'Check the command after --mcp (it must start an MCP server speaking stdio; run it alone to see its errors) or the URL after --mcp-url (a streamable HTTP endpoint, usually ending in /mcp).' },
  CLI_MIGRATE_NEEDED: { exit: 1, message: 'The AST is in the seed dialect', hint: 'Run `ajsc migrate <files>` without --check to rewrite it to ajs/1.' },
  CLI_DATABASE: { exit: 1, message: 'Cannot use the database', hint: 'Check that PostgreSQL runs and accepts connections at the --database URL (host, port, user, password, database name); `psql "<url>" -c "select 1"` tests the same URL.' },
  CLI_MISSING_DEPENDENCY: { exit: 1, message: 'An optional dependency of ajs-lang is not installed', hint: 'Install the packages the message names with the command it gives; docs/packaging.md lists what each feature needs.' },
  CLI_ARGS_UNKNOWN_KEY: { exit: 0, message: 'An --args key the program does not declare (a warning: the run goes on without it)', hint: 'Fix the key\'s spelling, or leave it out: the program reads only the parameters its entry function declares.' },
  CLI_INTERNAL: { exit: 1, message: 'Internal error in ajsc', hint: 'Please report it with the command line that caused it.' },
} as const satisfies Record<string, CliCodeSpec>

/** The codes of errors (a `CliError` takes only these; its code decides the exit status). */
export type CliCode = { [K in keyof typeof CLI_CODES]: (typeof CLI_CODES)[K]['exit'] extends 0 ? never : K }[keyof typeof CLI_CODES]
