/**
 * analyzeProgram: the plan of a program before it runs, read from its AST
 * alone (nothing runs). Every atom call site with its static arguments, the
 * loops around it and an upper bound of its calls: a number when the loops
 * are bounded by constants, a formula over the inputs (`len(cities)`,
 * `3 * len(args.ids)`) when they are bounded by them, `unbounded` (with the
 * loop named) otherwise; each atom's effect; and whether the program can
 * reach the network, the store, a model, a sub-agent, procedures or MCP
 * servers.
 */
import { CORE_OPS } from '../ast/nodes.ts'
import { EFFECTFUL_CORE_OPS } from '../vm/atoms/define.ts'
import { ATOM_COSTS, DEFAULT_ATOM_COST, NODE_COST, UNIT } from '../vm/fuel.ts'

/**
 * Fuel the plan allows per AST node evaluation: the VM charges 0.01 per
 * expression node and 0.01 per step or loop iteration (src/vm/fuel.ts); the
 * third 0.01 covers the allocation of values of constant size a node builds.
 */
const NODE_BOUND = 3 * NODE_COST

/** An upper bound of calls: a count, a formula over the inputs, or `'unbounded'`. */
export type Bound = number | string

export interface CallSite {
  op: string
  /** `line:col` when the AST has positions. */
  loc?: string
  /** The helper function it is written in (the entry: absent). */
  helper?: string
  /** The fields whose values are known before the run (literals). */
  args: Record<string, unknown>
  /** Fields whose values are computed at run time (`'*'`: the whole input is). */
  dynamic: string[]
  effects: 'pure' | 'io'
  /** Loops (and recursion) around the call, outermost first. */
  loops: string[]
  inLoop: boolean
  /** Upper bound of calls from this site in one run. */
  calls: Bound
  /** With `calls: 'unbounded'`: the loop that makes it so. */
  unboundedBy?: string
}

export interface AtomPlan {
  effects: 'pure' | 'io'
  /** Declared by the atoms given (false: a core atom or one the program names that was not given). */
  known: boolean
  sites: number
  calls: Bound
  unboundedBy?: string
  mcp?: { server: string; tool: string }
}

export interface ProgramPlan {
  calls: CallSite[]
  atoms: Record<string, AtomPlan>
  loops: Array<{ loop: string; bound: Bound }>
  /** Atoms tagged `io` the program may call. */
  io: string[]
  reaches: { network: boolean; store: boolean; model: boolean; subAgent: boolean; procedures: boolean; mcp: string[] }
  /**
   * Worst-case fuel of a run, when every loop has a constant bound: each node evaluation at
   * 0.03 (node, step or iteration, small allocations) and each atom call at its cost. Else
   * `'unbounded'` with `fuelUnboundedBy` (a loop bounded by the inputs or not at all, a
   * function value, an atom whose cost depends on its input). Work proportional to the size of
   * data (long strings, big arrays, scans) is not in it.
   */
  fuel: number | 'unbounded'
  fuelUnboundedBy?: string
}

type Node = Record<string, any>
interface Factor { n?: number; expr?: string; unbounded?: string }

const STORE = new Set(['storeGet', 'storeSet', 'storeQuery', 'storeVectorSearch', 'cache'])
const PROCEDURES = new Set(['storeProcedure', 'releaseProcedure', 'clearExpiredProcedures'])
const REACH_TAGS = new Set(['network', 'store', 'model', 'subAgent', 'procedures'])
const CALLBACKS = new Set(['map', 'filter', 'forEach', 'some', 'every', 'find', 'findIndex', 'flatMap', 'reduce', 'sort'])

