/**
 * What both bundler plugins do with a `.ajs` file: transpile it and hand
 * back the AST as a JSON module (`import agent from './flow.ajs'` is the
 * AST), or a located error the bundler can print at file:line:col.
 */
import { readFile } from 'node:fs/promises'
import { transpile } from '../transpiler/index.ts'
import { TranspileError } from '../diagnostics/index.ts'
import type { AtomNames } from '../transpiler/index.ts'

export interface AjsPluginOptions {
  /** Which files to compile (default `/\.ajs$/`). */
  filter?: RegExp
  /** Custom atom names the sources may call. */
  atoms?: AtomNames
  /** Drop source positions from the emitted AST. */
  stripLocations?: boolean
}

/** A bundler-neutral message (the shape esbuild uses). */
export interface AjsLoadMessage {
  text: string
  location: { file: string; line: number; column: number; lineText: string } | null
  notes: Array<{ text: string }>
}

export type AjsLoadResult = { contents: string; warnings: AjsLoadMessage[] } | { errors: AjsLoadMessage[] }

export const DEFAULT_FILTER = /\.ajs$/

/** Transpile the file at `path`; `display` is the name used in messages and in the AST. */
export async function loadAjs(path: string, display: string, options: AjsPluginOptions = {}): Promise<AjsLoadResult> {
  const source = await readFile(path, 'utf8')
  const lines = source.split(/\r?\n/)
  try {
    const { ast, warnings } = transpile(source, { filename: display, ...(options.atoms ? { atoms: options.atoms } : {}) })
    const out = options.stripLocations ? JSON.parse(JSON.stringify(ast, (k, v) => (k === 'loc' && Array.isArray(v) ? undefined : v))) : ast
    return {
      contents: JSON.stringify(out),
      warnings: warnings.map((w) => ({
        text: `${w.code}: ${w.message}`,
        location: { file: display, line: w.line, column: w.column, lineText: lines[w.line - 1] ?? '' },
        notes: [{ text: w.hint }],
      })),
    }
  } catch (e) {
    if (!(e instanceof TranspileError)) throw e
    return {
      errors: [{
        text: `${e.code}: ${e.message}`,
        location: { file: display, line: e.line, column: e.column, lineText: lines[e.line - 1] ?? '' },
        notes: [{ text: `hint: ${e.hint}` }],
      }],
    }
  }
}
