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

type AnyNode = Node & Record<string, any>

/**
 * Keys that hold no node in any ESTree type, skipped unread (`value` and `expression` hold one in some:
 * Property's, ExpressionStatement's). Reading every key's value to ask for its `type` cost a 260-line
 * agent that passes a Set to a helper ~5% of its transpile (collection-params.ts walks it whole).
 */
const LEAF_KEYS: ReadonlySet<string> = new Set(['type', 'start', 'end', 'loc', 'range', 'name', 'raw', 'operator', 'kind', 'computed', 'async', 'generator', 'optional', 'shorthand', 'method', 'prefix', 'delegate', 'tail', 'sourceType', 'bigint', 'regex', 'directive'])

/** Each node directly under `n`, in key order, with the key holding it and its index there (-1 for a node held alone). */
export function forEachChild(n: AnyNode, visit: (child: AnyNode, key: string, index: number) => void): void {
  for (const key of Object.keys(n)) {
    if (LEAF_KEYS.has(key)) continue
    const v = n[key]
    if (Array.isArray(v)) { for (let i = 0; i < v.length; i++) if (v[i] && typeof v[i].type === 'string') visit(v[i], key, i) }
    else if (v && typeof v.type === 'string') visit(v, key, -1)
  }
}

/** Each node under `root` with the node holding it (for a walk up from a node: what it is in). */
export function parentsOf(root: Node): Map<Node, AnyNode> {
  const parents = new Map<Node, AnyNode>()
  const walk = (n: AnyNode): void => forEachChild(n, (x) => { parents.set(x, n); walk(x) })
  walk(root as AnyNode)
  return parents
}
