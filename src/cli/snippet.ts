/**
 * Snippets of AJS statements typed at `ajsc eval` and `ajsc repl`: they
 * become the body of an entry function. acorn (the transpiler's parser)
 * finds the last expression statement, whose value the snippet yields, and
 * the names its top level declares (the REPL keeps them for later lines).
 */
import { parse, type Node, type Statement } from 'acorn'
import { codeFrame } from '../diagnostics/format.ts'

interface Body {
  /** The snippet with its last expression statement assigned to `__value`. */
  source: string
  hasValue: boolean
  /** Where text was inserted (1-based line, 0-based column of the code as typed) and how much. */
  inserted?: { line: number; column: number; length: number }
}

/**
 * Map a 1-based position in the wrapped source back to the code as typed:
 * the wrapper's `prefix` sits before line 1, and `inserted` text before the
 * last expression.
 */
export function mapBack<T extends { line?: number; column?: number }>(d: T, prefixLength: number, body: Body): T {
  if (d.line === undefined || d.column === undefined) return d
  let col = d.column - 1 - (d.line === 1 ? prefixLength : 0)
  const ins = body.inserted
  if (ins && d.line === ins.line && col >= ins.column) col = Math.max(ins.column, col - ins.length)
  return { ...d, column: Math.max(0, col) + 1 }
}

/**
 * A diagnostic of the wrapped snippet as the user sees it: position mapped
 * back (mapBack) and the code frame drawn from the code as typed (the
 * wrapper's frame would show the wrapper).
 */
export function typedBack<T extends { line?: number; column?: number; frame?: string }>(d: T, code: string, prefixLength: number, body: Body): T {
  const { frame: _wrapped, ...rest } = d
  const back = mapBack(rest as T, prefixLength, body)
  const lines = code.split('\n').length
  if (back.line === undefined || back.column === undefined || back.line > lines) return back
  return { ...back, frame: codeFrame(code, back.line, back.column - 1) }
}

// async, as the wrappers of eval and repl are: `await` at the top level parses.
const PREFIX = 'async function snippet(args) {'

/** The statements of a snippet, or undefined when it does not parse (the transpiler then reports why). */
export function snippetStatements(code: string): Statement[] | undefined {
  try {
    const program = parse(`${PREFIX}${code}\n}`, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true })
    return ((program.body[0] as Node & { body: { body: Statement[] } }).body.body)
  } catch {
    return undefined
  }
}

/** True when the snippet is unfinished (an open bracket or string): the REPL asks for more lines. */
export function isIncomplete(code: string): boolean {
  try {
    parse(`${PREFIX}${code}\n}`, { ecmaVersion: 'latest', sourceType: 'script' })
    return false
  } catch (e) {
    const pos = (e as { pos?: number }).pos ?? 0
    return pos >= PREFIX.length + code.length && /Unexpected token|Unterminated/.test((e as Error).message)
  }
}

/** Assign the value of the last expression statement to `__value` (in place, so positions stay). */
export function bodyWithValue(code: string): Body {
  const statements = snippetStatements(code)
  if (statements === undefined) return { source: code, hasValue: false }
  const last = statements[statements.length - 1]
  if (!last || last.type !== 'ExpressionStatement') return { source: `${code}\nlet __value = undefined`, hasValue: true }
  const start = last.start - PREFIX.length
  const end = last.end - PREFIX.length
  const expr = code.slice(start, end).replace(/;\s*$/, '')
  const before = code.slice(0, start)
  const line = before.split('\n').length
  const column = start - (before.lastIndexOf('\n') + 1)
  const opening = 'let __value = ('
  return { source: `${before}${opening}${expr})${code.slice(end)}`, hasValue: true, inserted: { line, column, length: opening.length } }
}

/** Names the snippet's top level declares with let/const (plain names and destructuring). */
export function declaredNames(code: string): string[] {
  const names: string[] = []
  const collect = (p: Node | null): void => {
    if (!p) return
    const n = p as Node & { type: string; name?: string; properties?: Node[]; elements?: (Node | null)[]; value?: Node; left?: Node; argument?: Node }
    if (n.type === 'Identifier') names.push(n.name!)
    else if (n.type === 'ObjectPattern') for (const prop of n.properties!) collect((prop as { value?: Node; argument?: Node }).value ?? (prop as { argument?: Node }).argument ?? null)
    else if (n.type === 'ArrayPattern') for (const el of n.elements!) collect(el)
    else if (n.type === 'AssignmentPattern') collect(n.left!)
    else if (n.type === 'RestElement') collect(n.argument!)
  }
  for (const s of snippetStatements(code) ?? []) {
    if (s.type === 'VariableDeclaration') for (const d of s.declarations) collect(d.id)
  }
  return names
}
