/**
 * Binding patterns: names, object/array destructuring, defaults and (for
 * assignment destructuring) member targets. Declaring kinds allocate slots in
 * the given scope; `assign` resolves existing bindings.
 */
import type { Frame } from '../runtime.ts'
import { NODE_COST } from '../fuel.ts'
import { vmError } from '../errors.ts'
import { getNamed, forbidden, isForbiddenKey, ownKeys, toKey, setProp } from '../guards.ts'
import type { BindingKind, Scope } from './context.ts'
import { compileError } from './context.ts'
import type { Compiler } from './compiler.ts'
import { IDENTIFIER } from '../../ast/nodes.ts'
import { then, isP, seq2 } from './async.ts'

export type PatternKind = BindingKind | 'assign'

export interface CPattern {
  /** Store `v` into the pattern's bindings; may return a Promise if a default calls an atom. */
  bind: (f: Frame, v: unknown) => unknown
  cost: number
  async: boolean
}

type Bind = (f: Frame, v: unknown) => unknown

/** Run binders one after another on the same frame, maybe-async. */
function chain(steps: Array<(f: Frame) => unknown>): (f: Frame) => unknown {
  return (f) => {
    for (let i = 0; i < steps.length; i++) {
      const r = steps[i]!(f)
      if (isP(r)) {
        const rest = steps.slice(i + 1)
        return r.then(() => chain(rest)(f))
      }
    }
    return undefined
  }
}

/**
 * The code points of a string an array pattern reads: the first `count`
 * (read in place), plus all the rest only when the pattern has a rest
 * element (charged per element before it is built). `const [c] = s` on a
 * long string never copies it.
 */
function stringPrefix(f: Frame, s: string, count: number, all: boolean): string[] {
  const out: string[] = []
  let i = 0
  while (i < s.length && out.length < count) {
    const n = (s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1
    out.push(s.slice(i, i + n))
    i += n
  }
  if (all && i < s.length) {
    f.rt.chargeSlots(s.length - i)
    for (const ch of s.slice(i)) out.push(ch)
  }
  return out
}

export function checkName(name: unknown): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) throw compileError('AST_INVALID', `Invalid variable name ${JSON.stringify(name)}`)
  if (isForbiddenKey(name)) throw compileError('FORBIDDEN_NAME', `Forbidden variable name "${name}"`)
  return name
}

/** The slot an assignment to `name` writes: a declared variable that is no constant (Scope.lookupForWrite). */
export function assignedSlot(c: Compiler, name: string, scope: Scope): number {
  const b = scope.lookupForWrite(name)
  if (!b) throw compileError('UNKNOWN_IDENTIFIER', `Assignment to undeclared variable "${name}"${c.suggest(name, scope)}`)
  return b.slot
}

function nameBinder(c: Compiler, name: string, scope: Scope, kind: PatternKind): Bind {
  checkName(name)
  const slot = kind === 'assign' ? assignedSlot(c, name, scope) : scope.declare(name, kind).slot
  return (f, v) => { f.s[slot] = v }
}

function requireObjectCoercible(v: unknown): void {
  if (v === null || v === undefined) throw vmError('TYPE_ERROR', `Cannot destructure ${v === null ? 'null' : 'undefined'}`)
}

