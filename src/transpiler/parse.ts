/**
 * The acorn wrapper: one place that fixes the parser options and turns
 * acorn's SyntaxError into a located TranspileError.
 *
 * Sources are parsed as modules (strict mode, so `with`, octal literals and
 * sloppy-mode bindings are syntax errors, and `import`/`export` parse into
 * nodes we can refuse with a precise message).
 */

import { parse, parseExpressionAt, type Comment, type Expression, type Options, type Program } from 'acorn'
import type { CodeName } from '../diagnostics/codes.ts'
import type { LowerContext } from './context.ts'

const BASE: Options = { ecmaVersion: 'latest', sourceType: 'module', locations: true }

/** Acorn messages that name a construct we have a dedicated code for. */
const MESSAGE_CODES: Array<[RegExp, CodeName]> = [
  [/'with' in strict mode/, 'WITH'],
  [/await/i, 'AWAIT'],
  [/yield/i, 'GENERATOR'],
  [/Binding arguments|'arguments'/, 'ARGUMENTS'],
  [/Binding eval/, 'EVAL'],
  [/BigInt|bigint/i, 'BIGINT'],
]

const WORD_CODES: Record<string, CodeName> = { await: 'AWAIT', yield: 'GENERATOR', with: 'WITH' }

function rethrow(err: unknown, ctx: LowerContext): never {
  const e = err as SyntaxError & { loc?: { line: number; column: number }; pos?: number }
  if (!(e instanceof SyntaxError) || !e.loc) throw err
  const detail = e.message.replace(/ \(\d+:\d+\)$/, '')
  // acorn often says only "Unexpected token": the word at the position tells which construct it was.
  const word = /^[A-Za-z]+/.exec(ctx.source.slice(e.pos ?? 0))?.[0] ?? ''
  const code = WORD_CODES[word] ?? MESSAGE_CODES.find(([re]) => re.test(detail))?.[1] ?? 'PARSE_ERROR'
  return ctx.fail(code, [e.loc.line, e.loc.column], { detail, name: detail })
}

export interface Parsed {
  program: Program
  /** Block comments (for JSDoc), in source order. */
  comments: Comment[]
}

export function parseProgram(source: string, ctx: LowerContext): Parsed {
  const comments: Comment[] = []
  try {
    const program = parse(source, {
      ...BASE,
      onComment: (block, text, start, end) => {
        if (block && text.startsWith('*')) comments.push({ type: 'Block', value: text, start, end })
      },
    })
    return { program, comments }
  } catch (err) {
    return rethrow(err, ctx)
  }
}

/** Parse exactly one expression (trailing whitespace and comments allowed). */
export function parseExpression(source: string, ctx: LowerContext): Expression {
  let node: Expression
  try {
    node = parseExpressionAt(source, 0, BASE)
  } catch (err) {
    return rethrow(err, ctx)
  }
  const rest = source.slice(node.end).replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '')
  if (rest.trim() !== '') {
    const pos = ctx.locator.position(node.end + (source.slice(node.end).length - source.slice(node.end).trimStart().length))
    ctx.fail('EXPRESSION_SOURCE', [pos.line, pos.column])
  }
  return node
}
