/**
 * Expressions to "ajs/1" expression nodes. Every Python operation is a call
 * of the runtime (`py$add(a, b)`, `py$getitem(x, k)`, ...); the VM supplies
 * variables, control flow, short-circuiting and helper calls.
 */
import type { Expr, ExprOf, FPart, Keyword, Loc } from './ir.ts'
import { type Node, and, arr, assign, assignItem, call, cond, id, lit, member, not, or, rt, spread, UNDEFINED } from './nodes.ts'
import { hiddenName, mangle, type FnScope } from './scope.ts'
import type { Lowerer } from './lower.ts'
import { lowerCall, keyLambda } from './lower-call.ts'
import { BUILTIN_TYPES, EXCEPTION_NAMES, BUILTIN_FUNCTIONS, EXTENDED_EXCEPTION_NAMES, EXTENDED_FUNCTIONS, EXTENDED_TYPES } from './builtins-table.ts'
import { FORBIDDEN_NAMES, EXTENDED_HINT } from './refuse.ts'
import { closest as closestName } from '../diagnostics/suggest.ts'
import { classCompare, importedName, lowerRt, moduleAttr, prepText, textEntry } from './lower-class.ts'
import { DISPATCH_HELPER } from './runtime/values.ts'

/** Per-function lowering state. */
export class FnCtx {
  readonly temps = new Set<string>()
  /** Break flags of the enclosing loops (null: the loop has no else). */
  readonly loops: Array<string | null> = []
  /** Caught-exception variables of the enclosing handlers (for bare `raise`). */
  readonly handlers: string[] = []
  /** Lambda parameters in scope (they shadow everything). */
  shadow: ReadonlySet<string> = new Set()
  /** Locals certainly bound here (reads of the others check for UnboundLocalError). */
  definite = new Set<string>()
  /** Every name unbound so far (`del x`, the end of `except ... as x`): a block that unbinds one leaves it unbound after it too. */
  readonly unbound: string[] = []
  constructor(readonly L: Lowerer, readonly scope: FnScope, readonly isBlock: boolean) {}

  temp(): string {
    const name = `$t${this.L.nextId()}`
    this.temps.add(name)
    return name
  }
}

const BIN: Record<string, string> = {
  '+': 'add', '-': 'sub', '*': 'mul', '/': 'div', '//': 'fdiv', '%': 'mod', '**': 'pow',
  '&': 'band', '|': 'bor', '^': 'bxor', '<<': 'lshift', '>>': 'rshift', '@': 'matmul',
}
const CMP: Record<string, string> = {
  '<': 'lt', '>': 'gt', '==': 'eq', '>=': 'ge', '<=': 'le', '!=': 'ne', 'in': 'in', 'not in': 'notin', 'is': 'is', 'is not': 'isnot',
}

/** A variable: its VM name, holding a cell (a one-item array) when some function declares it `nonlocal`. */
export interface VarRef { kind: 'var'; vm: string; cell?: true }

/** An assignment of a variable, as an expression. */
export function store(v: VarRef, value: Node): Node {
  return v.cell ? assignItem(id(v.vm), 0, value) : assign(v.vm, value)
}

/** How a name resolves in a function. */
export type Resolved =
  | VarRef
  | { kind: 'def'; name: string }
  | { kind: 'builtin'; name: string }
  | { kind: 'type'; name: string }
  | { kind: 'unknown' }

export function resolve(cx: FnCtx, name: string): Resolved {
  if (cx.shadow.has(name)) return { kind: 'var', vm: mangle(name) }
  const owner = cx.scope.owner(name)
  if (owner) {
    if (owner.defs.has(name)) return { kind: 'def', name }
    const vm = owner === cx.scope ? mangle(name) : hiddenName(name, owner)
    return owner.cells.has(name) ? { kind: 'var', vm, cell: true } : { kind: 'var', vm }
  }
  if (cx.L.lambdaParams(cx.scope).has(name)) return { kind: 'var', vm: mangle(name) }
  if (BUILTIN_TYPES.has(name) || EXCEPTION_NAMES.has(name)) return { kind: 'type', name }
  // Extended only: more exception classes (what `close()` raises in a generator, ConnectionError, ...) and the base of every class.
  if ((EXTENDED_EXCEPTION_NAMES.has(name) || EXTENDED_TYPES.has(name)) && cx.L.r.extended) return { kind: 'type', name }
  if (BUILTIN_FUNCTIONS.has(name) || (cx.L.r.extended && EXTENDED_FUNCTIONS.has(name))) return { kind: 'builtin', name }
  return { kind: 'unknown' }
}

