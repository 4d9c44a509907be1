/**
 * `parallel(tasks)` and `pipeline(items, ...stages)`: concurrent tasks on
 * the VM's `parallel` step, where a failed task gives `null`.
 *
 *   const [a, b] = await parallel([() => agent('a'), () => agent('b')])
 *   const notes = await parallel(files.map((f) => () => agent('Read ' + f)))
 *   const out = await pipeline(items, (x) => agent('draft ' + x), (d) => agent('polish ' + d))
 *
 * Each task (or stage) becomes a helper function whose parameters are its
 * own plus the outer variables it reads (captured by value; assigning one is
 * refused). The statement holding the call is expanded in place: the result
 * variable is declared before it, a marker stands where the concurrent step
 * goes, and after lowering the marker is replaced by the `parallel` step
 * (one branch per literal task, or a pool of workers over a list), so the
 * call must be a whole statement: `const r = await parallel(...)`,
 * `r = await parallel(...)`, `await parallel(...)` or `export default ...`.
 */
import type { Node } from 'acorn'
import type { AjsProgram, Step } from '../../ast/types.ts'
import { transpile } from '../../transpiler/index.ts'
import { GLOBAL_FUNCTIONS, GLOBAL_NAMESPACES, GLOBAL_VALUES, coreAtoms } from '../../transpiler/globals.ts'
import { boundNames, callOf, ident, literal, objectOf, prop, rewrite, WORKFLOW_ATOMS, WORKFLOW_GLOBALS, type RewriteContext } from './rewrite.ts'

type AnyNode = Node & Record<string, any>

/** Workers of a task list whose length is known only at run time (the host still bounds agent concurrency). */
export const TASK_WORKERS = 16

interface TaskFn {
  helper: string
  /** Values passed before the captures: `item, index` (lists) or `value, index` (stages); none for literal tasks. */
  positional: boolean
  captures: string[]
}

export interface TaskGroup {
  id: string
  /** `list`: literal tasks, one branch each; `pool`: workers over `items` running the stages in turn. */
  kind: 'list' | 'pool'
  name: string
  items: string
  out: string
  next: string
  tasks: TaskFn[]
}

export interface TasksState {
  groups: Map<string, TaskGroup>
  helpers: AnyNode[]
  /** Top-level helper names (not captured: they are callable everywhere). */
  topLevel: ReadonlySet<string>
}

const isFn = (n: AnyNode | undefined) => n?.type === 'ArrowFunctionExpression' || n?.type === 'FunctionExpression'
const unAwait = (n: AnyNode | null | undefined) => (n?.type === 'AwaitExpression' ? n.argument : n)
const isTasksCall = (n: AnyNode | null | undefined) => {
  const c = unAwait(n)
  return c?.type === 'CallExpression' && c.callee.type === 'Identifier' && (c.callee.name === 'parallel' || c.callee.name === 'pipeline')
}

let coreAtomNames: ReadonlySet<string> | undefined
function knownNames(state: TasksState, ctx: RewriteContext): (name: string) => boolean {
  const core = (coreAtomNames ??= new Set(coreAtoms().keys()))
  return (name) => state.topLevel.has(name) || WORKFLOW_GLOBALS.has(name) || GLOBAL_VALUES.has(name) || GLOBAL_NAMESPACES.has(name) ||
    GLOBAL_FUNCTIONS.has(name) || core.has(name) || (WORKFLOW_ATOMS as readonly string[]).includes(name) || ctx.customAtoms.has(name)
}

/** Outer variables a function reads (first use kept for locations), refusing assignments to them. */
function captures(fn: AnyNode, state: TasksState, ctx: RewriteContext, name: string): AnyNode[] {
  const declared = new Set<string>()
  const used = new Map<string, AnyNode>()
  const assigned: AnyNode[] = []
  const visit = (n: AnyNode | null | undefined, parent?: AnyNode, key?: string): void => {
    if (!n || typeof n.type !== 'string') return
    if (n.type === 'Identifier') {
      if (parent?.type === 'MemberExpression' && key === 'property' && !parent.computed) return
      if (parent?.type === 'Property' && key === 'key' && !parent.computed) return
      if (!used.has(n.name)) used.set(n.name, n)
      return
    }
    if (isFn(n)) for (const id of boundNames({ type: 'ArrayPattern', elements: n.params } as unknown as AnyNode)) declared.add(id.name)
    if (n.type === 'VariableDeclarator') for (const id of boundNames(n.id)) declared.add(id.name)
    if (n.type === 'CatchClause') for (const id of boundNames(n.param)) declared.add(id.name)
    if (n.type === 'AssignmentExpression') assigned.push(...boundNames(n.left.type === 'Identifier' ? n.left : null))
    if (n.type === 'UpdateExpression' && n.argument.type === 'Identifier') assigned.push(n.argument)
    for (const k of Object.keys(n)) {
      const v = n[k]
      if (Array.isArray(v)) for (const c of v) visit(c, n, k)
      else if (v && typeof v === 'object') visit(v, n, k)
    }
  }
  visit(fn)
  const known = knownNames(state, ctx)
  const out = [...used.values()].filter((id) => !declared.has(id.name) && !known(id.name))
  for (const a of assigned) {
    if (out.some((c) => c.name === a.name)) ctx.fail('WORKFLOW_TASKS', a, { name, detail: `a task cannot assign \`${a.name}\` of the enclosing code; return the value instead` })
  }
  return out
}

