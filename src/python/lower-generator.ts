/**
 * Generator functions (extended profile), lazily as CPython's. The VM has no coroutines, so a
 * generator's body becomes a resumable helper (`<def>$resume`) that the runtime calls back on a
 * frame it keeps (`Run.callHelper`'s `keep`): the body's variables, its parameters all, live on
 * between calls, and each call runs from the yield point it stopped at to the next one. The body
 * keeps its structure: on resumption every statement before the yield point is skipped (`$pc` names
 * the point; 0 runs normally), loops are re-entered without their test, an `except` block holding the
 * point is re-entered by raising its exception again, and `finally` blocks do not run when the body
 * only pauses (`$susp`; a `finally` block that itself yields is split into plain steps first,
 * lower-finally.ts). A `for` loop around a yield walks a cursor kept among the variables. The
 * function itself only makes the generator (runtime/generators.ts), unless the body may wait for an
 * atom: the runtime cannot wait, so then an eager twin (`<def>$eager`) runs the body to its end at
 * the call and gives its items as a one-shot iterator.
 */
import type { FunctionDef, Step } from '../ast/types.ts'
import { type Node, and, arr, assign, binary, call, cond, exprStep, id, lit, not, or, rt, setVar, step, UNDEFINED } from './nodes.ts'
import { type AnyStep, children, isMarker, yieldingFinally } from './lower-finally.ts'

const PC = '$pc'
const SUSP = '$susp'
const G = '$g'
const ITEMS = '$items'
/** The eager twin's stand-in for the generator's sent value: None after `yield`, the return value after `yield from`. */
const ESENT = '$esent'

interface Range { lo: number; hi: number }

export interface GeneratorParts {
  /** The generator function's own steps: make the generator (or run the eager twin, when it may wait). */
  entry: Step[]
  resume: FunctionDef
  eager: FunctionDef
}

/**
 * Split a generator function: `params` are the helper's parameters (the Python ones, then the
 * enclosing variables), `locals` every other variable its lowered `body` uses.
 */