export function unknownName(cx: FnCtx, name: string, loc: Loc, called = false): never {
  if (EXTENDED_EXCEPTION_NAMES.has(name)) throw cx.L.r.extendedOnly(`The exception class \`${name}\``, 'Raise and catch the contract\'s classes (`RuntimeError`, `ValueError`, ...).', loc)
  let fix = FORBIDDEN_NAMES[name]
  if (fix && (EXTENDED_FUNCTIONS.has(name) || EXTENDED_TYPES.has(name)) && !cx.L.r.extended) fix = `${fix} ${EXTENDED_HINT}`
  if (fix) throw cx.L.r.error('PY_FORBIDDEN', { name, fix }, loc)
  const known = [...cx.scope.locals, ...BUILTIN_FUNCTIONS, ...BUILTIN_TYPES].filter((n) => !n.includes('$'))
  const near = closestName(name, called ? [...known, ...(cx.L.options.externals?.keys() ?? [])] : known)
  // A call of an unknown name in a program with host functions: say how the host offers more.
  const host = called && cx.L.options.externalsHint ? `${cx.L.options.externalsHint} ` : ''
  throw cx.L.r.error('PY_UNKNOWN_NAME', { name, suggest: `${near ? `Did you mean \`${near}\`? ` : ''}${host}` }, loc)
}

/**
 * What CPython's compiler folds into a constant (a set display of three or more is built from a
 * frozenset constant): literals, unary operators on them, `+`/`-` of them, and `*`/`**` of ints
 * within its size limits (safe_multiply, safe_power: 128 bits).
 */
function isConstant(e: Expr): boolean {
  switch (e.k) {
    case 'int': case 'float': case 'const': return true
    case 'unary': return e.op !== 'not' && isConstant(e.e)
    case 'bin': {
      if (!isConstant(e.l) || !isConstant(e.r)) return false
      if (e.op === '+' || e.op === '-') return true
      const a = intValue(e.l), b = intValue(e.r)
      if (a === undefined || b === undefined) return e.op === '*'
      const bits = (x: bigint) => (x < 0n ? -x : x).toString(2).length
      if (e.op === '*') return a === 0n || b === 0n || bits(a) + bits(b) <= 128
      if (e.op === '**') return b >= 0n && (a === 0n || b === 0n || BigInt(bits(a)) <= 128n / b)
      return false
    }
  }
  return false
}

/** The value of an int constant expression (undefined: not one). */
function intValue(e: Expr): bigint | undefined {
  if (e.k === 'int') return BigInt(e.v.replace(/_/g, ''))
  if (e.k === 'unary' && (e.op === '-' || e.op === '+')) { const v = intValue(e.e); return v === undefined ? undefined : e.op === '-' ? -v : v }
  if (e.k === 'bin') {
    const a = intValue(e.l), b = intValue(e.r)
    if (a === undefined || b === undefined) return undefined
    if (e.op === '+') return a + b
    if (e.op === '-') return a - b
    if (e.op === '*') return a * b
    if (e.op === '**' && b >= 0n && b < 1024n) return a ** b
  }
  return undefined
}

/** A value expression. */
export function lowerExpr(cx: FnCtx, e: Expr): Node {
  switch (e.k) {
    case 'name': {
      const r = resolve(cx, e.id)
      switch (r.kind) {
        case 'var': {
          const value = r.cell ? member(id(r.vm), 0) : id(r.vm)
          // A cell is checked at every read: another function may `del` it.
          if (!r.cell && (cx.shadow.has(e.id) || cx.definite.has(e.id) || cx.L.lambdaParams(cx.scope).has(e.id))) return value
          return rt(r.vm === mangle(e.id) ? 'chk' : 'chkfree', [value, lit(e.id)], e.loc)
        }
        case 'type': return rt('type', [lit(r.name)])
        case 'def':
          if (cx.L.r.extended) return functionValue(cx, r.name, e.loc)
          throw functionValueError(cx, e.id, e.loc)
        case 'builtin':
          if (cx.L.r.extended) return rt('builtin', [lit(r.name)])
          throw functionValueError(cx, e.id, e.loc)
      }
      if (e.id === 'NotImplemented' && cx.L.options.classes?.count) return rt('ni', [])
      return importedName(cx, e) ?? unknownName(cx, e.id, e.loc)
    }
    case 'const': return lit(e.v)
    case 'int': {
      const n = Number(e.v)
      return Number.isSafeInteger(n) ? lit(n) : rt('bigint', [lit(e.v)])
    }
    case 'float':
      if (!Number.isFinite(e.v)) return rt('floatb', [lit('inf')])
      return Number.isInteger(e.v) ? rt('float', [lit(e.v)]) : lit(e.v)
    case 'fstr': return fstring(cx, e.parts, e.loc)
    case 'list': return arr(elements(cx, e.elts))
    case 'tuple': return rt('tuple', [arr(elements(cx, e.elts))])
    case 'set': return rt(e.elts.length > 2 && e.elts.every(isConstant) ? 'setconst' : 'set', [arr(elements(cx, e.elts))], e.loc)
    case 'dict': return dict(cx, e)
    case 'bin':
      if (e.op === '%') return rt(textEntry(cx, 'mod'), [lowerExpr(cx, e.l), prepText(cx, lowerExpr(cx, e.r))], e.loc)
      return rt(BIN[e.op]!, [lowerExpr(cx, e.l), lowerExpr(cx, e.r)], e.loc)
    case 'unary': {
      const op = e.op === '-' ? 'neg' : e.op === '+' ? 'pos' : e.op === '~' ? 'inv' : null
      if (op) return rt(op, [lowerExpr(cx, e.e)], e.loc)
      return not(lowerTest(cx, e.e))
    }
    case 'bool': {
      const t = cx.temp()
      const first = assign(t, lowerExpr(cx, e.l))
      const test = rt('truth', [first])
      return e.op === 'and' ? cond(test, lowerExpr(cx, e.r), id(t)) : cond(test, id(t), lowerExpr(cx, e.r))
    }
    case 'cmp': return compareChain(cx, e)
    case 'ifexp': return cond(lowerTest(cx, e.test), lowerExpr(cx, e.body), lowerExpr(cx, e.orelse))
    case 'call': return lowerCall(cx, e)
    case 'attr': {
      if (cx.L.r.extended) return moduleAttr(cx, e) ?? rt('getattr', [lowerExpr(cx, e.obj), lit(e.name)], e.loc)
      const fix = e.obj.k === 'name' && BUILTIN_TYPES.has(e.obj.id)
        ? `Call it: \`${e.obj.id}.${e.name}(...)\`, or pass it as \`key=${e.obj.id}.${e.name}\`.`
        : 'Values have no readable attributes in code blocks; call a method (`s.upper()`) or index a dict (`d["key"]`).'
      throw cx.L.r.error('PY_ATTRIBUTE', { name: e.name, fix: `${fix} ${EXTENDED_HINT}` }, e.loc)
    }
    case 'sub': {
      const obj = lowerExpr(cx, e.obj)
      if (e.index.k === 'slice') return rt('getslice', [obj, ...sliceParts(cx, e.index)], e.loc)
      return rt('getitem', [obj, lowerExpr(cx, e.index)], e.loc)
    }
    case 'slice': throw cx.L.r.error('PY_UNSUPPORTED', { name: 'A slice outside `[...]`', fix: 'Write the slice inside brackets: `xs[a:b]`.' }, e.loc)
    case 'comp':
      if (e.kind === 'gen' && !cx.L.genAllowed.has(e)) {
        // A generator, read lazily (lower-generator.ts).
        if (cx.L.r.extended) return cx.L.genexp(cx, e)
        throw cx.L.r.extendedOnly('A generator expression outside a call', 'Use a list comprehension `[... for ...]`, or pass the generator straight to sum/min/max/sorted/list/tuple/set/dict/str.join.', e.loc)
      }
      return cx.L.comprehension(cx, e)
    case 'lambda': throw cx.L.r.extendedOnly('A lambda as a value', 'Pass it as `key=` to sorted/min/max/list.sort, or write `def name(x): return ...` and call it.', e.loc)
    case 'walrus': {
      if (cx.shadow.has(e.id)) throw cx.L.r.error('PY_TARGET', { name: 'a lambda parameter with `:=`' }, e.loc)
      const value = lowerExpr(cx, e.value)
      const r = resolve(cx, e.id)
      cx.definite.add(e.id)
      return r.kind === 'var' ? store(r, value) : assign(mangle(e.id), value)
    }
    case 'star': throw cx.L.r.error('PY_SYNTAX', { detail: 'can\'t use starred expression here', fix: 'Use `*x` only inside a list, tuple, set or call.' }, e.loc)
    case 'rt': return lowerRt(cx, e)
  }
}

