/**
 * Flow scripts: AJS modules whose default export is `build({ blocks })`,
 * run on the AgentVM with the block catalog as their only capability.
 *
 * The frontend, in order: acorn finds the default export (the words
 * `export default` are blanked to spaces so every position stays where the
 * author wrote it); `transpile` compiles the module to an ajs/1 AST; every
 * call `blocks.<group>.<name>(options)` in that AST becomes a call of the
 * `flowBlock` atom (so block types are checked against the catalog before
 * anything runs, with the call's location); the AgentVM runs `build` with
 * fuel (default 1,000) and a time limit (default 1,000 ms), no capabilities
 * and no I/O; the returned value is validated like any JSON graph.
 *
 * Block ids are deterministic: `<type with dots as underscores>_<n>`, n
 * counting blocks of that type in creation order (`protocol_openai_1`).
 */
import { parse as acornParse, type Node as AcornNode } from 'acorn'
import { s } from 'tosijs-schema'
import { transpile } from '../transpiler/index.ts'
import { TranspileError } from '../diagnostics/index.ts'
import { codeFrame } from '../diagnostics/format.ts'
import { AgentVM } from '../full-vm.ts'
import { assembleVM } from '../host/assemble.ts'
import { defineAtom } from '../vm/index.ts'
import { BLOCKS, BLOCK_TYPES, blockSpec } from './catalog.ts'
import { problem, suggest, type FlowProblem } from './graph.ts'
import { validateFlowGraph, type FlowValidation } from './validate.ts'

export interface FlowScriptOptions {
  /** File name used in locations (default `<flow>`). */
  filename?: string
  /** Fuel for running `build` (default 1000). */
  fuel?: number
  /** Wall-clock limit in ms for running `build` (default 1000). */
  timeoutMs?: number
}

export const SCRIPT_DEFAULTS = Object.freeze({ fuel: 1000, timeoutMs: 1000 })

const FLOW_BLOCK_ATOM = 'flowBlock'

/** Run a flow script in the sandbox and validate the graph it returns. Never throws. */
export async function runFlowScript(source: string, options: FlowScriptOptions = {}): Promise<FlowValidation> {
  const file = options.filename ?? '<flow>'
  const located = (name: Parameters<typeof problem>[0], line: number, column: number, params: Record<string, string>): FlowValidation =>
    failed({ ...problem(name, `${line}:${column}`, params), line, column, frame: codeFrame(source, line, column) })

  const module = findDefaultExport(source)
  if ('error' in module) return located(module.error.name, module.error.line, module.error.column, { detail: module.error.detail })

  let ast: any
  try {
    ast = transpile(module.source, { filename: file }).ast
  } catch (e) {
    if (!(e instanceof TranspileError)) throw e
    const p = located('SCRIPT_SYNTAX', e.line, e.column, { detail: `${e.code}: ${e.message}` })
    p.problems[0]!.hint = e.hint
    return p
  }
  const binding = blocksBinding(ast)
  const bad: FlowProblem[] = []
  rewriteBlockCalls(ast, binding, (line, column, detail) => {
    bad.push({ ...problem('SCRIPT_BLOCK_CALL', `${line}:${column}`, { detail }), line, column, frame: codeFrame(source, line, column) })
  })
  if (bad.length) return { graph: emptyGraph(), problems: bad, valid: false }

  const counters = new Map<string, number>()
  const flowBlock = defineAtom(FLOW_BLOCK_ATOM, s.object({ type: s.string, options: s.any }), s.any, ({ type, options: opts }) => {
    // Reachable by name too (the transpiler late-binds unknown calls to atoms): check the type here as well.
    const spec = blockSpec(type)
    if (!spec) throw new Error(`\`${String(type)}\` is not a block of the catalog`)
    const n = (counters.get(type) ?? 0) + 1
    counters.set(type, n)
    return {
      id: `${type.replace(/\./g, '_')}_${n}`,
      type,
      options: opts ?? {},
      ports: { inputs: Object.keys(spec.inputs), outputs: Object.keys(spec.outputs) },
    }
  }, { sync: true, docs: 'Instantiate a catalog block (what `blocks.<group>.<name>(options)` compiles to).' })
  const vm = assembleVM({ VM: AgentVM, atoms: [flowBlock] })
  const result = await vm.run(ast, { [binding.key]: catalogView() }, {
    fuel: options.fuel ?? SCRIPT_DEFAULTS.fuel,
    timeoutMs: options.timeoutMs ?? SCRIPT_DEFAULTS.timeoutMs,
    capabilities: {},
  })
  if (result.error) {
    const err = result.error
    const line = err.line ?? 1
    // The run's error column is 1-based; script problems (and code frames) use 0-based columns like the parser's.
    const column = err.column === undefined ? 0 : err.column - 1
    return {
      graph: emptyGraph(),
      valid: false,
      problems: [{
        ...problem('SCRIPT_RUNTIME', `${line}:${column}`, { detail: `${err.code}: ${err.message}`, hint: err.hint ?? '' }),
        line, column, frame: err.line ? codeFrame(source, line, column) : undefined,
      }],
    }
  }
  return validateFlowGraph(result.result)
}

const emptyGraph = () => ({ version: 1, name: '', nodes: [], edges: [] })
const failed = (p: FlowProblem): FlowValidation => ({ graph: emptyGraph(), problems: [p], valid: false })