export function generatorFunction(helper: string, qualname: string, params: string[], locals: string[], body: Step[]): GeneratorParts {
  const resumeName = `${helper}$resume`, eagerName = `${helper}$eager`
  const ranges = new Map<Step, Range>()
  const catchParams: string[] = []
  const extra: string[] = []
  let count = 0
  // Number the yield points in order (a step's points are then one range) and note what must persist.
  const number = (steps: Step[]): Range | undefined => {
    let lo = 0, hi = 0
    for (const s of steps as AnyStep[]) {
      let rg: Range | undefined
      if (isMarker(s)) {
        const k = ++count
        rg = { lo: k, hi: k }
      } else {
        if (s.op === 'try' && typeof s.catchParam === 'string') catchParams.push(s.catchParam)
        for (const list of children(s)) {
          const c = number(list)
          if (c) rg = rg ? { lo: rg.lo, hi: c.hi } : c
        }
      }
      if (rg) {
        ranges.set(s, rg)
        if (lo === 0) lo = rg.lo
        hi = rg.hi
      }
    }
    return lo === 0 ? undefined : { lo, hi }
  }
  let temps = 0
  const temp = (prefix: string) => { const name = `${prefix}${++temps}`; extra.push(name); return name }
  const rewritten = returnsEnd(yieldingFinally(body, temp))
  number(rewritten)
  const vars = [...new Set([...params, ...locals, ...catchParams])]
  const atStart = (): Node => binary('===', id(PC), lit(0))
  const inRange = (rg: Range): Node => (rg.lo === rg.hi ? binary('===', id(PC), lit(rg.lo)) : and(binary('>=', id(PC), lit(rg.lo)), binary('<=', id(PC), lit(rg.hi))))
  const listRange = (steps: Step[]): Range | undefined => {
    const rs = steps.map((s) => ranges.get(s)).filter((x): x is Range => x !== undefined)
    return rs.length ? { lo: rs[0]!.lo, hi: rs[rs.length - 1]!.hi } : undefined
  }
  // Only a body with `finally` blocks needs to tell them it is pausing.
  const finals = hasFinally(rewritten)
  // The point and the flag are set once the value is made (arguments run in order): a value that
  // raises leaves the body running, for its `except` and `finally` blocks.
  const suspend = (k: number, value: Node, loc: unknown): Step[] => [
    step('return', { value: rt('gyield', [id(G), lit(k), value, assign(PC, lit(k)), ...(finals ? [assign(SUSP, lit(true))] : [])]) }, loc as never),
  ]

  /**
   * A list entered with `$pc` 0 or within its own range: the steps before the resumption point are
   * skipped, the one holding it is entered (no test needed when it holds every point of the list).
   */
  const list = (steps: Step[]): Step[] => {
    const out: Step[] = []
    let plain: Step[] = []
    const flush = () => {
      if (plain.length) out.push(step('if', { condition: atStart(), then: plain }))
      plain = []
    }
    const whole = listRange(steps)
    for (const s of steps) {
      const rg = ranges.get(s)
      if (!rg) { plain.push(s); continue }
      flush()
      if (whole && whole.lo === rg.lo && whole.hi === rg.hi) out.push(...one(s as AnyStep, rg))
      else out.push(step('if', { condition: or(atStart(), inRange(rg)), then: one(s as AnyStep, rg) }))
    }
    flush()
    return out
  }
  const maybe = (steps: Step[]): Step[] => (listRange(steps) ? list(steps) : steps)

  const one = (s: AnyStep, rg: Range): Step[] => {
    const marker = isMarker(s)
    if (marker === 'yield') {
      return [step('if', {
        condition: atStart(),
        then: suspend(rg.lo, s.value.args[0], s.loc),
        else: [setVar(PC, lit(0)), exprStep(rt('gresume', [id(G)]))],
      }, s.loc)]
    }
    if (marker === 'yieldfrom') {
      // Each run of the body passes here once: the first item, or (resumed) what the inner generator
      // gives for the `send`/`throw`/`close` that resumed the outer one; at its end, its return value
      // is what `x = yield from g` assigns.
      const sub = temp('$gs'), v = temp('$gv')
      return [
        step('if', {
          condition: atStart(),
          then: [setVar(sub, rt('cursor', [s.value.args[0]], s.loc)), setVar(v, rt('cnext', [id(sub)]))],
          else: [setVar(PC, lit(0)), setVar(v, rt('gfrom', [id(G), id(sub)], s.loc))],
        }, s.loc),
        step('if', { condition: binary('!==', id(v), UNDEFINED), then: suspend(rg.lo, id(v), s.loc) }),
        exprStep(rt('gfromret', [id(G), id(sub)])),
      ]
    }
    switch (s.op) {
      case 'if': {
        const rThen = listRange(s.then ?? [])
        const out: AnyStep = { ...s, condition: cond(atStart(), s.condition, rThen ? inRange(rThen) : lit(false)), then: maybe(s.then ?? []) }
        if (s.else) out.else = maybe(s.else)
        return [out]
      }
      case 'while': case 'for':
        return [{ ...s, condition: or(binary('!==', id(PC), lit(0)), s.condition), body: list(s.body ?? []) }]
      case 'forOf': {
        if (typeof s.target !== 'string') throw new Error('generator lowering: a for loop target must be a variable')
        const it = temp('$gi'), v = temp('$gv')
        return [
          step('if', { condition: atStart(), then: [setVar(it, rt('cursor', [s.iterable]))] }, s.loc),
          step('while', { condition: lit(true), body: [
            step('if', { condition: atStart(), then: [
              setVar(v, rt('cnext', [id(it)])),
              step('if', { condition: binary('===', id(v), UNDEFINED), then: [step('break', {})] }),
              setVar(s.target, id(v)),
            ] }),
            ...list(s.body ?? []),
          ] }, s.loc),
        ]
      }
      case 'try': {
        const rH = listRange(s.catch ?? [])
        const out: AnyStep = { ...s, try: maybe(s.try ?? []) }
        if (s.catch) out.catch = maybe(s.catch)
        if (rH) {
          // The caught exception, kept among the variables (the catch's own binding is not), raised again to resume in the handler.
          const kept = temp('$ge')
          out.try = [step('if', { condition: inRange(rH), then: [step('throw', { value: id(kept) })] }), ...out.try]
          out.catch = [setVar(kept, rt('caught', [id(s.catchParam)])), ...out.catch]
        }
        // Pausing leaves the helper by `return`: the body's `finally` blocks wait for the real end.
        if (s.finally) out.finally = [step('if', { condition: not(id(SUSP)), then: s.finally })]
        return [out]
      }
    }
    throw new Error(`generator lowering: no yield point can be inside a ${s.op} step`)
  }

  // `x = yield` reads the value the generator was resumed with from the generator itself.
  const resumed = withSent(list(rewritten), (call) => ({ ...call, args: [id(G)] }) as unknown as Node)
  // Every variable is a parameter: the first call binds them, later calls find them as they were left.
  const all = [G, ...vars, ...extra, PC, SUSP]
  const resume: FunctionDef = {
    params: all,
    steps: [...(finals ? [setVar(SUSP, lit(false))] : []), ...resumed, step('return', { value: rt('gdone', [id(G), lit(null)]) })],
  }
  const first = arr([...all.slice(1).map((n) => (n === PC ? lit(0) : n === SUSP ? lit(false) : params.includes(n) ? id(n) : UNDEFINED))])
  const entry: Step[] = [
    step('varsLet', { vars: { [G]: rt('mkgen', [lit(resumeName), first, lit(qualname)]) } }),
    // A body that may wait for an atom runs eagerly here, where waiting is allowed.
    step('if', { condition: rt('genwaits', [id(G)]), then: [step('return', { value: call(eagerName, params.map((p) => id(p))) })] }),
    step('return', { value: id(G) }),
  ]
  const declared: Record<string, Node> = { [ITEMS]: arr([]), [ESENT]: lit(null) }
  for (const n of [...locals, ...catchParams]) if (!params.includes(n)) declared[n] = UNDEFINED
  const eager: FunctionDef = {
    params,
    steps: [step('varsLet', { vars: declared }), ...withSent(eagerBody(body), () => id(ESENT)), step('return', { value: rt('gen', [id(ITEMS), lit('generator')]) })],
  }
  return { entry, resume, eager }
}

