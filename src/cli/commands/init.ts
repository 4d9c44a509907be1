/**
 * `ajsc init [dir]`: write a starter project (init-template.ts) into `dir`
 * (default: the working directory). Refuses a directory that already holds
 * any of the files, unless `--force`.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import type { Command } from 'commander'
import { CliError, type CliIO } from '../io.ts'
import { displayPath } from '../inputs.ts'
import { Reporter } from '../report.ts'
import { packageVersion } from '../../host/version.ts'
import { starterFiles } from '../init-template.ts'

export interface InitOptions {
  force?: boolean
  json?: boolean
}

export function initCommand(dir: string | undefined, opts: InitOptions, io: CliIO): number {
  const root = resolve(io.cwd, dir ?? '.')
  const name = basename(root).toLowerCase().replace(/[^a-z0-9-_.]/g, '-') || 'ajs-agents'
  const files = starterFiles(name, packageVersion())
  const clashes = Object.keys(files).filter((f) => existsSync(join(root, f)))
  if (clashes.length > 0 && !opts.force) {
    throw new CliError('CLI_EXISTS', `${displayPath(io.cwd, root) || '.'} already has ${clashes.join(', ')}`, { hint: 'Choose an empty directory (ajsc init my-agents), or overwrite with --force.' })
  }
  for (const [file, text] of Object.entries(files)) {
    const path = join(root, file)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, text)
  }
  const shown = root === io.cwd ? '.' : displayPath(io.cwd, root)
  if (!opts.json) {
    io.err(`created ${Object.keys(files).length} files in ${shown}\n`)
    io.err(`next:${root === io.cwd ? '' : `\n  cd ${shown}`}\n  npm install\n  npm test\n  npx ajsc run agents/greet.ajs --args '{"name":"Ada"}'\n`)
  }
  return new Reporter(io, 'init', opts.json === true).finish({ dir: shown, files: Object.keys(files) })
}

export function registerInitCommand(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program.command('init')
    .description('create a starter project: an agent, a test, and the esbuild plugin set up')
    .argument('[dir]', 'directory to create it in (default: the working directory)')
    .option('--force', 'overwrite files that already exist')
    .option('--json', 'print one JSON report on stdout')
    .action((dir: string | undefined, opts: InitOptions) => setCode(initCommand(dir, opts, io)))
}
