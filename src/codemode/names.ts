/**
 * MCP tool names -> atom names a program can call: valid identifiers that
 * are not JavaScript reserved words, core ops, globals or forbidden names;
 * collisions get a numeric suffix. Every change is reported.
 */
import { CORE_OPS, FORBIDDEN_NAMES, IDENTIFIER } from '../ast/nodes.ts'
import { GLOBAL_FUNCTIONS, GLOBAL_NAMESPACES, GLOBAL_VALUES } from '../transpiler/globals.ts'

const RESERVED = new Set(
  ('break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
    'implements interface package private protected public await async arguments eval undefined NaN Infinity Promise Error')
    .split(' '),
)

/** Why a tool's atom name differs from the tool's name. */
export type RenameReason = 'invalid-identifier' | 'reserved' | 'collision' | 'prefix'

export interface Rename {
  /** The server's tool name. */
  tool: string
  /** The atom name programs call. */
  op: string
  reason: RenameReason
  /** For a collision: the tool that kept the name. */
  with?: string
}

/** `get-weather` -> `get_weather`; a leading digit gets `_`; an empty name `tool`. */
export function toIdentifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_$]+/g, '_')
  if (id === '' || /^_*$/.test(id)) id = 'tool'
  if (/^[0-9]/.test(id)) id = `_${id}`
  return id
}

export function isTaken(name: string): boolean {
  return RESERVED.has(name) || FORBIDDEN_NAMES.has(name) || name in CORE_OPS ||
    GLOBAL_FUNCTIONS.has(name) || GLOBAL_NAMESPACES.has(name) || GLOBAL_VALUES.has(name)
}

/**
 * Map tool names to atom names: a tool whose name is a free identifier keeps
 * it; the others are mapped in order (the first keeps a contested name). `taken` holds names already in use (other atoms of the VM).
 */
export function mapToolNames(tools: readonly string[], options: { prefix?: string; taken?: Iterable<string> } = {}): { names: string[]; renamed: Rename[] } {
  const used = new Map<string, string>()
  for (const t of options.taken ?? []) used.set(t, t)
  const names: string[] = new Array(tools.length)
  const renamed: Rename[] = []
  const prefix = options.prefix ?? ''
  const nextSuffix = new Map<string, number>()
  // A tool whose name is already a free identifier keeps it, whatever its position.
  tools.forEach((tool, i) => {
    const op = `${prefix}${tool}`
    if (prefix === '' && IDENTIFIER.test(op) && !isTaken(op) && !used.has(op)) { used.set(op, tool); names[i] = op }
  })
  tools.forEach((tool, i) => {
    if (names[i] !== undefined) return
    let op = toIdentifier(`${prefix}${tool}`)
    let reason: RenameReason | undefined = op !== tool ? (prefix && toIdentifier(tool) === tool ? 'prefix' : 'invalid-identifier') : undefined
    if (isTaken(op)) { op = `${op}_`; reason = 'reserved' }
    let holder: string | undefined
    if (used.has(op) || isTaken(op)) {
      holder = used.get(op)
      // Numbers are only ever taken, so the search for a base goes on where it last stopped: k tools
      // of one name were k² tries (8,000 took 15 s).
      let n = nextSuffix.get(op) ?? 2
      while (used.has(`${op}_${n}`) || isTaken(`${op}_${n}`)) n++
      nextSuffix.set(op, n + 1)
      op = `${op}_${n}`
      reason = 'collision'
    }
    if (!IDENTIFIER.test(op)) throw new Error(`mcpAtoms: cannot map tool name ${JSON.stringify(tool)}`)
    used.set(op, tool)
    names[i] = op
    if (reason) renamed.push(holder === undefined ? { tool, op, reason } : { tool, op, reason, with: holder })
  })
  return { names, renamed }
}