const mul = (fs: Factor[]): Factor => {
  let n = 1
  const exprs: string[] = []
  for (const f of fs) {
    if (f.unbounded) return f
    if (f.n !== undefined) n *= f.n
    else if (f.expr) exprs.push(f.expr)
  }
  if (n === 0) return { n: 0 }
  if (exprs.length === 0) return { n }
  return { expr: [...(n === 1 ? [] : [String(n)]), ...exprs].join(' * ') }
}
const toBound = (f: Factor): Bound => (f.unbounded ? 'unbounded' : f.expr ?? f.n!)
const addBounds = (a: Factor, b: Factor): Factor => {
  if (a.unbounded) return a
  if (b.unbounded) return b
  if (a.n !== undefined && b.n !== undefined) return { n: a.n + b.n }
  if (a.n === 0) return b
  if (b.n === 0) return a
  return { expr: `${a.expr ?? a.n} + ${b.expr ?? b.n}` }
}
const where = (node: Node) => (Array.isArray(node.loc) ? `${node.loc[0]}:${node.loc[1]}` : undefined)
const named = (kind: string, node: Node) => { const at = where(node); return at ? `${kind} at ${at}` : kind }

class Planner {
  readonly sites: CallSite[] = []
  readonly loops: Array<{ loop: string; bound: Bound }> = []
  private readonly helpers: Record<string, Node>
  private readonly inputs = new Set<string>()
  private readonly argsName?: string
  private readonly recursive = new Set<string>()
  /** The worst-case fuel so far (micro-units), or why there is none. */
  fuelUnits = 0
  fuelUnbounded: string | undefined

  private charge(factors: Factor[], units: number, why?: string): void {
    if (this.fuelUnbounded) return
    if (why) { this.fuelUnbounded = why; return }
    const f = mul(factors)
    if (f.n === undefined || f.expr || f.unbounded) { this.fuelUnbounded = f.unbounded ?? f.expr ?? 'a loop'; return }
    this.fuelUnits += units * f.n
  }

  private atomCost(op: string): number | undefined {
    const c = this.atoms[op]?.cost
    if (typeof c === 'number') return c
    if (typeof c === 'function') return undefined
    return ATOM_COSTS[op] ?? DEFAULT_ATOM_COST
  }

  constructor(private readonly ast: Node, private readonly atoms: Record<string, Node>) {
    this.helpers = (ast.functions ?? {}) as Record<string, Node>
    // Helpers that can reach themselves through calls: their calls have no bound.
    const calls = new Map<string, Set<string>>()
    const collect = (x: unknown, into: Set<string>): void => {
      if (Array.isArray(x)) { for (const y of x) collect(y, into); return }
      if (!x || typeof x !== 'object') return
      const o = x as Node
      if (o.$expr === 'call' && typeof o.callee === 'string' && o.callee in this.helpers) into.add(o.callee)
      for (const v of Object.values(o)) collect(v, into)
    }
    for (const [name, fn] of Object.entries(this.helpers)) { const set = new Set<string>(); collect(fn.steps, set); calls.set(name, set) }
    for (const name of Object.keys(this.helpers)) {
      const seen = new Set<string>()
      const todo = [...(calls.get(name) ?? [])]
      while (todo.length) { const c = todo.pop()!; if (seen.has(c)) continue; seen.add(c); todo.push(...(calls.get(c) ?? [])) }
      if (seen.has(name)) this.recursive.add(name)
    }
    const p = ast.params
    if (typeof p === 'string') this.argsName = p
    else if (p && p.$pattern === 'object') for (const prop of p.properties ?? []) if (typeof prop.value === 'string') this.inputs.add(prop.value)
  }

  /** `len(...)` of an input-derived expression, if it is one. */
  private inputPath(e: Node | undefined): string | undefined {
    if (!e || typeof e !== 'object') return undefined
    if (e.$expr === 'ident') return this.inputs.has(e.name) ? e.name : undefined
    if (e.$expr === 'member' && typeof e.property === 'string') {
      if (e.object?.$expr === 'ident' && e.object.name === this.argsName) return `${this.argsName}.${e.property}`
      const base = this.inputPath(e.object)
      return base ? `${base}.${e.property}` : undefined
    }
    return undefined
  }

