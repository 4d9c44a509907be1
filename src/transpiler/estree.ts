/**
 * ESTree nodes the source rewrites make before lowering (local-functions.ts, function-tables.ts,
 * module-declarations.ts): located at the source they stand for, so every diagnostic points into it.
 */
import type { BlockStatement, Expression, FunctionDeclaration, Identifier, Node, Program } from 'acorn'

export const identifier = (name: string, at: Node): Identifier => ({ type: 'Identifier', name, start: at.start, end: at.end }) as Identifier

export const stringLiteral = (value: string, at: Node): Expression => ({ type: 'Literal', value, raw: JSON.stringify(value), start: at.start, end: at.end }) as Expression

/** A node of `type` with `fields`, located at `at`. */
export const located = (type: string, fields: Record<string, unknown>, at: Node): Node & Record<string, any> => ({ type, ...fields, start: at.start, end: at.end }) as Node & Record<string, any>

/** The function a top-level statement declares: `function f` or `export default function f`. */
export function topLevelFunction(s: Program['body'][number]): FunctionDeclaration | undefined {
  if (s.type === 'FunctionDeclaration') return s
  return s.type === 'ExportDefaultDeclaration' && s.declaration.type === 'FunctionDeclaration' ? s.declaration as FunctionDeclaration : undefined
}

/** A function's body as a block: its own, or, for an arrow's expression body, a block returning it. */
export const blockBody = (body: Node): BlockStatement =>
  body.type === 'BlockStatement' ? body as BlockStatement : located('BlockStatement', { body: [located('ReturnStatement', { argument: body }, body)] }, body) as unknown as BlockStatement

/** Each node under `root` with the node holding it (for a walk up from a node: what it is in). */
export function parentsOf(root: Node): Map<Node, Node & Record<string, any>> {
  const parents = new Map<Node, Node & Record<string, any>>()
  const walk = (n: Node & Record<string, any>): void => {
    for (const key of Object.keys(n)) {
      if (key === 'loc') continue
      const v = n[key]
      if (Array.isArray(v)) { for (const x of v) if (x && typeof x.type === 'string') { parents.set(x, n); walk(x) } }
      else if (v && typeof v.type === 'string') { parents.set(v, n); walk(v) }
    }
  }
  walk(root as Node & Record<string, any>)
  return parents
}
