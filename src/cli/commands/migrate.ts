/**
 * `ajsc migrate`: rewrites ASTs written in the seed's dialect (no `ajs`
 * marker) to "ajs/1" in place (or to `--outfile` for one input), reporting
 * every construct it changed. ASTs already in ajs/1 are left untouched.
 * `--check` writes nothing and fails (CLI_MIGRATE_NEEDED) when any input
 * still needs migrating. Exit 1 when an input is not JSON, not an AST the
 * migration reads (AST_INVALID, AST_VERSION), or its migration does not
 * validate; 2 for a wrong command line.
 */
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { migrateAst, type MigrationChange } from '../../vm/seed-dialect.ts'
import { validateAst } from '../../ast/validate.ts'
import { CliError, readText, usageError, type CliIO } from '../io.ts'
import { expandInputs } from '../inputs.ts'
import { fromAstProblems, fromCliError, Reporter } from '../report.ts'
import { palette } from '../colors.ts'

export interface MigrateOptions {
  outfile?: string
  check?: boolean
  json?: boolean
}

interface FileResult {
  file: string
  /** `migrated` (written), `needed` (--check), `current` (already ajs/1), `failed`. */
  status: 'migrated' | 'needed' | 'current' | 'failed'
  output?: string
  changes: MigrationChange[]
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

export function migrateCommand(inputs: string[], opts: MigrateOptions, io: CliIO): number {
  const c = palette(io.color)
  if (opts.outfile && opts.check) throw usageError('--outfile and --check cannot be used together', '--check writes nothing.')
  const files = expandInputs(inputs, io.cwd)
  if (opts.outfile && files.length !== 1) throw usageError(`--outfile takes one input (got ${files.length})`, 'Migrate several files in place (no --outfile).')
  const reporter = new Reporter(io, 'migrate', opts.json === true)
  const results: FileResult[] = []
  for (const file of files) {
    const result: FileResult = { file: file.display, status: 'failed', changes: [] }
    results.push(result)
    try {
      const text = readText(file.path, file.display)
      let ast: unknown
      try {
        ast = JSON.parse(text)
      } catch (e) {
        throw new CliError('CLI_BAD_JSON', `${file.display}: not valid JSON: ${(e as Error).message}`, { file: file.display, hint: 'migrate reads AST files (.json).' })
      }
      let migration
      try {
        migration = migrateAst(ast)
      } catch (e) {
        const err = e as { code?: string; message?: string; path?: string }
        reporter.add(...fromAstProblems([{ path: err.path ?? '', message: String(err.message), code: err.code ?? 'AST_INVALID' }], file.display))
        continue
      }
      const problems = validateAst(migration.ast)
      if (problems.length > 0) {
        reporter.add(...fromAstProblems(problems, file.display))
        continue
      }
      result.changes = migration.changes
      if (migration.changes.length === 0) {
        result.status = 'current'
        if (opts.outfile) {
          result.output = write(resolve(io.cwd, opts.outfile), opts.outfile, migration.ast)
        }
      } else if (opts.check) {
        result.status = 'needed'
        reporter.add(fromCliError(new CliError('CLI_MIGRATE_NEEDED', `${file.display}: in the seed dialect (${plural(migration.changes.length, 'construct')} to migrate)`, { file: file.display })))
      } else {
        const target = opts.outfile ? resolve(io.cwd, opts.outfile) : file.path
        result.output = write(target, opts.outfile ?? file.display, migration.ast)
        result.status = 'migrated'
      }
      if (!opts.json && result.status !== 'current') {
        for (const ch of migration.changes) io.err(`  ${c.dim(ch.path || '/')} ${ch.construct}: ${ch.message}\n`)
      }
      if (!opts.json) {
        const what = result.status === 'current' ? c.green('already ajs/1')
          : result.status === 'needed' ? c.red('needs migrating')
            : c.green(`migrated to ajs/1${result.output !== file.display ? ` → ${result.output}` : ''}`)
        io.err(`${file.display}: ${what}\n`)
      }
    } catch (e) {
      if (e instanceof CliError && e.code !== 'CLI_USAGE') reporter.add(fromCliError(e))
      else throw e
    }
  }
  if (!opts.json) {
    const migrated = results.filter((r) => r.status === 'migrated').length
    io.err(`${plural(files.length, 'file')}: ${plural(migrated, 'migrated file')}, ${reporter.errors ? c.red(plural(reporter.errors, 'error')) : c.green('no errors')}\n`)
  }
  return reporter.finish({ files: results, errors: reporter.errors })
}

function write(path: string, shown: string, ast: unknown): string {
  try {
    writeFileSync(path, `${JSON.stringify(ast, null, 2)}\n`)
  } catch (e) {
    throw new CliError('CLI_WRITE', `${shown}: ${(e as Error).message}`, { file: shown })
  }
  return shown
}