  /** The number of items of an iterable expression, where it is known. */
  private itemsOf(e: Node | undefined, loop: string): Factor {
    if (e && e.$expr === 'array' && Array.isArray(e.elements) && !e.elements.some((x: Node) => x?.$expr === 'spread')) return { n: e.elements.length }
    if (e && e.$expr === 'literal' && Array.isArray(e.value)) return { n: e.value.length }
    if (e && e.$expr === 'methodCall' && e.method === 'slice' && e.args?.length === 2 && e.args[0]?.$expr === 'literal' && e.args[1]?.$expr === 'literal') {
      return { n: Math.max(0, Number(e.args[1].value) - Number(e.args[0].value)) }
    }
    const path = this.inputPath(e)
    if (path) return { expr: `len(${path})` }
    return { unbounded: loop }
  }

  /** The iterations of `for (let i = a; i < b; i++)`, where they are known. */
  private forBound(step: Node, loop: string): Factor {
    const init = step.init?.[0]
    const vars = init?.op === 'varsLet' ? Object.entries(init.vars ?? {}) : []
    const cond = step.condition
    const upd = step.update
    if (vars.length !== 1 || !cond || cond.$expr !== 'binary' || cond.left?.$expr !== 'ident') return { unbounded: loop }
    const [name, start] = vars[0]!
    if (cond.left.name !== name || typeof start !== 'number') return { unbounded: loop }
    const step1 = upd && ((upd.$expr === 'update' && upd.op === '++' && upd.argument?.name === name) ||
      (upd.$expr === 'assign' && upd.op === '+=' && upd.target?.name === name && upd.value?.$expr === 'literal' && upd.value.value === 1))
    if (!step1 || !['<', '<='].includes(cond.op)) return { unbounded: loop }
    const extra = cond.op === '<=' ? 1 : 0
    if (cond.right?.$expr === 'literal' && typeof cond.right.value === 'number') return { n: Math.max(0, Math.ceil(cond.right.value - start) + extra) }
    if (cond.right?.$expr === 'member' && cond.right.property === 'length') {
      const path = this.inputPath(cond.right.object)
      if (path && start >= 0) return { expr: `len(${path})` }
    }
    return { unbounded: loop }
  }

  private effectsOf(op: string): 'pure' | 'io' {
    const a = this.atoms[op]
    if (a && (a.effects === 'pure' || a.effects === 'io')) return a.effects
    if (op in CORE_OPS) return EFFECTFUL_CORE_OPS.has(op) ? 'io' : 'pure'
    return 'io'
  }

  private isAtom(op: string): boolean {
    return op in this.atoms || (op in CORE_OPS && !!CORE_OPS[op]!.doc) || (Array.isArray(this.ast.atoms) && this.ast.atoms.includes(op))
  }

  private record(op: string, input: Node | undefined, node: Node, factors: Factor[], loops: string[], helper?: string) {
    const args: Record<string, unknown> = {}
    const dynamic: string[] = []
    if (input && input.$expr === 'object') {
      for (const p of input.properties ?? []) {
        if (p.$expr === 'spread' || typeof p.key !== 'string') { dynamic.push('*'); continue }
        if (p.value?.$expr === 'literal') args[p.key] = p.value.value
        else if (p.value && typeof p.value === 'object' && p.value.$expr) dynamic.push(p.key)
        else args[p.key] = p.value
      }
    } else if (input && !input.$expr) {
      for (const [k, v] of Object.entries(input)) {
        if (v && typeof v === 'object' && (v as Node).$expr) { if ((v as Node).$expr === 'literal') args[k] = (v as Node).value; else dynamic.push(k) }
        else args[k] = v
      }
    } else if (input) dynamic.push('*')
    const cost = this.atomCost(op)
    this.charge(factors, Math.round((cost ?? 0) * UNIT), cost === undefined ? `the cost of ${op} depends on its input` : undefined)
    const f = mul(factors)
    const site: CallSite = { op, ...(where(node) ? { loc: where(node) } : {}), ...(helper ? { helper } : {}), args, dynamic, effects: this.effectsOf(op), loops: [...loops], inLoop: loops.length > 0, calls: toBound(f) }
    if (f.unbounded) site.unboundedBy = f.unbounded
    this.sites.push(site)
  }