/** The task function as a helper declaration (already rewritten as helper code). */
function taskHelper(fn: AnyNode, helper: string, caps: AnyNode[], positional: boolean, state: TasksState, ctx: RewriteContext): TaskFn {
  if (fn.params.length > 2 || (!positional && fn.params.length > 0)) {
    ctx.fail('WORKFLOW_TASKS', fn, { name: helper.split('_')[0], detail: positional ? 'a stage takes at most (value, index)' : 'a task takes no parameters' })
  }
  const params = positional
    ? [fn.params[0] ?? ident(`${helper}_v`, fn), fn.params[1] ?? ident(`${helper}_i`, fn)]
    : []
  const body = fn.body.type === 'BlockStatement'
    ? fn.body
    : { type: 'BlockStatement', body: [{ type: 'ReturnStatement', argument: fn.body, start: fn.body.start, end: fn.body.end }], start: fn.body.start, end: fn.body.end }
  const decl = {
    type: 'FunctionDeclaration', id: ident(helper, fn), params: [...params, ...caps.map((c) => ident(c.name, c))],
    body, async: false, generator: false, expression: false, start: fn.start, end: fn.end,
  } as AnyNode
  const saved = ctx.inHelper
  ctx.inHelper = true
  try {
    state.helpers.push(rewrite(decl, ctx))
  } finally {
    ctx.inHelper = saved
  }
  return { helper, positional, captures: caps.map((c) => c.name) }
}

/** Expand a statement holding parallel/pipeline; null when it holds none at statement level. */
export function expandTasks(stmt: AnyNode, ctx: RewriteContext & { tasks?: unknown }, state: TasksState): AnyNode[] | null {
  let holder: AnyNode | undefined
  let key = ''
  if (stmt.type === 'VariableDeclaration' && stmt.declarations.length === 1 && isTasksCall(stmt.declarations[0].init)) { holder = stmt.declarations[0]; key = 'init' }
  else if (stmt.type === 'ReturnStatement' && isTasksCall(stmt.argument)) { holder = stmt; key = 'argument' }
  else if (stmt.type === 'ExpressionStatement' && isTasksCall(stmt.expression)) { holder = stmt; key = 'expression' }
  else if (stmt.type === 'ExpressionStatement' && stmt.expression.type === 'AssignmentExpression' && stmt.expression.operator === '=' && isTasksCall(stmt.expression.right)) { holder = stmt.expression; key = 'right' }
  if (!holder) return null
  const call = unAwait(holder[key]) as AnyNode
  const name = call.callee.name as string
  const id = `__wf${state.groups.size}`
  const group: TaskGroup = { id, kind: 'pool', name, items: `${id}_items`, out: `${id}_out`, next: `${id}_next`, tasks: [] }
  const args = call.arguments as AnyNode[]
  if (args.some((a) => a.type === 'SpreadElement')) ctx.fail('WORKFLOW_TASKS', call, { name, detail: 'spread arguments are not accepted' })
  let items: AnyNode
  const uses: AnyNode[] = []
  const addTask = (fn: AnyNode, positional: boolean) => {
    const caps = captures(fn, state, ctx, name)
    uses.push(...caps)
    group.tasks.push(taskHelper(fn, `${id}_t${group.tasks.length}`, caps, positional, state, ctx))
  }
  if (name === 'parallel') {
    const list = args[0]
    if (args.length !== 1) return ctx.fail('WORKFLOW_TASKS', call, { name, detail: 'it takes one array of tasks' })
    if (list.type === 'ArrayExpression' && list.elements.every((e: AnyNode | null) => e && isFn(e))) {
      group.kind = 'list'
      for (const fn of list.elements) addTask(fn, false)
      items = literal(0, list)
    } else if (list.type === 'CallExpression' && list.callee.type === 'MemberExpression' && !list.callee.computed &&
      list.callee.property.name === 'map' && list.arguments.length === 1 && isFn(list.arguments[0]) && isFn(list.arguments[0].body)) {
      const outer = list.arguments[0] as AnyNode
      const inner = outer.body as AnyNode
      if (inner.params.length > 0) ctx.fail('WORKFLOW_TASKS', inner, { name, detail: 'a task takes no parameters' })
      addTask({ ...inner, params: outer.params, start: outer.start, end: outer.end }, true)
      items = list.callee.object
    } else {
      return ctx.fail('WORKFLOW_TASKS', list ?? call, { name, detail: 'an array of arrow functions, or `items.map((item) => () => ...)`' })
    }
  } else {
    if (args.length < 2) return ctx.fail('WORKFLOW_TASKS', call, { name, detail: 'it takes the items and at least one stage' })
    items = args[0]!
    for (const stage of args.slice(1)) {
      if (!isFn(stage)) ctx.fail('WORKFLOW_TASKS', stage, { name, detail: 'each stage is an arrow function `(value, index) => ...`' })
      addTask(stage, true)
    }
  }
  state.groups.set(id, group)
  const letOf = (n: string, init: AnyNode) => ({
    type: 'VariableDeclaration', kind: 'let', start: call.start, end: call.end,
    declarations: [{ type: 'VariableDeclarator', id: ident(n, call), init, start: call.start, end: call.end }],
  }) as AnyNode
  const marker = {
    type: 'ExpressionStatement', start: call.start, end: call.end,
    // `uses` makes the transpiler check every captured name where the call stands (declared, not in TDZ).
    expression: callOf('workflowTasks', [objectOf([prop('group', literal(id, call)), prop('uses', { type: 'ArrayExpression', elements: uses, start: call.start, end: call.end } as AnyNode)], call)], call),
  } as AnyNode
  holder[key] = ident(group.out, call)
  return [
    letOf(group.items, rewrite(items, ctx)),
    letOf(group.out, { type: 'Literal', value: null, raw: 'null', start: call.start, end: call.end } as AnyNode),
    letOf(group.next, literal(0, call)),
    marker,
    rewrite(stmt, ctx),
  ]
}

