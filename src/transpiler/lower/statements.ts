/**
 * Statements: ESTree -> steps, one table entry per statement type.
 *
 * Every block gets a scope whose `let`/`const` names are pre-declared as
 * `tdz` (a shallow scan of the block's own statements), so uses before a
 * declaration and assignments to constants are found in the same single
 * pass that emits the steps.
 */

import type {
  CallExpression, Identifier,
  BlockStatement, Expression, ForInStatement, ForOfStatement, ForStatement, IfStatement, Node, Pattern as EsPattern,
  Statement, SwitchCase, SwitchStatement, TryStatement, VariableDeclaration, ModuleDeclaration,
} from 'acorn'
import type { Expr, Step, Value } from '../../ast/types.ts'
import type { CodeName } from '../../diagnostics/codes.ts'
import type { LowerContext } from '../context.ts'
import type { BindingKind } from '../scope.ts'
import { lowerExpr } from './expressions.ts'
import { collectNames, lowerAssignTarget, lowerBinding, predeclarePattern, predeclarePatterns } from './patterns.ts'
import { checkAssignable } from './names.ts'
import { typedAssignValue, typedDeclaration } from './typed-vars.ts'
import { lowerIterable } from './sets.ts'
import { setWalk } from './set-vars.ts'
import { mapWalk } from './maps.ts'
import { lowerPromiseAll, promiseAllOf, unwrap } from './promise-all.ts'
import { varsObject } from './vars-object.ts'
import { discard } from './unused.ts'
import { id } from '../../ast/build.ts'

type AnyStatement = Statement | ModuleDeclaration
type LowerStmt = (node: any, ctx: LowerContext, out: Step[], label?: string) => void

/** Primitive literals travel as plain JSON in value fields; everything else stays an expression. */
export function toValue(e: Expr): Value {
  if (e.$expr === 'literal' && (e.value === null || typeof e.value !== 'object')) return e.value
  return e
}

/**
 * The whole value of a statement: `Promise.all(...)` here becomes a
 * `parallel` step before the statement, whose value it then reads.
 */
function lowerStatementValue(node: Expression, ctx: LowerContext, out: Step[]): Expr {
  const all = promiseAllOf(node, ctx)
  if (!all) return lowerExpr(node, ctx)
  const result = ctx.temp('all')
  out.push(lowerPromiseAll(all, ctx, result))
  return id(result)
}

/** Pre-declare the lexical names of a block's own statements. */
function predeclareBlock(stmts: readonly AnyStatement[], ctx: LowerContext, kind: BindingKind = 'tdz'): void {
  for (const s of stmts) {
    if (s.type !== 'VariableDeclaration' || s.kind === 'var') continue
    for (const d of s.declarations) predeclarePattern(ctx, d.id, kind)
  }
}

/** Plain names a `let`/`const` statement declares (for error recovery). */
function declaredNames(s: AnyStatement): string[] {
  if (s.type !== 'VariableDeclaration') return []
  return s.declarations.flatMap((d) => (d.id.type === 'Identifier' ? [d.id.name] : []))
}

/** A list of statements as a block with its own scope. */
export function lowerBlock(stmts: readonly AnyStatement[], ctx: LowerContext): Step[] {
  ctx.pushScope()
  try {
    predeclareBlock(stmts, ctx)
    const out: Step[] = []
    // Stopping at the first refusal (the default) needs no recovery closures per statement.
    if (ctx.maxErrors <= 1) for (const s of stmts) lowerStatement(s, ctx, out)
    else for (const s of stmts) ctx.recover(() => lowerStatement(s, ctx, out), () => declaredNames(s))
    return out
  } finally {
    ctx.popScope()
  }
}

/** The body of an `if`/loop: a block, or a single statement treated as one. */
function lowerBody(node: Statement, ctx: LowerContext): Step[] {
  return node.type === 'BlockStatement' ? lowerBlock(node.body, ctx) : lowerBlock([node], ctx)
}

/**
 * An `if` and its `else if` chain, link after link in the scope around them, as nested `if` steps. A
 * link is neither a scope (an `if` declares nothing in it, and every name in a chain of k branches was
 * looked up through k of them: k²) nor a level of nesting: a rule table of 10,000 branches lowers
 * without a host frame per branch. Collecting refusals, a refused link is skipped and the next lowered.
 */
