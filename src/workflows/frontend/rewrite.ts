/**
 * The ESTree rewrite that turns a workflow module's statements into plain
 * AJS before the transpiler lowers them. Every synthesized node keeps the
 * offsets of the source it replaces, so locations and code frames still
 * point into the user's file.
 *
 * - `await call(...)` → `call(...)` (calls already wait);
 * - `agent(p, o)` → `agent({ prompt: p, options: o, site: "12:5" })`, and the
 *   same for `workflow`, `sleep`, `log`, `phase` (the call site becomes part
 *   of the step's identity in the journal);
 * - a call of a custom atom `lookup(x)` → `lookup({ input: x, site: "3:10" })`
 *   (journaled by call site like agent(); see engine/custom-atoms.ts);
 * - `budget.total` / `budget.spent()` / `budget.remaining()` → atom calls;
 * - `args` inside helpers → the `workflowArgs()` atom (a global, as in the
 *   engine's scripts); in the entry it is the entry's parameter;
 * - statements holding `parallel(...)` / `pipeline(...)` → see tasks.ts;
 * - `Date.now()`, `new Date()` and redeclared workflow globals are refused.
 */
import type { Node } from 'acorn'
import type { SourceLocator } from '../../diagnostics/location.ts'
import type { FailFn } from '../../transpiler/statements-entry.ts'
import type { CustomAtomTable } from './atom-table.ts'

/** Names a workflow module sees without declaring them. */
export const WORKFLOW_GLOBALS: ReadonlySet<string> = new Set(['args', 'budget', 'log', 'phase', 'agent', 'workflow', 'parallel', 'pipeline', 'sleep', 'signal', 'expose', 'patched', 'upsertAttributes', 'continueAsNew'])

/** Atom names behind the globals (what the transpiler must know as callable). */
export const WORKFLOW_ATOMS = ['agent', 'workflow', 'sleep', 'log', 'phase', 'signal', 'expose', 'patched', 'upsertAttributes', 'continueAsNew', 'budgetTotal', 'budgetSpent', 'budgetRemaining', 'workflowArgs', 'workflowTasks'] as const

type AnyNode = Node & Record<string, any>

/** Call shapes: positional parameters → fields of the atom's object argument. */
export const CALLS: Record<string, { fields: readonly string[]; min: number; rest?: boolean; site: boolean; usage: string }> = {
  agent: { fields: ['prompt', 'options'], min: 1, site: true, usage: 'agent(prompt, options?)' },
  workflow: { fields: ['ref', 'args'], min: 1, site: true, usage: 'workflow(nameOrRef, args?)' },
  sleep: { fields: ['durationMs'], min: 1, site: true, usage: 'sleep(ms)' },
  phase: { fields: ['name', 'options'], min: 1, site: false, usage: 'phase(name, options?)' },
  log: { fields: ['values'], min: 0, rest: true, site: false, usage: 'log(...values)' },
  signal: { fields: ['name', 'timeoutMs'], min: 0, site: true, usage: 'signal(name?, timeoutMs?)' },
  expose: { fields: ['name', 'value'], min: 2, site: false, usage: 'expose(queryName, value)' },
  patched: { fields: ['id'], min: 1, site: false, usage: 'patched(patchId)' },
  upsertAttributes: { fields: ['set'], min: 1, site: false, usage: 'upsertAttributes({ name: value })' },
  continueAsNew: { fields: ['args'], min: 0, site: false, usage: 'continueAsNew(args?)' },
}

const BUDGET_READERS: Record<string, string> = { spent: 'budgetSpent', remaining: 'budgetRemaining' }

export interface RewriteContext {
  fail: FailFn
  locator: SourceLocator
  /** `sleep` was imported from 'workflow:extra'. */
  sleepImported: boolean
  /** Inside a helper (where `args` is the global, read through an atom). */
  inHelper: boolean
  /** Expands a statement holding parallel/pipeline into several (tasks.ts); null when it holds none. */
  expand: (stmt: AnyNode, ctx: RewriteContext) => AnyNode[] | null
  /** The host's custom atoms (compileWorkflow's `atoms`): globals of the module, called with a site. */
  customAtoms: CustomAtomTable
  /** Custom atoms the module calls. */
  calledAtoms: Set<string>
}

const at = (n: Node) => ({ start: n.start, end: n.end })
export const ident = (name: string, n: Node): AnyNode => ({ type: 'Identifier', name, ...at(n) }) as AnyNode
export const literal = (value: string | number, n: Node): AnyNode => ({ type: 'Literal', value, raw: JSON.stringify(value), ...at(n) }) as AnyNode
export const prop = (key: string, value: AnyNode): AnyNode =>
  ({ type: 'Property', key: ident(key, value), value, kind: 'init', computed: false, shorthand: false, method: false, ...at(value) }) as AnyNode