  private loop(kind: string, node: Node, f: Factor, factors: Factor[], loops: string[]): [Factor[], string[]] {
    const name = named(kind, node)
    this.loops.push({ loop: name, bound: toBound(f) })
    return [[...factors, f], [...loops, name]]
  }

  walk(node: unknown, factors: Factor[], loops: string[], helper: string | undefined, stack: string[]): void {
    if (Array.isArray(node)) { for (const x of node) this.walk(x, factors, loops, helper, stack); return }
    if (!node || typeof node !== 'object') return
    const n = node as Node
    if (typeof n.op === 'string' || typeof n.$expr === 'string') this.charge(factors, NODE_BOUND)
    // A function value may be called any number of times (callbacks of array methods are loops, below).
    if (n.$expr === 'lambda') this.charge(factors, 0, `a function value at ${where(n) ?? '?'}`)
    const go = (x: unknown, fs = factors, ls = loops) => this.walk(x, fs, ls, helper, stack)
    if (typeof n.op === 'string' && n.$expr === undefined) {
      switch (n.op) {
        case 'for': {
          go(n.init)
          const [fs, ls] = this.loop('for', n, this.forBound(n, named('for', n)), factors, loops)
          go(n.condition, fs, ls); go(n.update, fs, ls); go(n.body, fs, ls)
          return
        }
        case 'forOf': case 'forIn': {
          go(n.iterable ?? n.object)
          const kind = n.op === 'forOf' ? 'for...of' : 'for...in'
          const [fs, ls] = this.loop(kind, n, n.op === 'forOf' ? this.itemsOf(n.iterable, named(kind, n)) : { unbounded: named(kind, n) }, factors, loops)
          go(n.body, fs, ls)
          return
        }
        case 'while': case 'doWhile': {
          const kind = n.op === 'while' ? 'while' : 'do...while'
          const [fs, ls] = this.loop(kind, n, { unbounded: named(kind, n) }, factors, loops)
          go(n.condition, fs, ls); go(n.body, fs, ls)
          return
        }
        case 'parallel':
          if (n.items !== undefined) {
            go(n.items)
            const [fs, ls] = this.loop('Promise.all', n, this.itemsOf(n.items, named('Promise.all', n)), factors, loops)
            go(n.steps, fs, ls)
            return
          }
          break
        default:
          if (this.isAtom(n.op) && !(n.op in CORE_OPS && !CORE_OPS[n.op]!.doc)) {
            const { op, loc, result, ...fields } = n
            this.record(op, fields, n, factors, loops, helper)
            for (const v of Object.values(fields)) go(v)
            return
          }
      }
    }
    if (n.$expr === 'call' && typeof n.callee === 'string') {
      for (const a of n.args ?? []) go(a)
      const fn = this.helpers[n.callee]
      if (fn) {
        if (stack.includes(n.callee)) return // the recursion is bounded by the factor pushed on entry
        if (this.recursive.has(n.callee)) {
          const name = `recursion of ${n.callee}`
          if (!this.loops.some((l) => l.loop === name)) this.loops.push({ loop: name, bound: 'unbounded' })
          this.walk(fn.steps, [...factors, { unbounded: name }], [...loops, name], n.callee, [...stack, n.callee])
        } else {
          this.walk(fn.steps, factors, loops, n.callee, [...stack, n.callee])
        }
        return
      }
      if (this.isAtom(n.callee)) this.record(n.callee, n.args?.[0], n, factors, loops, helper)
      return
    }
    if (n.$expr === 'methodCall' && CALLBACKS.has(n.method) && n.args?.some((a: Node) => a?.$expr === 'lambda')) {
      go(n.object)
      const kind = `.${n.method}()`
      let f = this.itemsOf(n.object, named(kind, n))
      if (n.method === 'sort' && !f.unbounded) f = mul([f, f])
      const [fs, ls] = this.loop(kind, n, f, factors, loops)
      // The callback's body runs once per item: walked under the loop's factor (not as a function value).
      for (const a of n.args) a?.$expr === 'lambda' ? this.walk(a.body, fs, ls, helper, stack) : go(a, fs, ls)
      return
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'loc' && k !== 'functions') go(v)
  }
}