/** AJS source of the steps that run one group (transpiled once, at compile time). */
function groupSource(g: TaskGroup): string {
  const caps = g.tasks.flatMap((t) => t.captures)
  const params = [g.items, g.out, g.next, ...new Set(caps)].join(', ')
  const stubs = g.tasks.map((t) => `function ${t.helper}() {}`).join('\n')
  const call = (t: TaskFn, value: string, index: string) => `${t.helper}(${[...(t.positional ? [value, index] : []), ...t.captures].join(', ')})`
  let body: string
  if (g.kind === 'list') {
    const init = `${g.out} = [${g.tasks.map(() => 'null').join(', ')}]`
    const branches = g.tasks.map((t, k) => `try { ${g.out}[${k}] = ${call(t, '', '')} } catch (__wfE${k}) { ${g.out}[${k}] = null }`)
    body = `${init}\n${branches.join('\n')}`
  } else {
    const stages = g.tasks.map((t) => `__wfV = ${call(t, '__wfV', '__wfI')}`).join('\n')
    body = `if (!Array.isArray(${g.items})) throw new TypeError('${g.name}: the items must be an array')
${g.out} = ${g.items}.map((x) => null)
while (true) {
  const __wfI = ${g.next}
  ${g.next} = ${g.next} + 1
  if (__wfI >= ${g.items}.length) break
  try {
    let __wfV = ${g.items}[__wfI]
    ${stages}
    ${g.out}[__wfI] = __wfV
  } catch (__wfE) { ${g.out}[__wfI] = null }
}`
  }
  return `${stubs}\nfunction ${g.id}(${params}) {\n${body}\n}`
}

/** The steps replacing a group's marker: initialisation, then one `parallel` step. */
function groupSteps(g: TaskGroup): Step[] {
  const steps = JSON.parse(JSON.stringify(transpile(groupSource(g)).ast.steps)) as Step[]
  if (g.kind === 'list') {
    // steps[0] sets `out`; then one try step per task, each its own branch.
    return [steps[0]!, { op: 'parallel', branches: steps.slice(1).map((s) => [s]) } as unknown as Step]
  }
  const [check, init, loop] = steps
  const branches = Array.from({ length: TASK_WORKERS }, (_, k) => JSON.parse(JSON.stringify([loop]).replaceAll('"__wfI"', `"__wfI${k}"`).replaceAll('"__wfV"', `"__wfV${k}"`).replaceAll('"__wfE"', `"__wfE${k}"`)))
  return [check!, init!, { op: 'parallel', branches } as unknown as Step]
}

function markerGroup(step: any): string | undefined {
  if (step?.op !== 'expr' || step.value?.$expr !== 'call' || step.value.callee !== 'workflowTasks') return undefined
  const group = step.value.args?.[0]?.properties?.find((p: any) => p.key === 'group')?.value
  return typeof group === 'string' ? group : group?.value
}

/** Replace every marker in the program by its group's steps (in place). */
export function spliceTaskGroups(ast: AjsProgram, groups: ReadonlyMap<string, TaskGroup>): void {
  if (groups.size === 0) return
  const visit = (v: any): void => {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const g = markerGroup(v[i])
        if (g !== undefined) {
          const steps = groupSteps(groups.get(g)!)
          for (const s of steps) if (v[i].loc && !(s as any).loc) (s as any).loc = v[i].loc
          v.splice(i, 1, ...steps)
          i += steps.length - 1
        } else visit(v[i])
      }
    } else if (v && typeof v === 'object') {
      for (const k of Object.keys(v)) visit(v[k])
    }
  }
  visit(ast)
}
