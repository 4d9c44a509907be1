/**
 * The `.flow` line language (the seed's FLOWLANG.md examples) → FlowGraph.
 *
 *   set provider=ollama            a variable (the host's `vars` win over the file's `set`)
 *   when provider=ollama supports=xml
 *     block p protocol.ollama      declared only when every *known* variable matches
 *   endif
 *   block g advisor.gate threshold=medium when=preTool,prePatch
 *   use tools.negotiation_advertise             a node whose id is its type
 *   link p.stream.delta -> x.stream.delta
 *   link x.messages.out -> sink.ui.messages     a block type as an end: an implicit node
 *   end
 *
 * Decisions where the examples are silent: a `when` key that has no value
 * (`supports=xml` above: a capability the runtime's negotiation decides)
 * does not constrain; an end written as a block type is an implicit node
 * whose id is the type, wired to the port named like the other end's port
 * (sinks name their inputs after the output they consume); option values
 * are converted by the catalog's option types (`when=a,b` is a list).
 */
import { blockSpec, type BlockSpec } from './catalog.ts'
import { problem, type FlowEdge, type FlowGraph, type FlowNode, type FlowProblem } from './graph.ts'

export interface FlowTextOptions {
  /** Graph name (default: "flow"). */
  name?: string
  /** Variables that win over the file's `set` lines (e.g. `{ provider: 'lmstudio' }`). */
  vars?: Record<string, string>
}

export interface FlowTextResult {
  graph: FlowGraph
  problems: FlowProblem[]
  /** Source line (1-based) of each node and edge, for locating graph problems. */
  lines: { nodes: number[]; edges: number[]; edgeColumns: Array<{ from: number; to: number }> }
  vars: Record<string, string>
}

interface PendingLink { from: string; to: string; line: number; column: number; toColumn: number }

const ENDPOINT = /^[A-Za-z_][\w.-]*$/

