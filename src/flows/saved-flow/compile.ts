/**
 * `compileSavedFlow`: a SavedFlow v1 → an ajs/1 program.
 *
 * Extended semantics (the default): a work queue starting at the entry node;
 * each visited node runs, then queues its successors: every outgoing edge for
 * ordinary nodes, the edges whose `source_handle` equals the decision for
 * `branch` and `branch_tool`. Cycles run under a visit budget
 * (`maxVisits`, default 100; `FLOW_VISIT_BUDGET` beyond it).
 *
 * Reference semantics (`{ semantics: 'reference' }`) is the reference
 * runtime's exact behaviour: the reachable `prompt` nodes run once each, in
 * breadth-first order, and any other reachable node type is refused
 * (`UnsupportedNodeType`, at compile time).
 *
 * The program takes the run input as `input` and returns
 * `{ outputs: { nodeId: output }, last, path }` (`path`: node ids in visiting
 * order).
 */
import { LIBRARIES } from '../../ast/libraries.ts'
import { ATOM_NAME, COMPARISON_OPERATORS, FORBIDDEN_NAMES } from '../../ast/nodes.ts'
import type { AjsProgram, Expr, Step } from '../../ast/types.ts'
import { TranspileError } from '../../diagnostics/diagnostic.ts'
import { transpileExpression } from '../../transpiler/index.ts'
import { FlowError, problem, type FlowProblem } from '../problems.ts'
import { FLOW_ATOM_NAMES } from '../runtime/atoms.ts'
import {
  arrayOf, atomStep, binary, callAtom, exprStep, fail, id, if_, let_, lit, member, objectOf, ret, set,
} from '../runtime/ast.ts'
import { isCoreNodeType, type FlowNode, type SavedFlow } from './model.ts'
import { entryNode, outgoingEdges, walkBfs } from './walk.ts'
import { parseSavedFlow } from './parse.ts'
import { node as make } from '../../ast/build.ts'

export interface CompileSavedFlowOptions {
  /** `'extended'` (default) or `'reference'` (reachable prompts in BFS order, nothing else). */
  semantics?: 'extended' | 'reference'
  /** Node visits allowed in one run (extended semantics). Default 100. */
  maxVisits?: number
  /**
   * @deprecated Ignored. Vendor node types and `branch_tool` tools are bound late: the compiled
   * program names them in its root `atoms`, and the VM that runs it checks them before it starts.
   */
  atoms?: Iterable<string>
}

/** The names a branch condition may use. */
export const CONDITION_VARS = ['input', 'last', 'outputs', 'path', 'visits'] as const
const STEP_META = new Set(['op', 'result', 'loc'])
const DEFAULT_MAX_VISITS = 100

const nodeAt = (flow: SavedFlow, node: FlowNode) => `/flow/nodes/${flow.flow.nodes.indexOf(node)}`
const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0

const assignMember = (object: string, key: string, value: Expr): Step =>
  exprStep(make('assign', { op: '=', target: member(id(object), lit(key)), value }) as Expr)
const push = (list: string, item: Expr): Step => ({ op: 'push', list: id(list), item } as Step)

/** Record a node's output: `outputs[node] = last`, and for prompts the history the next prompts see. */
function recordOutput(node: FlowNode, history: boolean): Step[] {
  const out = [assignMember('outputs', node.id, id('last'))]
  if (history) out.push(push('history', objectOf({ node: lit(node.id), output: id('last') })))
  return out
}

function promptSteps(node: FlowNode): Step[] {
  const persona = node.data['persona']
  return [
    set('last', callAtom('flowPrompt', {
      step: lit(node.id), prompt: lit(node.data['prompt']), history: id('history'), input: id('input'),
      ...(str(persona) ? { persona: lit(persona) } : {}),
    })),
    ...recordOutput(node, true),
  ]
}

/** Whether an expression's value is always a boolean (a comparison, `!`, `&&`/`||` of such, a boolean literal). */
function alwaysBoolean(e: Expr): boolean {
  const x = e as unknown as { $expr?: string; op?: string; value?: unknown; left?: Expr; right?: Expr; argument?: Expr }
  switch (x.$expr) {
    case 'literal': return typeof x.value === 'boolean'
    case 'unary': return x.op === '!'
    case 'binary': return x.op === 'in' || (COMPARISON_OPERATORS as readonly string[]).includes(x.op ?? '')
    case 'logical': return (x.op === '&&' || x.op === '||') && alwaysBoolean(x.left!) && alwaysBoolean(x.right!)
    default: return false
  }
}

