/**
 * A pass over the lowered program: a tree of two or more fusable runtime calls (`py$add`,
 * `py$getitem`, `py$lt`, ...; runtime/fused.ts) whose leaves are variables or constants becomes one
 * `py$ex(code, ...leaves)` call. Leaves cannot raise or have effects, so evaluating them first is
 * unobservable, and the operations run in Python's order inside the call.
 */
import type { AjsProgram } from '../ast/types.ts'
import { FUSABLE } from './runtime/fused.ts'

type Any = Record<string, any>

const opOf = (n: Any): string | undefined => {
  if (n?.$expr !== 'call' || typeof n.callee !== 'string' || !n.callee.startsWith('py$')) return undefined
  const op = n.callee.slice(3)
  return Object.prototype.hasOwnProperty.call(FUSABLE, op) && n.args?.length === FUSABLE[op] ? op : undefined
}

const isLeaf = (n: Any): boolean =>
  n?.$expr === 'ident' || (n?.$expr === 'literal' && (n.value === null || typeof n.value !== 'object'))

/** Ops in a fully fusable subtree, or -1. */
function size(n: Any): number {
  if (isLeaf(n)) return 0
  if (!opOf(n)) return -1
  let total = 1
  for (const a of n.args) {
    const s = size(a)
    if (s < 0) return -1
    total += s
  }
  return total
}

/** An inner operation located elsewhere than the call carries its `line:column` (`getitem@3:13`), so its errors point at it. */
const sameLoc = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) && Array.isArray(b) ? a[0] === b[0] && a[1] === b[1] : a === b

function encode(n: Any, leaves: Any[], out: string[], root: unknown): void {
  if (isLeaf(n)) {
    if (n.$expr === 'literal' && typeof n.value === 'number' && Number.isSafeInteger(n.value) && !Object.is(n.value, -0)) out.push(`#${n.value}`)
    else {
      // A variable read twice (`i * i`) is passed once: nothing inside the call assigns it.
      const k = n.$expr === 'ident' ? leaves.findIndex((l) => l.$expr === 'ident' && l.name === n.name) : -1
      if (k >= 0) out.push(`$${k}`)
      else { out.push(`$${leaves.length}`); leaves.push(n) }
    }
    return
  }
  const loc = n.loc
  out.push(Array.isArray(loc) && !sameLoc(loc, root) ? `${opOf(n)!}@${loc[0]}:${loc[1]}` : opOf(n)!)
  for (const a of n.args) encode(a, leaves, out, root)
}

function fuseNode(n: any): any {
  if (n === null || typeof n !== 'object') return n
  if (Object.isFrozen(n) || n.$expr === 'literal') return n
  if (Array.isArray(n)) { for (let i = 0; i < n.length; i++) { const v = fuseNode(n[i]); if (v !== n[i]) n[i] = v } return n }
  if (opOf(n) && size(n) >= 2) {
    const leaves: Any[] = []
    const code: string[] = []
    encode(n, leaves, code, n.loc)
    const out: Any = { $expr: 'call', callee: 'py$ex', args: [{ $expr: 'literal', value: code.join(' ') }, ...leaves] }
    if (n.loc) out.loc = n.loc
    return out
  }
  for (const k of Object.keys(n)) {
    if (k === 'loc') continue
    const v = fuseNode(n[k])
    if (v !== n[k]) n[k] = v
  }
  return n
}

/** Fuse every function's and the entry's expressions, in place. */
export function fuseProgram(p: AjsProgram): AjsProgram {
  fuseNode(p.steps)
  for (const f of Object.values(p.functions ?? {})) fuseNode((f as Any).steps)
  return p
}