function lowerIf(n: IfStatement, ctx: LowerContext, out: Step[]): void {
  let last = ifStep(n, ctx)
  out.push(last)
  let alternate = n.alternate
  while (alternate?.type === 'IfStatement') {
    const link = alternate
    let step: Step | undefined
    ctx.recover(() => { step = ifStep(link, ctx) })
    if (step) {
      last.else = [step]
      last = step
    }
    alternate = link.alternate
  }
  if (alternate) last.else = lowerBody(alternate, ctx)
}

const ifStep = (n: IfStatement, ctx: LowerContext): Step => ({ op: 'if', condition: lowerExpr(n.test, ctx), then: lowerBody(n.consequent, ctx), loc: ctx.loc(n) })

/**
 * How deep statements may nest (blocks, loops, `if`s, functions in them): a located error here, never a
 * host stack overflow (10,000 nested loops overflowed Bun's stack). A VM with the default limits refuses
 * an AST this deep anyway (AST_TOO_DEEP at 1,000).
 */
export const MAX_STATEMENT_NESTING = 1_000

export function lowerStatement(node: AnyStatement, ctx: LowerContext, out: Step[], label?: string): void {
  const lower = STMT[node.type]
  if (lower === undefined) return ctx.fail('UNSUPPORTED', node, { name: node.type })
  if (++ctx.statementDepth > MAX_STATEMENT_NESTING) {
    ctx.statementDepth--
    return ctx.fail('TOO_DEEP', node, { name: `${MAX_STATEMENT_NESTING.toLocaleString('en')} levels of statements` })
  }
  lower(node, ctx, out, label)
  // A refusal unwinding past here is recorded by ctx.recover, which puts the depth back.
  ctx.statementDepth--
}

function lowerDeclaration(node: VariableDeclaration, ctx: LowerContext, out: Step[]): void {
  const kind = node.kind
  if (kind === 'var') {
    const first = node.declarations[0]!.id
    ctx.fail('VAR', node, { name: first.type === 'Identifier' ? first.name : 'name' })
  }
  if (kind !== 'let' && kind !== 'const') return ctx.fail('UNSUPPORTED', node, { name: `\`${kind}\` declarations` })
  let lets: Record<string, Value> | undefined
  for (const d of node.declarations) {
    const before = out.length
    const typed = typedDeclaration(d, kind, ctx, node)
    if (typed) {
      lets = undefined
      out.push(typed)
      continue
    }
    const value = d.init ? lowerStatementValue(d.init, ctx, out) : id('undefined')
    if (out.length !== before) lets = undefined // a parallel step now stands between: later names get their own varsLet
    if (d.id.type === 'Identifier') {
      ctx.declare(d.id.name, kind, d.id)
      if (kind === 'const') {
        out.push({ op: 'constSet', key: d.id.name, value: toValue(value), loc: ctx.loc(d) })
        continue
      }
      if (!lets) {
        lets = varsObject(ctx)
        out.push({ op: 'varsLet', vars: lets, loc: ctx.loc(node) })
      }
      lets[d.id.name] = toValue(value)
      continue
    }
    lets = undefined
    out.push({ op: 'destructure', kind, pattern: lowerBinding(d.id, ctx, kind), value: toValue(value), loc: ctx.loc(d) })
  }
}

function lowerExpressionStatement(node: { expression: Expression; directive?: string }, ctx: LowerContext, out: Step[]): void {
  if (node.directive !== undefined) return // 'use strict' and friends: AJS is always strict
  const e = node.expression
  discard(e, ctx)
  const loc = ctx.loc(node as unknown as Node)
  if (e.type === 'AssignmentExpression' && e.operator === '=') {
    const typed = typedAssignValue(e.left, e.right, ctx)
    if (typed) {
      out.push({ op: 'varSet', key: (e.left as Identifier).name, value: toValue(typed), loc })
      return
    }
    if (e.left.type === 'Identifier') {
      checkAssignable(e.left, ctx)
      out.push({ op: 'varSet', key: e.left.name, value: toValue(lowerStatementValue(e.right, ctx, out)), loc })
      return
    }
    if (e.left.type === 'ObjectPattern' || e.left.type === 'ArrayPattern') {
      const pattern = lowerAssignTarget(e.left, ctx)
      out.push({ op: 'destructure', kind: 'assign', pattern, value: toValue(lowerStatementValue(e.right, ctx, out)), loc })
      return
    }
  }
  const all = promiseAllOf(e, ctx)
  if (all) {
    out.push(lowerPromiseAll(all, ctx))
    return
  }
  if (isErrorStatement(e, ctx)) {
    // The seed's way to fail: `Error('msg')` as a statement ends the run with that error
    // (catchable). In JS the statement does nothing, so no JS program changes meaning.
    const message = e.arguments.length === 0 ? '' : toValue(lowerExpr(e.arguments[0] as Expression, ctx))
    out.push({ op: 'Error', message, loc })
    return
  }
  out.push({ op: 'expr', value: lowerExpr(e, ctx), loc })
}