/**
 * The handles a branch condition can decide, when they are known before the run: a yes/no
 * question and a boolean expression decide "true" or "false"; any other expression may
 * decide any string (its value), so every handle may match.
 */
function possibleHandles(node: FlowNode): readonly string[] | undefined {
  const condition = node.data['condition']
  if (typeof condition !== 'string' || condition.length === 0) return undefined
  try {
    return alwaysBoolean(transpileExpression(condition, { vars: [...CONDITION_VARS] })) ? ['true', 'false'] : undefined
  } catch (e) {
    return e instanceof TranspileError && e.code.startsWith('AJS1') ? ['true', 'false'] : undefined
  }
}

/** Edges of a branch that no decision can follow: no `source_handle`, or one the condition cannot decide. */
function checkBranchEdges(flow: SavedFlow, node: FlowNode, problems: FlowProblem[]): void {
  const handles = possibleHandles(node)
  flow.flow.edges.forEach((edge, i) => {
    if (edge.source !== node.id) return
    const at = `/flow/edges/${i}`
    const yesNo = (h: string) => h.toLowerCase() === 'yes' ? 'true' : h.toLowerCase() === 'no' ? 'false' : undefined
    if (edge.source_handle === null || edge.source_handle === undefined) {
      problems.push(problem('UnmatchedBranchHandle', at,
        `edge "${edge.id}" leaves branch "${node.id}" without a source_handle, so no decision follows it`,
        `set "source_handle": ${handles ? '"true" or "false"' : 'the value the condition decides ("true"/"false" for a boolean)'}`))
    } else if (handles && !handles.includes(edge.source_handle)) {
      const alias = yesNo(edge.source_handle)
      problems.push(problem('UnmatchedBranchHandle', `${at}/source_handle`,
        `edge "${edge.id}": branch "${node.id}" decides ${handles.map((h) => JSON.stringify(h)).join(' or ')}, never ${JSON.stringify(edge.source_handle)}, so this edge is never followed`,
        alias ? `use "source_handle": "${alias}" (a branch's handles are "true" and "false", not yes/no)` : `use "source_handle": "true" or "false"`))
    }
  })
}

/** A branch condition: an AJS expression over the run's state, or a yes/no question for the model. */
function decisionOf(flow: SavedFlow, node: FlowNode, problems: FlowProblem[]): Expr {
  const condition = node.data['condition'] as string
  try {
    return callAtom('flowHandle', { value: transpileExpression(condition, { vars: [...CONDITION_VARS] }) })
  } catch (e) {
    const syntax = e instanceof TranspileError && e.code.startsWith('AJS1')
    if (!syntax) {
      problems.push(problem('InvalidCondition', `${nodeAt(flow, node)}/data/condition`,
        `branch "${node.id}": ${(e as Error).message}`,
        `a condition may use ${CONDITION_VARS.join(', ')} (e.g. "input.count > 3" or "last.includes('yes')"), or be a question for the model ending in "?"`))
      return lit('false')
    }
    const persona = node.data['persona']
    return callAtom('flowDecide', {
      step: lit(node.id), question: lit(condition), history: id('history'), input: id('input'),
      ...(str(persona) ? { persona: lit(persona) } : {}),
    })
  }
}

/** Keys a run's `outputs` object cannot hold (the VM refuses them everywhere). */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

function checkNodeData(flow: SavedFlow, node: FlowNode, problems: FlowProblem[]): void {
  const at = nodeAt(flow, node)
  if (FORBIDDEN_KEYS.has(node.id)) {
    problems.push(problem('InvalidNodeData', `${at}/id`, `node id ${JSON.stringify(node.id)} cannot be a key of the run's outputs`, 'rename the node'))
  }
  const need = (key: string, what: string) => {
    if (!str(node.data[key])) problems.push(problem('InvalidNodeData', `${at}/data/${key}`, `${node.node_type} node "${node.id}" needs data.${key} (${what})`))
  }
  if (node.node_type === 'prompt') need('prompt', 'the instruction for the model')
  else if (node.node_type === 'branch') need('condition', 'an expression or a yes/no question')
  else if (node.node_type === 'branch_tool') {
    need('tool_name', 'the atom to call')
    const branches = node.data['branches']
    if (branches !== undefined && (typeof branches !== 'object' || branches === null || Array.isArray(branches) || !Object.values(branches).every(str))) {
      problems.push(problem('InvalidNodeData', `${at}/data/branches`, `branch_tool node "${node.id}": branches must map each outcome to a node id or an edge handle`))
    }
  } else if (!isCoreNodeType(node.node_type)) {
    for (const key of Object.keys(node.data)) {
      if (STEP_META.has(key)) problems.push(problem('InvalidNodeData', `${at}/data/${key}`, `node "${node.id}": data key "${key}" is reserved by the ajs/1 step format`, 'rename the key in the vendor data'))
    }
  }
}