/** The catalog as plain data: `blocks.protocol.openai` reads as `"protocol.openai"`. */
function catalogView(): Record<string, unknown> {
  const out: Record<string, any> = {}
  for (const type of BLOCK_TYPES) {
    const parts = type.split('.')
    let at = out
    for (const p of parts.slice(0, -1)) at = at[p] ??= {}
    at[parts.at(-1)!] = type
  }
  return out
}

interface ModuleError { name: 'SCRIPT_SYNTAX' | 'SCRIPT_EXPORT'; line: number; column: number; detail: string }

/** Blank `export default` (same length) and check the module holds nothing else to import or export. */
function findDefaultExport(source: string): { source: string } | { error: ModuleError } {
  let program: any
  try {
    program = acornParse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: true })
  } catch (e: any) {
    const loc = e?.loc ?? { line: 1, column: 0 }
    return { error: { name: 'SCRIPT_SYNTAX', line: loc.line, column: loc.column, detail: `Syntax error: ${String(e?.message ?? e).replace(/ \(\d+:\d+\)$/, '')}` } }
  }
  let def: any
  const functions: any[] = []
  for (const stmt of program.body as any[]) {
    if (stmt.type === 'ExportDefaultDeclaration') {
      if (stmt.declaration.type !== 'FunctionDeclaration') {
        return { error: at(stmt, 'SCRIPT_EXPORT', 'The default export must be a function declaration `export default function build({ blocks }) { … }`') }
      }
      def = stmt
      functions.push(stmt.declaration)
    } else if (stmt.type === 'ImportDeclaration' || stmt.type.startsWith('Export')) {
      return { error: at(stmt, 'SCRIPT_EXPORT', 'A flow script imports and exports nothing but its default `build` function: the catalog arrives as `blocks`') }
    } else if (stmt.type === 'FunctionDeclaration') functions.push(stmt)
  }
  if (!def) return { error: { name: 'SCRIPT_EXPORT', line: 1, column: 0, detail: 'The flow script has no `export default function build({ blocks }) { … }`' } }
  if (functions.at(-1) !== def.declaration) return { error: at(def, 'SCRIPT_EXPORT', 'The default export must be the last function of the file (helpers go above it)') }
  const fn = def.declaration
  const head = source.slice(def.start, fn.start).replace(/[^\n]/g, ' ')
  let rest = source.slice(fn.start)
  if (!fn.id) rest = rest.replace(/^function\s*/, (m) => `function build${m.length > 'function '.length ? ' '.repeat(m.length - 'function '.length) : ' '}`)
  return { source: source.slice(0, def.start) + head + rest }
}

const at = (node: AcornNode & { loc?: any }, name: ModuleError['name'], detail: string): ModuleError =>
  ({ name, line: node.loc?.start.line ?? 1, column: node.loc?.start.column ?? 0, detail })

/** The entry's parameter bound to the `blocks` key (`{ blocks }` or `{ blocks: b }`). */
function blocksBinding(ast: any): { key: string; name: string } {
  const props = ast?.params?.properties
  if (Array.isArray(props)) {
    for (const p of props) if (p?.key === 'blocks') return { key: 'blocks', name: typeof p.value === 'string' ? p.value : 'blocks' }
  }
  return { key: 'blocks', name: 'blocks' }
}

/** The dotted path of a member chain rooted at `name` (`blocks.sink.ui` → ['sink', 'ui']). */
function chainOf(node: any, name: string): string[] | undefined {
  const path: string[] = []
  let n = node
  while (n?.$expr === 'member' && typeof n.property === 'string' && !n.computed) {
    path.unshift(n.property)
    n = n.object
  }
  return n?.$expr === 'ident' && n.name === name ? path : undefined
}

/** Replace `blocks.<group>.<name>(options)` calls by `flowBlock({ type, options })`, in place. */
function rewriteBlockCalls(node: any, binding: { name: string }, report: (line: number, column: number, detail: string) => void, depth = 0): void {
  if (node === null || typeof node !== 'object' || depth > 10_000) return
  if (Array.isArray(node)) { for (const x of node) rewriteBlockCalls(x, binding, report, depth + 1); return }
  for (const key of Object.keys(node)) rewriteBlockCalls(node[key], binding, report, depth + 1)
  if (node.$expr !== 'methodCall') return
  const path = chainOf(node.object, binding.name)
  if (!path) return
  const type = [...path, node.method].join('.')
  const [line, column] = Array.isArray(node.loc) ? node.loc : [1, 0]
  if (!blockSpec(type)) {
    report(line, column, `\`blocks.${type}\` is not a block of the catalog. ${suggest(type, Object.keys(BLOCKS))}`.trim())
    return
  }
  const args = node.args ?? []
  if (args.length > 1 || args.some((a: any) => a?.$expr === 'spread')) {
    report(line, column, `\`blocks.${type}\` takes one options object`)
    return
  }
  const options = args[0] ?? { $expr: 'object', properties: [] }
  for (const k of Object.keys(node)) delete node[k]
  Object.assign(node, {
    $expr: 'call',
    callee: FLOW_BLOCK_ATOM,
    args: [{ $expr: 'object', properties: [{ key: 'type', value: { $expr: 'literal', value: type } }, { key: 'options', value: options }] }],
    loc: [line, column],
  })
}