/** `Error(msg)` called as a statement, with the global `Error` (not a variable or helper of that name). */
function isErrorStatement(e: Expression, ctx: LowerContext): e is CallExpression {
  return e.type === 'CallExpression' && !e.optional && e.callee.type === 'Identifier' && e.callee.name === 'Error' &&
    ctx.scope.lookup('Error') === undefined && !ctx.helpers.has('Error') &&
    e.arguments.length <= 1 && e.arguments.every((a) => a.type !== 'SpreadElement')
}

function withLabel(step: Step, label: string | undefined): Step {
  if (label !== undefined) step.label = label
  return step
}

/** `for`/`for...of`/`for...in` heads share this: declared targets get a loop scope. */
function lowerForTarget(left: VariableDeclaration | EsPattern, ctx: LowerContext): { target: ReturnType<typeof lowerBinding>; kind?: 'let' | 'const' } {
  if (left.type === 'VariableDeclaration') {
    if (left.kind === 'var') {
      const id = left.declarations[0]!.id
      ctx.fail('VAR', left, { name: id.type === 'Identifier' ? id.name : 'item' })
    }
    const kind = left.kind as 'let' | 'const'
    return { target: lowerBinding(left.declarations[0]!.id, ctx, kind), kind }
  }
  return { target: lowerAssignTarget(left, ctx) }
}

function lowerForInOf(node: ForOfStatement | ForInStatement, ctx: LowerContext, out: Step[], label?: string): void {
  ctx.pushScope()
  try {
    // The iterable is evaluated with the loop's own names in their dead zone, as in JS.
    if (node.left.type === 'VariableDeclaration') predeclarePatterns(ctx, node.left.declarations.map((d) => d.id))
    const source = node.type === 'ForOfStatement' ? mapWalk(node.right, ctx) ?? setWalk(node.right, ctx) ?? lowerIterable(node.right, ctx) : lowerExpr(node.right, ctx)
    const { target, kind } = lowerForTarget(node.left, ctx)
    const body = lowerBody(node.body, ctx)
    const step: Step = node.type === 'ForOfStatement'
      ? { op: 'forOf', target, iterable: source, body, loc: ctx.loc(node) }
      : { op: 'forIn', target, object: source, body, loc: ctx.loc(node) }
    if (kind) step.kind = kind
    out.push(withLabel(step, label))
  } finally {
    ctx.popScope()
  }
}

function lowerFor(node: ForStatement, ctx: LowerContext, out: Step[], label?: string): void {
  ctx.pushScope()
  try {
    const step: Step = { op: 'for', loc: ctx.loc(node) }
    if (node.init) {
      const init: Step[] = []
      if (node.init.type === 'VariableDeclaration') {
        predeclareBlock([node.init], ctx)
        lowerDeclaration(node.init, ctx, init)
      } else {
        discard(node.init, ctx)
        init.push({ op: 'expr', value: lowerExpr(node.init, ctx), loc: ctx.loc(node.init) })
      }
      step.init = init
    }
    if (node.test) step.condition = lowerExpr(node.test, ctx)
    if (node.update) { discard(node.update, ctx); step.update = lowerExpr(node.update, ctx) }
    step.body = lowerBody(node.body, ctx)
    out.push(withLabel(step, label))
  } finally {
    ctx.popScope()
  }
}

