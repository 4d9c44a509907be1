/**
 * The acorn wrapper: one place that fixes the parser options and turns
 * acorn's SyntaxError into a located TranspileError.
 *
 * Sources are parsed as modules (strict mode, so `with`, octal literals and
 * sloppy-mode bindings are syntax errors, and `import`/`export` parse into
 * nodes we can refuse with a precise message).
 */

import { tokTypes, type Comment, type Expression, type Options, type Program } from 'acorn'
import { LinearScopeParser } from './linear-scopes.ts'
import type { CodeName } from '../diagnostics/codes.ts'
import type { LowerContext } from './context.ts'

// No `locations`: LowerContext.loc finds line and column from `node.start`.
const BASE: Options = { ecmaVersion: 'latest', sourceType: 'module' }

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
  // acorn's guard of its own recursion: the nesting, not the syntax, is the problem.
  if (detail === 'Not enough stack space to parse input') return ctx.fail('TOO_DEEP', [e.loc.line, e.loc.column], { name: 'the parser can go' })
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
    const program = LinearScopeParser.parse(source, {
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

/** acorn's parser internals used for expressions (what `parseExpressionAt` does, plus the end check). */
interface ExpressionParser {
  nextToken(): void
  parseExpression(): Expression
  type: unknown
  start: number
}

/** Parse exactly one expression; anything but whitespace and comments after it is an error. */
export function parseExpression(source: string, ctx: LowerContext): Expression {
  try {
    const ParserCtor = LinearScopeParser as unknown as new (options: Options, input: string, pos: number) => ExpressionParser
    const parser = new ParserCtor(BASE, source, 0)
    parser.nextToken()
    const node = parser.parseExpression()
    if (parser.type !== tokTypes.eof) {
      const pos = ctx.locator.position(parser.start)
      ctx.fail('EXPRESSION_SOURCE', [pos.line, pos.column])
    }
    return node
  } catch (err) {
    return rethrow(err, ctx)
  }
}