/**
 * The plan of a program (an ajs/1 AST), without running it. `atoms`: the
 * atoms the program will run with (their `effects` and `mcp` tags are read,
 * and `reaches`: `'network'`, `'store'`, `'model'`, `'subAgent'` or
 * `'procedures'` for a host's atom that reaches one), e.g. `mcpAtoms(...).atoms`.
 */
export function analyzeProgram(ast: unknown, atoms: Readonly<Record<string, unknown>> | readonly unknown[] = {}): ProgramPlan {
  if (!ast || typeof ast !== 'object') throw new TypeError('analyzeProgram: pass an ajs/1 AST')
  const table: Record<string, Node> = {}
  for (const [k, v] of Array.isArray(atoms) ? (atoms as Node[]).map((a) => [a?.op, a] as const) : Object.entries(atoms)) {
    if (v && typeof v === 'object') table[String((v as Node).op ?? k)] = v as Node
  }
  const planner = new Planner(ast as Node, table)
  planner.walk((ast as Node).steps, [], [], undefined, [])
  const plan: ProgramPlan = {
    calls: planner.sites, atoms: {}, loops: planner.loops, io: [], reaches: { network: false, store: false, model: false, subAgent: false, procedures: false, mcp: [] },
    fuel: planner.fuelUnbounded ? 'unbounded' : Math.ceil(planner.fuelUnits / 10_000) / 100,
    ...(planner.fuelUnbounded ? { fuelUnboundedBy: planner.fuelUnbounded } : {}),
  }
  const totals = new Map<string, Factor>()
  for (const s of planner.sites) {
    const f: Factor = s.calls === 'unbounded' ? { unbounded: s.unboundedBy } : typeof s.calls === 'number' ? { n: s.calls } : { expr: s.calls }
    totals.set(s.op, addBounds(totals.get(s.op) ?? { n: 0 }, f))
  }
  for (const [op, f] of totals) {
    const a = table[op]
    const entry: AtomPlan = { effects: planner.sites.find((s) => s.op === op)!.effects, known: !!a, sites: planner.sites.filter((s) => s.op === op).length, calls: toBound(f) }
    if (f.unbounded) entry.unboundedBy = f.unbounded
    if (a?.mcp) entry.mcp = { server: a.mcp.server, tool: a.mcp.tool }
    plan.atoms[op] = entry
    if (entry.effects === 'io') plan.io.push(op)
    if (op === 'httpFetch') plan.reaches.network = true
    if (STORE.has(op)) plan.reaches.store = true
    if (op === 'llmPredict') plan.reaches.model = true
    if (op === 'agentRun') plan.reaches.subAgent = true
    if (PROCEDURES.has(op)) plan.reaches.procedures = true
    // A host's own atoms say what they reach (the workflow engine's `agent` a model, `workflow` a sub-agent).
    if (typeof a?.reaches === 'string' && REACH_TAGS.has(a.reaches)) (plan.reaches as Record<string, unknown>)[a.reaches] = true
    if (a?.mcp && !plan.reaches.mcp.includes(a.mcp.server)) plan.reaches.mcp.push(a.mcp.server)
  }
  return plan
}
