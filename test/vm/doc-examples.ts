/**
 * Extracts the runnable examples of a markdown doc: every ```json block that
 * is a whole program (has "ajs": 1), with the HTML comments right after it:
 * `<!-- args: {...} -->`, `<!-- options: {...} -->` (JSON run options),
 * and `<!-- result: ... -->` or `<!-- error: CODE -->` (the expectation).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

export interface DocExample {
  index: number
  line: number
  ast: any
  args?: unknown
  options?: Record<string, unknown>
  result?: unknown
  hasResult: boolean
  error?: string
}

export function jsonExamples(relPath: string): DocExample[] {
  const text = readFileSync(resolve(import.meta.dir, '../..', relPath), 'utf8')
  const out: DocExample[] = []
  const re = /```json\n([\s\S]*?)```\n((?:<!-- [a-z]+: [\s\S]*? -->\n?)*)/g
  for (const m of text.matchAll(re)) {
    let ast: any
    try { ast = JSON.parse(m[1]!) } catch { continue }
    if (!ast || ast.ajs !== 1) continue
    const ex: DocExample = { index: out.length, line: text.slice(0, m.index).split('\n').length, ast, hasResult: false }
    for (const c of (m[2] ?? '').matchAll(/<!-- ([a-z]+): ([\s\S]*?) -->/g)) {
      const [, key, body] = c
      if (key === 'args') ex.args = JSON.parse(body!)
      else if (key === 'options') ex.options = JSON.parse(body!)
      else if (key === 'result') { ex.result = JSON.parse(body!); ex.hasResult = true }
      else if (key === 'error') ex.error = body!.trim()
    }
    out.push(ex)
  }
  return out
}

export const docExamples = () => jsonExamples('docs/ast.md')