function hasFinally(steps: Step[]): boolean {
  return (steps as AnyStep[]).some((s) => (s.op === 'try' && s.finally !== undefined) || children(s).some(hasFinally))
}

/** The steps with `f(step)` in place of each step it rewrites (undefined: kept, its step lists rewritten too). */
function rewriteSteps(steps: Step[], f: (s: AnyStep) => Step | undefined): Step[] {
  return (steps as AnyStep[]).map((s) => {
    const r = f(s)
    if (r !== undefined) return r
    const out: AnyStep = { ...s }
    const go = (xs: Step[] | undefined) => (xs === undefined ? undefined : rewriteSteps(xs, f))
    switch (s.op) {
      case 'if': out.then = go(s.then ?? []); if (s.else) out.else = go(s.else); break
      case 'while': case 'for': case 'forOf': out.body = go(s.body ?? []); break
      case 'try': out.try = go(s.try ?? []); if (s.catch) out.catch = go(s.catch); if (s.finally) out.finally = go(s.finally); break
      default: return s
    }
    return out
  })
}

/** The body run to its end: each item appended to `$items`, a `return` gives them all. */
const eagerBody = (steps: Step[]): Step[] => rewriteSteps(steps, (s) => {
  const marker = isMarker(s)
  if (marker === 'yield') return setVar(ESENT, rt('gpush', [id(ITEMS), s.value.args[0]]), s.loc)
  if (marker === 'yieldfrom') return setVar(ESENT, rt('gfromall', [id(ITEMS), s.value.args[0]], s.loc), s.loc)
  if (s.op === 'return') return { ...s, value: rt('first', [rt('gen', [id(ITEMS), lit('generator')]), s.value ?? lit(null)]) }
  return undefined
})

/** `return v` in the body ends the generator (StopIteration(v) from then on). */
const returnsEnd = (steps: Step[]): Step[] => rewriteSteps(steps, (s) => (s.op === 'return' ? { ...s, value: rt('gdone', [id(G), s.value ?? lit(null)]) } : undefined))

/** The steps with `py$gsent()` (the value `x = yield` assigns, lowered without the generator) replaced: given `$g`, or the eager twin's variable. */
function withSent(steps: Step[], by: (call: Record<string, unknown>) => Node): Step[] {
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(walk)
    if (x === null || typeof x !== 'object') return x
    const o = x as Record<string, unknown>
    if (o.$expr === 'call' && o.callee === 'py$gsent') return by(o)
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(o)) out[k] = walk(o[k])
    return out
  }
  return walk(steps) as Step[]
}
