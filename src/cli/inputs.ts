/**
 * Expands the CLI's input arguments into files: plain paths, directories
 * (every `.ajs` file below them) and globs (`*`, `**`, `?`, `{a,b}`), so
 * quoted globs work the same on every shell.
 */
import { readdirSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { CliError } from './io.ts'
import { notFoundHint } from './not-found.ts'

export interface InputFile {
  /** Absolute path. */
  path: string
  /** What messages show: relative to the working directory, or absolute outside it (clickable either way). */
  display: string
}

export function displayPath(cwd: string, file: string): string {
  const r = relative(cwd, file)
  return r === '' || r.startsWith('..') || isAbsolute(r) ? file : posix(r)
}

const GLOB_CHARS = /[*?{[]/
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist'])

/** Glob -> RegExp over `/`-separated relative paths. */
export function globToRegExp(glob: string): RegExp {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++
        if (glob[i + 1] === '/') { i++; re += '(?:.*/)?' } else re += '.*'
      } else re += '[^/]*'
    } else if (c === '?') re += '[^/]'
    else if (c === '{') {
      const end = glob.indexOf('}', i)
      if (end < 0) { re += '\\{'; continue }
      re += `(?:${glob.slice(i + 1, end).split(',').map(escape).join('|')})`
      i = end
    } else re += escape(c)
  }
  return new RegExp(`^${re}$`)
}

const escape = (s: string) => s.replace(/[.+^$()|[\]\\{}*?]/g, '\\$&')

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) yield* walk(join(dir, entry.name))
    } else if (entry.isFile()) yield join(dir, entry.name)
  }
}

export const posix = (p: string) => p.split(sep).join('/')

/**
 * The lowest directory containing every file (esbuild's default `outbase`):
 * `--outdir` keeps the layout below it.
 */
export function commonBase(files: readonly InputFile[]): string {
  if (files.length === 0) return ''
  let base = dirname(files[0]!.path)
  for (const f of files) {
    while (relative(base, f.path).startsWith('..') || isAbsolute(relative(base, f.path))) base = dirname(base)
  }
  return base
}

/**
 * Expand arguments relative to `cwd`. Throws a CliError (exit 1) for a path
 * that does not exist, a glob matching nothing or a directory without
 * `.ajs` files.
 */
export function expandInputs(args: readonly string[], cwd: string, options: { allowMissing?: boolean } = {}): InputFile[] {
  const out = new Map<string, InputFile>()
  for (const arg of args) {
    if (GLOB_CHARS.test(arg)) {
      const parts = posix(arg).split('/')
      const firstGlob = parts.findIndex((p) => GLOB_CHARS.test(p))
      const base = resolve(cwd, parts.slice(0, firstGlob).join('/') || '.')
      const re = globToRegExp(parts.slice(firstGlob).join('/'))
      let n = 0
      try {
        for (const file of walk(base)) {
          const rel = posix(relative(base, file))
          if (re.test(rel)) { out.set(file, { path: file, display: displayPath(cwd, file) }); n++ }
        }
      } catch { /* a missing base matches nothing */ }
      if (n === 0 && !options.allowMissing) throw new CliError('CLI_NO_INPUTS', `${arg}: no files match`)
      continue
    }
    const path = resolve(cwd, arg)
    let st
    try {
      st = statSync(path)
    } catch {
      if (options.allowMissing) continue
      throw new CliError('CLI_NOT_FOUND', `${arg}: no such file or directory`, { file: arg, hint: notFoundHint(path, arg) })
    }
    if (st.isDirectory()) {
      let n = 0
      for (const file of walk(path)) if (file.endsWith('.ajs')) { out.set(file, { path: file, display: displayPath(cwd, file) }); n++ }
      if (n === 0 && !options.allowMissing) throw new CliError('CLI_NO_INPUTS', `${arg}: the directory holds no .ajs files`, { file: arg })
    } else {
      out.set(path, { path, display: displayPath(cwd, path) })
    }
  }
  return [...out.values()]
}