export const callOf = (name: string, args: AnyNode[], n: Node): AnyNode =>
  ({ type: 'CallExpression', callee: ident(name, n), arguments: args, optional: false, ...at(n) }) as AnyNode
export const objectOf = (props: AnyNode[], n: Node): AnyNode => ({ type: 'ObjectExpression', properties: props, ...at(n) }) as AnyNode

/** Names bound by a binding pattern. */
export function boundNames(p: AnyNode | null | undefined, out: AnyNode[] = []): AnyNode[] {
  if (!p) return out
  switch (p.type) {
    case 'Identifier': out.push(p); break
    case 'ObjectPattern': for (const q of p.properties) boundNames(q.type === 'RestElement' ? q.argument : q.value, out); break
    case 'ArrayPattern': for (const q of p.elements) boundNames(q, out); break
    case 'RestElement': boundNames(p.argument, out); break
    case 'AssignmentPattern': boundNames(p.left, out); break
  }
  return out
}

function checkBindings(patterns: Array<AnyNode | null>, ctx: RewriteContext): void {
  for (const p of patterns) {
    for (const id of boundNames(p)) if (WORKFLOW_GLOBALS.has(id.name) || ctx.customAtoms.has(id.name)) ctx.fail('WORKFLOW_RESERVED', id, { name: id.name })
  }
}

/** `lookup(x)` → `lookup({ input: x, site })`, the literal argument checked against the atom's fields when known. */
function rewriteAtomCall(name: string, node: AnyNode, ctx: RewriteContext): AnyNode {
  const args = node.arguments as AnyNode[]
  const fields = ctx.customAtoms.get(name) ?? null
  const listed = fields ? [...fields.keys()].join(', ') : 'field: value'
  if (args.length > 2 || args.some((a) => a.type === 'SpreadElement')) ctx.fail('ATOM_ARGS', node, { name, detail: 'takes one object argument (and the call options, e.g. { retry })', fields: listed })
  const arg = args[0]
  if (fields && (arg === undefined || arg.type === 'ObjectExpression')) {
    const props = (arg?.properties ?? []) as AnyNode[]
    if (props.every((p) => p.type === 'Property' && !p.computed)) {
      const seen = new Set<string>()
      for (const p of props) {
        const key = p.key.type === 'Identifier' ? p.key.name : String(p.key.value)
        if (!fields.has(key)) ctx.fail('ATOM_ARGS', p, { name, detail: `has no field \`${key}\``, fields: listed })
        seen.add(key)
      }
      for (const [field, f] of fields) if (!f.optional && !seen.has(field)) ctx.fail('ATOM_ARGS', node, { name, detail: `needs the field \`${field}\``, fields: listed })
    }
  }
  ctx.calledAtoms.add(name)
  const props = arg ? [prop('input', arg)] : []
  if (args[1]) props.push(prop('options', args[1]))
  props.push(prop('site', literal(siteOf(node, ctx), node)))
  return callOf(name, [objectOf(props, node)], node)
}

function siteOf(n: Node, ctx: RewriteContext): string {
  const p = ctx.locator.position(n.start)
  return `${p.line}:${p.column}`
}

function rewriteWorkflowCall(name: string, node: AnyNode, ctx: RewriteContext): AnyNode {
  const spec = CALLS[name]!
  const args = node.arguments as AnyNode[]
  const usage = spec.usage
  if (name === 'sleep' && !ctx.sleepImported) {
    ctx.fail('WORKFLOW_CALL', node, { name, detail: 'must be imported from "workflow:extra"', usage: "import { sleep } from 'workflow:extra'" })
  }
  const props: AnyNode[] = []
  if (spec.rest) {
    props.push(prop('values', { type: 'ArrayExpression', elements: args, ...at(node) } as AnyNode))
  } else {
    if (args.some((a) => a.type === 'SpreadElement')) ctx.fail('WORKFLOW_CALL', node, { name, detail: 'takes no spread arguments', usage })
    if (args.length < spec.min || args.length > spec.fields.length) {
      ctx.fail('WORKFLOW_CALL', node, { name, detail: `takes ${spec.min} to ${spec.fields.length} arguments, got ${args.length}`, usage })
    }
    args.forEach((a, i) => props.push(prop(spec.fields[i]!, a)))
  }
  if (spec.site) props.push(prop('site', literal(siteOf(node, ctx), node)))
  return callOf(name, [objectOf(props, node)], node)
}