function extendedSteps(flow: SavedFlow, options: CompileSavedFlowOptions, problems: FlowProblem[], called: Set<string>): Step[] {
  const entry = entryNode(flow)
  if (!entry) return [fail('FLOW_NO_ENTRY', `flow "${flow.id}" has no entry node, so there is nothing to run`)]
  const nodeIds = new Set(flow.flow.nodes.map((n) => n.id))
  const edges = outgoingEdges(flow)
  const maxVisits = options.maxVisits ?? DEFAULT_MAX_VISITS
  const reachable = new Set(walkBfs(flow))
  const cases = flow.flow.nodes.filter((n) => reachable.has(n.id)).map((node) => {
    checkNodeData(flow, node, problems)
    const out = edges.get(node.id) ?? []
    const queueAll = out.map((e) => push('queue', lit(e.target)))
    const queueWhen = (handle: string, target: string) => if_(binary('===', id('decision'), lit(handle)), [push('queue', lit(target))])
    let body: Step[]
    switch (node.node_type) {
      case 'entry': body = queueAll; break
      case 'prompt': body = [...promptSteps(node), ...queueAll]; break
      case 'branch': {
        checkBranchEdges(flow, node, problems)
        const routed = out.filter((e) => e.source_handle !== null && e.source_handle !== undefined)
        const handles = [...new Set(routed.map((e) => e.source_handle!))]
        body = [set('decision', decisionOf(flow, node, problems)), ...routed.map((e) => queueWhen(e.source_handle!, e.target))]
        // A decision no edge follows ends this path: the run says so (RunResult.warnings, the CLI's stderr).
        if (out.length > 0) body.push(unmatched(node, handles))
        break
      }
      case 'branch_tool': {
        const tool = node.data['tool_name'] as string
        const branches = (node.data['branches'] ?? {}) as Record<string, string>
        const routes: Step[] = []
        for (const [outcome, to] of Object.entries(branches)) {
          if (nodeIds.has(to)) routes.push(queueWhen(outcome, to))
          else for (const e of out) if (e.source_handle === to) routes.push(queueWhen(outcome, e.target))
        }
        for (const e of out) if (e.source_handle !== null && !Object.hasOwn(branches, e.source_handle)) routes.push(queueWhen(e.source_handle, e.target))
        // Late binding: the tool is an atom of the VM that runs the flow, named in the root's `atoms`.
        const bindable = ATOM_NAME.test(tool) && !FORBIDDEN_NAMES.has(tool) && !FLOW_ATOM_NAMES.has(tool)
        if (bindable) called.add(tool)
        const call = bindable
          ? atomStep(tool, (node.data['args'] ?? {}) as Record<string, unknown>, 'last')
          : fail('FLOW_UNKNOWN_NODE_TYPE', `branch_tool "${node.id}": "${tool}" is a flow runtime atom, not a tool`)
        body = [call, ...recordOutput(node, false), set('decision', callAtom('flowHandle', { value: id('last') })), ...routes]
        break
      }
      default:
        // Late binding: a vendor node type is an atom of the VM that runs the flow, named in the root's `atoms`.
        if (ATOM_NAME.test(node.node_type) && !FORBIDDEN_NAMES.has(node.node_type) && !FLOW_ATOM_NAMES.has(node.node_type)) {
          called.add(node.node_type)
          body = [atomStep(node.node_type, node.data, 'last'), ...recordOutput(node, false), ...queueAll]
        } else {
          body = [fail('FLOW_UNKNOWN_NODE_TYPE', `node "${node.id}": "${node.node_type}" cannot name an atom, so no atom implements it`)]
        }
    }
    return { test: lit(node.id), body: [...stepEvents(node, body), { op: 'break' } as Step] }
  })
  return [
    let_({ queue: arrayOf([lit(entry.id)]), head: lit(0), visits: lit(0), node: lit(null), decision: lit(null) }),
    {
      op: 'while', condition: binary('<', id('head'), member(id('queue'), 'length')), body: [
        set('node', member(id('queue'), id('head'))),
        set('head', binary('+', id('head'), lit(1))),
        set('visits', binary('+', id('visits'), lit(1))),
        if_(binary('>', id('visits'), lit(maxVisits)), [fail('FLOW_VISIT_BUDGET', `flow "${flow.id}" visited more than ${maxVisits} nodes`)]),
        push('path', id('node')),
        { op: 'switch', discriminant: id('node'), cases } as Step,
      ],
    } as Step,
  ]
}