function functionValueError(cx: FnCtx, name: string, loc: Loc) {
  return cx.L.r.error('PY_FUNCTION_VALUE', { name }, loc)
}

/** A `def` (or lifted lambda) as a value: its helper's number, defaults and enclosing variables. */
export function functionValue(cx: FnCtx, name: string, loc: Loc): Node {
  const d = cx.scope.findDef(name)!
  const fid = cx.L.functionId(d)
  const defaults = d.defaultHolders.map((h) => (h ? lowerExpr(cx, { k: 'name', id: h, loc }) : UNDEFINED))
  // The runtime binds calls by these names (bindCall): `*args` as '*args', `**kwargs` as '**kwargs', keyword-only as ':name'.
  const names = d.params.map((p) => (p.kind === 'star' ? `*${p.name}` : p.kind === 'kwstar' ? `**${p.name}` : p.kind === 'kwonly' ? `:${p.name}` : p.name))
  return rt('fn', [lit(fid), lit(cx.L.qualname(d)), lit(names), arr(defaults), arr(cx.L.hiddenArgs(cx, d.scope))], loc)
}

/** A call of a value through the program's dispatcher (`call$dispatch`). */
export function dynamicCall(cx: FnCtx, fn: Node, args: Node, kw: Node, loc?: Loc): Node {
  cx.L.usesDispatch = true
  return call(DISPATCH, [fn, args, kw], loc)
}

