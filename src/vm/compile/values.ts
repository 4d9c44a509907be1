/**
 * `value` fields: an `$expr` node, or JSON whose nested `$expr` nodes are
 * evaluated in place. A plain string is always a string.
 */
import { NODE_COST } from '../fuel.ts'
import type { Frame } from '../runtime.ts'
import { deepCopyLiteral } from '../membrane.ts'
import { forbidden, isForbiddenKey } from '../guards.ts'
import type { CExpr, Scope } from './context.ts'
import { compileError } from './context.ts'
import type { Compiler } from './compiler.ts'
import { seqN } from './async.ts'

const isExpr = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v) && '$expr' in (v as object)

function containsExpr(v: unknown, depth = 0): boolean {
  if (v === null || typeof v !== 'object') return false
  if (depth > 1000) throw compileError('AST_TOO_DEEP', 'Value nests too deeply')
  if (isExpr(v)) return true
  if (Array.isArray(v)) return v.some((x) => containsExpr(x, depth + 1))
  return Object.values(v).some((x) => containsExpr(x, depth + 1))
}

export function compileValue(c: Compiler, v: unknown, scope: Scope): CExpr {
  if (isExpr(v)) return c.expr(v, scope)
  if (v === null || typeof v !== 'object') return { fn: () => v, cost: 0, async: false, constant: { value: v } }
  if (!containsExpr(v)) return { fn: (f: Frame) => deepCopyLiteral(f.rt, v), cost: 0, async: false }
  if (Array.isArray(v)) {
    const parts = v.map((x) => compileValue(c, x, scope))
    const fns = parts.map((p) => p.fn)
    const build = (f: Frame, vals: unknown[]) => { f.rt.chargeSlots(vals.length); return vals }
    return {
      fn: (f) => seqN(fns, (vals) => build(f, vals))(f),
      cost: parts.reduce((s, p) => s + p.cost, NODE_COST),
      async: parts.some((p) => p.async),
    }
  }
  const keys = Object.keys(v)
  for (const k of keys) if (isForbiddenKey(k)) forbidden(k)
  const parts = keys.map((k) => compileValue(c, (v as Record<string, unknown>)[k], scope))
  const fns = parts.map((p) => p.fn)
  const build = (f: Frame, vals: unknown[]) => {
    const o: Record<string, unknown> = {}
    for (let i = 0; i < keys.length; i++) o[keys[i]!] = vals[i]
    f.rt.chargeSlots(keys.length)
    return o
  }
  return {
    fn: (f) => seqN(fns, (vals) => build(f, vals))(f),
    cost: parts.reduce((s, p) => s + p.cost, NODE_COST),
    async: parts.some((p) => p.async),
  }
}