function isBudget(n: AnyNode | undefined): boolean {
  return n?.type === 'Identifier' && n.name === 'budget'
}

/** Rewrite a statement list, expanding parallel/pipeline statements. */
export function rewriteStatements(list: AnyNode[], ctx: RewriteContext): AnyNode[] {
  const out: AnyNode[] = []
  for (const s of list) {
    const expanded = ctx.expand(s, ctx)
    if (expanded) out.push(...expanded)
    else out.push(rewrite(s, ctx))
  }
  return out
}

/** Rewrite `node` and its children; returns the node to put in its place. */
export function rewrite(node: AnyNode, ctx: RewriteContext): AnyNode {
  switch (node.type) {
    case 'BlockStatement':
      node.body = rewriteStatements(node.body, ctx)
      return node
    case 'SwitchCase':
      if (node.test) node.test = rewrite(node.test, ctx)
      node.consequent = rewriteStatements(node.consequent, ctx)
      return node
    case 'AwaitExpression':
      if (node.argument.type !== 'CallExpression') ctx.fail('WORKFLOW_AWAIT', node)
      return rewrite(node.argument, ctx)
    case 'MemberExpression':
      if (isBudget(node.object) && !node.computed && node.property.name === 'total') return callOf('budgetTotal', [], node)
      if (node.object.type === 'Identifier' && node.object.name === 'Date' && !node.computed && node.property.name === 'now') {
        ctx.fail('WORKFLOW_NONDETERMINISM', node, { name: 'Date.now()' })
      }
      node.object = rewrite(node.object, ctx)
      if (node.computed) node.property = rewrite(node.property, ctx)
      return node
    case 'NewExpression':
      // `new Date()` reads the clock as `Date.now()` does; `new Date(x)` of a given time or text replays alike.
      if (node.callee.type === 'Identifier' && node.callee.name === 'Date' && node.arguments.length === 0) {
        ctx.fail('WORKFLOW_NONDETERMINISM', node, { name: 'new Date()' })
      }
      break
    case 'Property':
      if (node.computed) node.key = rewrite(node.key, ctx)
      node.value = rewrite(node.value, ctx)
      if (node.shorthand && node.value.type !== 'Identifier') node.shorthand = false
      return node
    case 'Identifier':
      if (node.name === 'budget') ctx.fail('WORKFLOW_BUDGET', node)
      if (node.name === 'args' && ctx.inHelper) return callOf('workflowArgs', [], node)
      return node
    case 'VariableDeclarator':
      checkBindings([node.id], ctx)
      break
    case 'CatchClause':
      checkBindings([node.param], ctx)
      break
    case 'ArrowFunctionExpression':
    case 'FunctionExpression':
    case 'FunctionDeclaration':
      checkBindings([node.id, ...node.params], ctx)
      node.async = false
      break
    case 'CallExpression': {
      const callee = node.callee as AnyNode
      if (callee.type === 'MemberExpression' && isBudget(callee.object) && !callee.computed) {
        const atom = BUDGET_READERS[callee.property.name]
        if (atom && node.arguments.length === 0) return callOf(atom, [], node)
        return ctx.fail('WORKFLOW_BUDGET', node)
      }
      if (callee.type === 'MemberExpression' && callee.object.type === 'Identifier' && callee.object.name === 'Math' &&
        !callee.computed && callee.property.name === 'random') break // the VM's seeded source: replays exactly
      if (callee.type === 'Identifier' && (callee.name === 'parallel' || callee.name === 'pipeline')) {
        return ctx.fail('WORKFLOW_TASKS', node, { name: callee.name, detail: 'the call must be a whole statement (`const r = await ' + callee.name + '(...)`, `r = ...`, `await ...` or `export default ...`)' })
      }
      node.arguments = (node.arguments as AnyNode[]).map((a) => rewrite(a, ctx))
      if (callee.type === 'Identifier') {
        if (CALLS[callee.name]) return rewriteWorkflowCall(callee.name, node, ctx)
        if (ctx.customAtoms.has(callee.name)) return rewriteAtomCall(callee.name, node, ctx)
        return node
      }
      node.callee = rewrite(callee, ctx)
      return node
    }
  }
  for (const key of Object.keys(node)) {
    const v = node[key]
    if (Array.isArray(v)) node[key] = v.map((c) => (c && typeof c.type === 'string' ? rewrite(c, ctx) : c))
    else if (v && typeof v === 'object' && typeof v.type === 'string') node[key] = rewrite(v, ctx)
  }
  return node
}