export const DISPATCH = DISPATCH_HELPER

export function sliceParts(cx: FnCtx, s: ExprOf<'slice'>): Node[] {
  return [s.lo ? lowerExpr(cx, s.lo) : lit(null), s.hi ? lowerExpr(cx, s.hi) : lit(null), s.step ? lowerExpr(cx, s.step) : lit(null)]
}

/** Keyword arguments as a dict (or null): `py$dictmerge([[k, v, ...], spread])`. */
export function kwDict(cx: FnCtx, kw: Keyword[]): Node {
  if (kw.length === 0) return lit(null)
  const parts: Node[] = []
  let run: Node[] | null = null
  for (const k of kw) {
    if (k.name === null) { run = null; parts.push(lowerExpr(cx, k.value)); continue }
    if (!run) { run = []; parts.push(arr(run)) }
    run.push(lit(k.name), lowerExpr(cx, k.value))
  }
  return rt('dictmerge', [arr(parts)])
}

/** List/tuple/set/call elements: `*x` spreads the items of any iterable. */
export function elements(cx: FnCtx, elts: Expr[]): Node[] {
  return elts.map((x) => (x.k === 'star' ? spread(rt('spread', [lowerExpr(cx, x.e)], x.loc)) : lowerExpr(cx, x)))
}

function dict(cx: FnCtx, e: ExprOf<'dict'>): Node {
  if (!e.items.some((it) => 'spread' in it)) {
    const flat: Node[] = []
    for (const it of e.items) if (!('spread' in it)) flat.push(lowerExpr(cx, it.key), lowerExpr(cx, it.value))
    return rt('dict', [arr(flat)], e.loc)
  }
  const parts: Node[] = []
  let run: Node[] | null = null
  for (const it of e.items) {
    if ('spread' in it) { run = null; parts.push(lowerExpr(cx, it.spread)); continue }
    if (!run) { run = []; parts.push(arr(run)) }
    run.push(lowerExpr(cx, it.key), lowerExpr(cx, it.value))
  }
  return rt('dictmerge', [arr(parts)], e.loc)
}

function fstring(cx: FnCtx, parts: FPart[], loc: Loc): Node {
  const pieces = parts.map((p) => {
    if (typeof p === 'string') return lit(p)
    const spec = p.spec ? lowerExpr(cx, p.spec) : lit('')
    return rt(textEntry(cx, 'fmt'), [prepText(cx, lowerExpr(cx, p.e)), spec, lit(p.conv)], p.e.loc)
  })
  if (pieces.length === 1 && typeof parts[0] !== 'string') return pieces[0]!
  return rt('concat', [arr(pieces)], loc)
}

function compareChain(cx: FnCtx, e: ExprOf<'cmp'>): Node {
  const cmp = (op: string, l: Node, r: Node, single: boolean): Node => {
    const viaClass = classCompare(cx, op, l, r, e.loc)
    if (viaClass) return single ? viaClass : rt('truth', [viaClass])
    return rt(CMP[op]!, [l, r], e.loc)
  }
  if (e.ops.length === 1) return cmp(e.ops[0]!, lowerExpr(cx, e.xs[0]!), lowerExpr(cx, e.xs[1]!), true)
  let left = lowerExpr(cx, e.xs[0]!)
  let out: Node | null = null
  for (let i = 0; i < e.ops.length; i++) {
    const last = i === e.ops.length - 1
    let right = lowerExpr(cx, e.xs[i + 1]!)
    let next: Node = right
    if (!last) { const t = cx.temp(); right = assign(t, right); next = id(t) }
    const c = cmp(e.ops[i]!, left, right, false)
    out = out ? and(out, c) : c
    left = next
  }
  return out!
}

/** A condition: a JS boolean, without materialising `and`/`or` operands. */
export function lowerTest(cx: FnCtx, e: Expr): Node {
  switch (e.k) {
    case 'bool': return e.op === 'and' ? and(lowerTest(cx, e.l), lowerTest(cx, e.r)) : or(lowerTest(cx, e.l), lowerTest(cx, e.r))
    case 'unary': if (e.op === 'not') return not(lowerTest(cx, e.e)); break
    case 'cmp': return compareChain(cx, e)
    case 'const': return lit(e.v === null ? false : typeof e.v === 'string' ? e.v.length > 0 : e.v)
  }
  return rt('truth', [lowerExpr(cx, e)])
}

export { keyLambda, member, call, UNDEFINED }