export function compilePattern(c: Compiler, p: unknown, scope: Scope, kind: PatternKind): CPattern {
  if (typeof p === 'string') return { bind: nameBinder(c, p, scope, kind), cost: 0, async: false }
  const node = p as any
  switch (node.$pattern) {
    case 'default': {
      const target = compilePattern(c, node.target, scope, kind)
      const dflt = c.expr(node.default, scope)
      const d = dflt.fn, dc = dflt.cost, t = target.bind
      const bind: Bind = (f, v) => {
        if (v !== undefined) return t(f, v)
        f.rt.charge(dc)
        return then(d(f), (dv) => t(f, dv))
      }
      return { bind, cost: target.cost, async: target.async || dflt.async }
    }
    case 'object': {
      let cost = NODE_COST
      let async = false
      const props = (node.properties ?? []).map((prop: any) => {
        let keyFn: (f: Frame) => unknown
        let staticKey: string | undefined
        if (prop.computed) {
          const k = c.expr(prop.key, scope)
          cost += k.cost
          async ||= k.async
          keyFn = k.fn
        } else {
          if (isForbiddenKey(prop.key)) forbidden(prop.key)
          const key = prop.key
          staticKey = key
          keyFn = () => key
        }
        const value = compilePattern(c, prop.value, scope, kind)
        cost += value.cost
        async ||= value.async
        return { keyFn, staticKey, value }
      })
      const rest = node.rest !== undefined ? nameBinder(c, node.rest, scope, kind) : undefined
      const restOf = (fr: Frame, v: unknown, seen: string[]) => {
        const out: Record<string, unknown> = {}
        for (const k of ownKeys(v)) if (!seen.includes(k)) out[k] = (v as any)[k]
        fr.rt.chargeSlots(Object.keys(out).length)
        return rest!(fr, out)
      }
      if (!async && props.every((pr: { staticKey?: string }) => pr.staticKey !== undefined)) {
        // Static keys, no waiting: bind in one loop (the entry's `{ a, b = 1 }` is this shape).
        const keys = props.map((pr: { staticKey: string }) => pr.staticKey)
        const binds = props.map((pr: { value: CPattern }) => pr.value.bind)
        const n = keys.length
        const bind: Bind = (f, v) => {
          requireObjectCoercible(v)
          for (let i = 0; i < n; i++) binds[i](f, getNamed(v, keys[i]))
          return rest ? restOf(f, v, keys) : undefined
        }
        return { bind, cost, async }
      }
      const bind: Bind = (f, v) => {
        requireObjectCoercible(v)
        const seen: string[] = []
        const steps = props.map((pr: { keyFn: (f: Frame) => unknown; value: CPattern }) => (fr: Frame) =>
          then(pr.keyFn(fr), (k) => {
            const key = toKey(fr.rt, k)
            seen.push(String(key))
            return pr.value.bind(fr, getNamed(v, key as string)) // the key checked and paid once, just above
          }))
        if (rest) steps.push((fr: Frame) => restOf(fr, v, seen))
        return chain(steps)(f)
      }
      return { bind, cost, async }
    }
    case 'array': {
      let cost = NODE_COST
      let async = false
      const elements = (node.elements ?? []).map((e: unknown) => {
        if (e === null) return null
        const ce = compilePattern(c, e, scope, kind)
        cost += ce.cost
        async ||= ce.async
        return ce
      })
      const rest = node.rest !== undefined ? compilePattern(c, node.rest, scope, kind) : undefined
      const bind: Bind = (f, v) => {
        let arr: unknown[]
        if (Array.isArray(v)) arr = v
        else if (typeof v === 'string') arr = stringPrefix(f, v, elements.length, rest !== undefined)
        else throw vmError('TYPE_ERROR', `${v === null ? 'null' : typeof v} is not iterable`)
        const steps: Array<(fr: Frame) => unknown> = []
        elements.forEach((el: CPattern | null, i: number) => { if (el) steps.push((fr) => el.bind(fr, arr[i])) })
        if (rest) steps.push((fr) => { const tail = arr.slice(elements.length); fr.rt.chargeSlots(tail.length); return rest.bind(fr, tail) })
        return chain(steps)(f)
      }
      return { bind, cost, async }
    }
    default: { // 'target', the last kind validateAst knows
      if (kind !== 'assign') throw compileError('AST_INVALID', '`target` patterns are only valid in assignments')
      const t = node.target
      if (t?.$expr === 'ident') return { bind: nameBinder(c, t.name, scope, kind), cost: 0, async: false }
      const obj = c.expr(t.object, scope)
      let keyFn: (f: Frame) => unknown
      let cost = NODE_COST + obj.cost
      let async = obj.async
      if (t.computed) {
        const k = c.expr(t.property, scope)
        keyFn = k.fn
        cost += k.cost
        async ||= k.async
      } else {
        if (isForbiddenKey(t.property)) forbidden(t.property)
        const key = t.property
        keyFn = () => key
      }
      const target = seq2(obj.fn, keyFn, (o, k) => ({ o, k }))
      const bind: Bind = (f, v) => then(target(f), ({ o, k }) => setProp(f.rt, o, k, v))
      return { bind, cost, async }
    }
  }
}
