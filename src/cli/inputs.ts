/**
 * Expands the CLI's input arguments into files: plain paths, directories
 * (every `.ajs` file below them) and globs (`*`, `**`, `?`, `{a,b}`), so
 * quoted globs work the same on every shell.
 */
import { readdirSync, statSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { CliError } from './io.ts'

export interface InputFile {
  /** Absolute path. */
  path: string
  /** Path relative to the base the argument started from (keeps directory layout in `-o`). */
  rel: string
  /** What messages show: relative to the working directory, or absolute outside it (clickable either way). */
  display: string
}

function displayPath(cwd: string, file: string): string {
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

const posix = (p: string) => p.split(sep).join('/')

/** Expand arguments relative to `cwd`. Throws a CliError (exit 1) for a path that does not exist or a glob matching nothing. */
export function expandInputs(args: readonly string[], cwd: string): InputFile[] {
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
          if (re.test(rel)) { out.set(file, { path: file, rel, display: displayPath(cwd, file) }); n++ }
        }
      } catch { /* a missing base matches nothing */ }
      if (n === 0) throw new CliError(`${arg}: no files match`, 1)
      continue
    }
    const path = resolve(cwd, arg)
    let st
    try {
      st = statSync(path)
    } catch {
      throw new CliError(`${arg}: no such file or directory`, 1)
    }
    if (st.isDirectory()) {
      for (const file of walk(path)) if (file.endsWith('.ajs')) out.set(file, { path: file, rel: posix(relative(path, file)), display: displayPath(cwd, file) })
    } else {
      out.set(path, { path, rel: posix(relative(cwd, path)).replace(/^(\.\.\/)+/, ''), display: displayPath(cwd, path) })
    }
  }
  return [...out.values()]
}