/** Parse `.flow` text; syntax problems are located (`line:col`). Never throws. */
export function parseFlowText(source: string, options: FlowTextOptions = {}): FlowTextResult {
  const vars: Record<string, string> = {}
  const hostVars = options.vars ?? {}
  const problems: FlowProblem[] = []
  const nodes: FlowNode[] = []
  const nodeLines: number[] = []
  const links: PendingLink[] = []
  const active: boolean[] = []
  // How many of the open `when`s do not match: a line counts when none (not a walk of them all per line, k² for k nested).
  let unmatched = 0
  const open = (matches: boolean) => { active.push(matches); if (!matches) unmatched++ }
  const err = (line: number, column: number, detail: string) => {
    const p = problem('TEXT_SYNTAX', `${line}:${column}`, { detail })
    problems.push({ ...p, line, column })
  }
  const lines = source.split(/\r?\n/)
  let ended = false
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1
    const text = lines[i]!.replace(/#.*$/, '')
    const words = tokens(text)
    if (words.length === 0) continue
    const [head, ...rest] = words
    if (ended) { err(lineNo, head!.col, 'Nothing may follow `end`'); break }
    const on = unmatched === 0
    switch (head!.text) {
      case 'when': {
        const pairs = rest.map((w) => pair(w.text))
        if (pairs.some((p) => !p)) { err(lineNo, head!.col, '`when` takes key=value conditions'); open(false); break }
        const value = (k: string) => hostVars[k] ?? vars[k]
        open(pairs.every((p) => value(p![0]) === undefined || value(p![0]) === p![1]))
        break
      }
      case 'endif':
        if (active.length === 0) err(lineNo, head!.col, '`endif` without `when`')
        else if (!active.pop()) unmatched--
        break
      case 'end':
        ended = true
        break
      case 'set':
        if (!on) break
        for (const w of rest) {
          const p = pair(w.text)
          if (!p) { err(lineNo, w.col, `\`set\` takes key=value, got \`${w.text}\``); continue }
          if (hostVars[p[0]] === undefined) vars[p[0]] = p[1]
        }
        break
      case 'block':
      case 'use': {
        if (!on) break
        const isUse = head!.text === 'use'
        const [idWord, typeWord, ...args] = isUse ? [rest[0], rest[0], ...rest.slice(1)] : rest
        if (!idWord || !typeWord) { err(lineNo, head!.col, isUse ? '`use` needs a block type' : '`block` needs an id and a block type'); break }
        const opts: Record<string, unknown> = {}
        for (const w of args) {
          const p = pair(w.text)
          if (!p) { err(lineNo, w.col, `Block options are key=value, got \`${w.text}\``); continue }
          opts[p[0]] = convert(p[1], blockSpec(typeWord.text), p[0])
        }
        nodes.push({ id: idWord.text, type: typeWord.text, options: opts })
        nodeLines.push(lineNo)
        break
      }
      case 'link': {
        if (!on) break
        const arrow = rest.findIndex((w) => w.text === '->')
        if (rest.length !== 3 || arrow !== 1 || !ENDPOINT.test(rest[0]!.text) || !ENDPOINT.test(rest[2]!.text)) {
          err(lineNo, head!.col, '`link` is `link <id>.<port> -> <id>.<port>`')
          break
        }
        links.push({ from: rest[0]!.text, to: rest[2]!.text, line: lineNo, column: rest[0]!.col, toColumn: rest[2]!.col })
        break
      }
      default:
        err(lineNo, head!.col, `Unknown directive \`${head!.text}\``)
    }
  }
  if (active.length > 0) err(lines.length, 0, '`when` without `endif`')

  const edges: FlowEdge[] = []
  const edgeLines: number[] = []
  const edgeColumns: Array<{ from: number; to: number }> = []
  for (const link of links) {
    const from = resolveEnd(link.from, undefined, nodes, nodeLines, link.line, 'out')
    const to = resolveEnd(link.to, from[1], nodes, nodeLines, link.line, 'in')
    edges.push({ from, to })
    edgeLines.push(link.line)
    edgeColumns.push({ from: link.column, to: link.toColumn })
  }
  const graph: FlowGraph = { version: 1, name: options.name ?? 'flow', nodes, edges }
  return { graph, problems, lines: { nodes: nodeLines, edges: edgeLines, edgeColumns }, vars: { ...vars, ...hostVars } }
}

/** `id.port`, or a block type naming an implicit node (created once, id = type). */
function resolveEnd(text: string, otherPort: string | undefined, nodes: FlowNode[], nodeLines: number[], line: number, direction: 'in' | 'out'): [string, string] {
  const spec = blockSpec(text)
  if (spec && !nodes.some((n) => n.id === text.split('.')[0])) {
    if (!nodes.some((n) => n.id === text)) { nodes.push({ id: text, type: text, options: {} }); nodeLines.push(line) }
    return [text, implicitPort(spec, otherPort, direction)]
  }
  const dot = text.indexOf('.')
  return dot < 0 ? [text, ''] : [text.slice(0, dot), text.slice(dot + 1)]
}

function implicitPort(spec: BlockSpec, otherPort: string | undefined, direction: 'in' | 'out'): string {
  const ports = Object.keys(direction === 'in' ? spec.inputs : spec.outputs)
  if (otherPort && ports.includes(otherPort)) return otherPort
  return ports[0] ?? ''
}

function convert(value: string, spec: BlockSpec | undefined, key: string): unknown {
  const opt = spec && (spec.options[key] ?? Object.values(spec.options).find((o) => o.alias === key))
  if (!opt) return value
  if (opt.type === 'number') return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value
  if (opt.type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value
  if (opt.type === 'string[]') return value.split(',').map((v) => v.trim()).filter(Boolean)
  return value
}

function pair(text: string): [string, string] | undefined {
  const eq = text.indexOf('=')
  return eq > 0 ? [text.slice(0, eq), text.slice(eq + 1)] : undefined
}

function tokens(line: string): Array<{ text: string; col: number }> {
  const out: Array<{ text: string; col: number }> = []
  const re = /\S+/g
  for (let m = re.exec(line); m; m = re.exec(line)) out.push({ text: m[0], col: m.index })
  return out
}