function lowerSwitch(node: SwitchStatement, ctx: LowerContext, out: Step[], label?: string): void {
  const discriminant = lowerExpr(node.discriminant, ctx)
  ctx.pushScope()
  try {
    // JS shares one scope across cases; AJS gives each case body its own block,
    // so a name declared in one case is refused in the others.
    for (const c of node.cases) predeclareBlock(c.consequent, ctx, 'tdzCase')
    const cases = node.cases.map((c: SwitchCase) => {
      const body = lowerBlock(c.consequent, ctx)
      return c.test ? { test: lowerExpr(c.test, ctx), body } : { body }
    })
    out.push(withLabel({ op: 'switch', discriminant, cases, loc: ctx.loc(node) }, label))
  } finally {
    ctx.popScope()
  }
}

function lowerTry(node: TryStatement, ctx: LowerContext, out: Step[]): void {
  const step: Step = { op: 'try', try: lowerBlock(node.block.body, ctx), loc: ctx.loc(node) }
  if (node.handler) {
    const h = node.handler
    ctx.pushScope()
    try {
      if (h.param) {
        predeclarePatterns(ctx, [h.param])
        step.catchParam = lowerBinding(h.param, ctx, 'let')
      }
      step.catch = lowerBlock(h.body.body, ctx)
    } finally {
      ctx.popScope()
    }
  }
  if (node.finalizer) step.finally = lowerBlock(node.finalizer.body, ctx)
  out.push(step)
}

const LOOPS = new Set(['ForStatement', 'ForOfStatement', 'ForInStatement', 'WhileStatement', 'DoWhileStatement', 'SwitchStatement'])

const reject = (code: CodeName): LowerStmt => (node, ctx) => ctx.fail(code, node)

/** The dispatch table: ESTree statement type -> lowering. */
const STMT: Record<string, LowerStmt> = {
  VariableDeclaration: lowerDeclaration,
  ExpressionStatement: lowerExpressionStatement,
  BlockStatement: (n: BlockStatement, ctx, out) => { out.push({ op: 'scope', steps: lowerBlock(n.body, ctx), loc: ctx.loc(n) }) },
  EmptyStatement: () => {},
  IfStatement: lowerIf,
  WhileStatement: (n, ctx, out, label) => {
    out.push(withLabel({ op: 'while', condition: lowerExpr(n.test, ctx), body: lowerBody(n.body, ctx), loc: ctx.loc(n) }, label))
  },
  DoWhileStatement: (n, ctx, out, label) => {
    const body = lowerBody(n.body, ctx)
    out.push(withLabel({ op: 'doWhile', body, condition: lowerExpr(n.test, ctx), loc: ctx.loc(n) }, label))
  },
  ForStatement: lowerFor,
  ForOfStatement: lowerForInOf,
  ForInStatement: lowerForInOf,
  SwitchStatement: lowerSwitch,
  LabeledStatement: (n, ctx, out) => {
    if (!LOOPS.has(n.body.type)) ctx.fail('LABEL', n)
    lowerStatement(n.body, ctx, out, n.label.name)
  },
  BreakStatement: (n, ctx, out) => { out.push(n.label ? { op: 'break', label: n.label.name, loc: ctx.loc(n) } : { op: 'break', loc: ctx.loc(n) }) },
  ContinueStatement: (n, ctx, out) => { out.push(n.label ? { op: 'continue', label: n.label.name, loc: ctx.loc(n) } : { op: 'continue', loc: ctx.loc(n) }) },
  ReturnStatement: (n, ctx, out) => {
    if (!n.argument) return out.push({ op: 'return', loc: ctx.loc(n) })
    if (ctx.inAsyncFunction) ctx.awaited.add(unwrap(n.argument)!) // an async function resolves a returned promise
    out.push({ op: 'return', value: toValue(lowerStatementValue(n.argument, ctx, out)), loc: ctx.loc(n) })
  },
  ThrowStatement: (n, ctx, out) => { out.push({ op: 'throw', value: toValue(lowerExpr(n.argument, ctx)), loc: ctx.loc(n) }) },
  TryStatement: lowerTry,
  FunctionDeclaration: (n, ctx) => {
    if (n.generator) ctx.fail('GENERATOR', n)
    ctx.fail('NESTED_FUNCTION', n, { name: n.id?.name ?? 'helper' })
  },
  ClassDeclaration: reject('CLASS'),
  WithStatement: reject('WITH'),
  DebuggerStatement: reject('DEBUGGER'),
  ImportDeclaration: reject('MODULE'),
  ExportNamedDeclaration: reject('MODULE'),
  ExportDefaultDeclaration: reject('MODULE'),
  ExportAllDeclaration: reject('MODULE'),
}

export { collectNames }