/** `if (!handles.includes(decision)) console.warn(…)`: a branch whose decision matches none of its edges. */
function unmatched(node: FlowNode, handles: string[]): Step {
  const test = handles.reduce<Expr>((acc, h) => (make('logical', { op: '&&', left: acc, right: binary('!==', id('decision'), lit(h)) }) as Expr), lit(true))
  const message = binary('+', binary('+', lit(`flow branch "${node.id}" decided "`), id('decision')),
    lit(`" and no edge has that source_handle (${handles.map((h) => JSON.stringify(h)).join(', ') || 'none'}): this path ends here`))
  return if_(test, [{ op: 'consoleWarn', message } as Step])
}

/** A node's steps between its step_started and step_completed events, in their own block (so the fuel is the node's). */
function stepEvents(node: FlowNode, body: Step[]): Step[] {
  return [
    exprStep(callAtom('flowStepStart', { step: lit(node.id), kind: lit(node.node_type) })),
    { op: 'scope', steps: body } as Step,
    exprStep(callAtom('flowStepEnd', { step: lit(node.id) })),
  ]
}

function referenceSteps(flow: SavedFlow, problems: FlowProblem[]): Step[] {
  const order = walkBfs(flow)
  if (order.length === 0) return [fail('FLOW_NO_ENTRY', `flow "${flow.id}" has no entry node, so there is nothing to run`)]
  const byId = new Map(flow.flow.nodes.map((n) => [n.id, n]))
  const steps: Step[] = []
  for (const nodeId of order) {
    const node = byId.get(nodeId)!
    steps.push(push('path', lit(nodeId)))
    if (node.node_type === 'entry') continue
    if (node.node_type !== 'prompt') {
      problems.push(problem('UnsupportedNodeType', `${nodeAt(flow, node)}/node_type`,
        `node "${node.id}" is a ${JSON.stringify(node.node_type)} node; the reference semantics runs only prompt nodes`,
        "drop { semantics: 'reference' } (or --semantics reference) to run branches, tools and vendor nodes"))
      continue
    }
    checkNodeData(flow, node, problems)
    steps.push(...stepEvents(node, promptSteps(node)))
  }
  return steps
}

/**
 * Compile a SavedFlow (parsed, or anything `parseSavedFlow` accepts) to an
 * ajs/1 program. Throws `FlowError` for an invalid document and for node
 * data the run could not use (`InvalidNodeData`, `InvalidCondition`,
 * `UnsupportedNodeType`).
 */
export function compileSavedFlow(document: unknown, options: CompileSavedFlowOptions = {}): AjsProgram {
  const flow = parseSavedFlow(document)
  if (options.maxVisits !== undefined && !(Number.isSafeInteger(options.maxVisits) && options.maxVisits > 0)) {
    throw new TypeError('compileSavedFlow: maxVisits must be a positive integer')
  }
  if (options.semantics !== undefined && options.semantics !== 'extended' && options.semantics !== 'reference') {
    throw new TypeError("compileSavedFlow: semantics must be 'extended' or 'reference'")
  }
  const problems: FlowProblem[] = []
  const called = new Set<string>()
  const body = options.semantics === 'reference' ? referenceSteps(flow, problems) : extendedSteps(flow, options, problems, called)
  if (problems.length > 0) throw new FlowError(problems)
  return {
    ajs: 1,
    op: 'seq',
    libraries: { flow: LIBRARIES.flow.version },
    ...(called.size > 0 ? { atoms: [...called].sort() } : {}),
    name: flow.name,
    description: `SavedFlow "${flow.id}" (${options.semantics ?? 'extended'} semantics)`,
    params: 'input',
    steps: [
      let_({ last: lit(null), outputs: objectOf({}), history: arrayOf([]), path: arrayOf([]) }),
      ...body,
      ret(objectOf({ outputs: id('outputs'), last: id('last'), path: id('path') })),
    ],
  } as AjsProgram
}
