/**
 * The builder's own methods, one table entry each: program metadata, the
 * structural ops (declarations, control flow, step-body collection ops) and
 * `as`/`toJSON`. Atom methods are generated from the atom table in
 * `atoms.ts`. Every entry returns a new `State` (or, for `ref`/`toJSON`, a
 * value); nothing is mutated.
 */
import type { Expr, Pattern, Step } from '../ast/types.ts'
import { BuilderError } from './errors.ts'
import type { VarMap } from './resolve.ts'
import { checkName, namesOf, addNames, makeRegistry, State } from './state.ts'
import { sha256Hex } from '../vm/atoms/sha256.ts'
import {
  argError, at, buildBody, checkKeys, condition, hoist, isBody, isPlainObject, value, type BodyResult, type Kit,
} from './body.ts'
import { atomCall, atomMethodFor } from './atoms.ts'
import { e, type SourceExpr } from './expr.ts'
import { takeSchema, metaOf } from './root.ts'
import { node as make } from '../ast/build.ts'

export type Method = (st: State, args: unknown[], kit: Kit) => unknown

/** `(cond, body, ...)` or `(cond, vars, body, ...)`: the vars mapping is optional. */
function splitVars(args: unknown[], kit: Kit): { vars?: VarMap; rest: unknown[] } {
  if (args.length > 1 && !isBody(args[1], kit) && args[1] !== undefined) {
    if (!isPlainObject(args[1])) throw argError('expected a vars mapping `{ name: path }` or a body callback')
    return { vars: args[1] as VarMap, rest: args.slice(2) }
  }
  return { rest: args.slice(1) }
}

function label(opts: unknown, step: Step): Step {
  if (opts === undefined) return step
  if (!isPlainObject(opts)) throw argError('options must be an object')
  checkKeys(opts, ['label', 'kind', 'index', 'vars', 'ttlMs'], step.op)
  if (opts.label !== undefined) step.label = checkName(opts.label, 'label')
  return step
}

function pattern(p: unknown, what: string): Pattern {
  if (typeof p === 'string') return checkName(p, what)
  if (isPlainObject(p) && typeof p.$pattern === 'string') return p as unknown as Pattern
  throw argError(`${what} must be a name or a $pattern node`)
}

/** Declared names: step added, names in scope; `result`-like names also hoist. */
function declareFn(st: State, step: Step, name: string): State {
  return st.names.includes(name) ? st.push(step) : st.push(step, [], [name])
}

function lets(st: State, kit: Kit, args: unknown[]): State {
  const entries: Array<[string, unknown]> = typeof args[0] === 'string'
    ? [[args[0], args.length > 1 ? args[1] : undefined]]
    : isPlainObject(args[0]) ? Object.entries(args[0]) : []
  if (entries.length === 0) throw argError('let(name, value?) or let({ name: value, ... })')
  const vars: Record<string, unknown> = {}
  let scope = st
  for (const [name, v] of entries) {
    checkName(name, 'let')
    vars[name] = value(scope, kit, v) // later bindings see earlier ones, as in `let a = 1, b = a`
    scope = scope.with({ names: addNames(scope.names, [name]) })
  }
  return st.push({ op: 'varsLet', vars }, Object.keys(vars))
}

function loopOf(op: 'while' | 'doWhile'): Method {
  return (st, args, kit) => at(st, op, () => {
    const { vars, rest } = splitVars(args, kit)
    const cond = condition(st, kit, args[0], vars)
    const body = buildBody(st, kit, rest[0], [], '/body', op)
    const step: Step = op === 'while'
      ? { op, condition: cond, body: body.steps }
      : { op, body: body.steps, condition: cond }
    return hoist(st.push(label(rest[1], step)), [body])
  })
}

function forInOf(op: 'forOf' | 'forIn', sourceField: 'iterable' | 'object'): Method {
  return (st, [target, source, fn, opts], kit) => at(st, op, () => {
    const t = pattern(target, `${op} target`)
    const o = (opts ?? {}) as { kind?: 'let' | 'const' | null; vars?: VarMap }
    const src = condition(st, kit, source, o.vars)
    const body = buildBody(st, kit, fn, namesOf(t), '/body', op)
    const step: Step = { op, target: t, [sourceField]: src, body: body.steps }
    const kind = o.kind === undefined ? 'const' : o.kind
    if (kind !== null) step.kind = kind
    return hoist(st.push(label(opts, step)), [body])
  })
}

/** map / filter / find / reduce over `items`, each item bound to `as`. */
function collection(op: 'map' | 'filter' | 'find'): Method {
  return (st, [items, as, third, opts], kit) => at(st, op, () => {
    const name = checkName(as, `${op} item name`)
    const o = (opts ?? {}) as { index?: string; vars?: VarMap }
    if (opts !== undefined) { if (!isPlainObject(opts)) throw argError('options must be an object'); checkKeys(opts, ['index', 'vars'], op) }
    const bound = o.index === undefined ? [name] : [name, checkName(o.index, `${op} index name`)]
    const step: Step = { op, items: value(st, kit, items), as: name }
    if (o.index !== undefined) step.index = o.index
    if (op === 'map') {
      const body = buildBody(st, kit, third, bound, '/steps', op)
      step.steps = body.steps
      return hoist(st.push(step), [body])
    }
    step.condition = condition(st, kit, third, o.vars, bound)
    return st.push(step)
  })
}

function tryStep(st: State, [spec]: unknown[], kit: Kit): State {
  return at(st, 'try', () => {
    if (!isPlainObject(spec)) throw argError('try({ try, catch?, catchParam?, finally? })')
    checkKeys(spec, ['try', 'catch', 'catchParam', 'finally'], 'try')
    if (spec.catch === undefined && spec.finally === undefined) throw argError('try needs `catch` or `finally`')
    const bodies: BodyResult[] = []
    const tryBody = buildBody(st, kit, spec.try, [], '/try', 'try')
    bodies.push(tryBody)
    const step: Step = { op: 'try', try: tryBody.steps }
    if (spec.catch !== undefined) {
      // The seed's builder: without catchParam the catch body sees the error as `error`.
      const param = spec.catchParam === undefined ? 'error' : pattern(spec.catchParam, 'catchParam')
      step.catchParam = param
      const c = buildBody(st, kit, spec.catch, namesOf(param), '/catch', 'try')
      step.catch = c.steps
      bodies.push(c)
    } else if (spec.catchParam !== undefined) throw argError('catchParam needs a `catch` body')
    if (spec.finally !== undefined) {
      const f = buildBody(st, kit, spec.finally, [], '/finally', 'try')
      step.finally = f.steps
      bodies.push(f)
    }
    return hoist(st.push(step), bodies)
  })
}

function forStep(st: State, [spec]: unknown[], kit: Kit): State {
  return at(st, 'for', () => {
    if (!isPlainObject(spec)) throw argError('for({ init?, condition?, update?, body, label? })')
    checkKeys(spec, ['init', 'condition', 'update', 'body', 'label'], 'for')
    const step: Step = { op: 'for' }
    let inner = st
    const bodies: BodyResult[] = []
    if (spec.init !== undefined) {
      const init = buildBody(st, kit, spec.init, [], '/init', 'for')
      step.init = init.steps
      inner = st.with({ names: init.state.names }) // `for (let i = ...)`: i is in scope for the rest
      bodies.push(init)
    }
    if (spec.condition !== undefined) step.condition = condition(inner, kit, spec.condition)
    if (spec.update !== undefined) step.update = condition(inner, kit, spec.update)
    const body = buildBody(inner, kit, spec.body, [], '/body', 'for')
    step.body = body.steps
    bodies.push(body)
    return hoist(st.push(label(spec.label === undefined ? undefined : { label: spec.label }, step)), bodies)
  })
}

function switchStep(st: State, [disc, cases, opts]: unknown[], kit: Kit): State {
  return at(st, 'switch', () => {
    if (!Array.isArray(cases)) throw argError('switch(discriminant, [{ test?, body }], opts?)')
    const discriminant = condition(st, kit, disc)
    const bodies: BodyResult[] = []
    const out = cases.map((c, i) => {
      if (!isPlainObject(c)) throw argError('each case is { test?, body }')
      checkKeys(c, ['test', 'body'], 'switch case')
      const body = buildBody(st, kit, c.body, [], `/cases/${i}/body`, 'switch')
      bodies.push(body)
      return c.test === undefined ? { body: body.steps } : { test: condition(st, kit, c.test), body: body.steps }
    })
    return hoist(st.push(label(opts, { op: 'switch', discriminant, cases: out })), bodies)
  })
}

/** A tosijs-schema builder (`s.object({...})`): an object schema with `validate`, never data. */
function isSchemaBuilder(v: unknown): v is { schema: Record<string, unknown> } {
  return isPlainObject(v) && isPlainObject(v.schema) && typeof v.validate === 'function'
}

/**
 * `.return(s.object({ a: ..., b: ... }))`, the seed's form: returns the
 * variables named by the schema's properties as `{ a, b }`. At the root the
 * schema also becomes the program's `outputSchema` (unless meta() set one).
 */
function returnSchema(st: State, schema: Record<string, unknown>): State {
  const props = schema.properties
  if (schema.type !== 'object' || !isPlainObject(props)) throw argError('return(schema) takes an object schema: s.object({ name: type, ... })')
  const keys = Object.keys(props)
  const missing = keys.filter((k) => !st.names.includes(k))
  if (missing.length > 0) {
    throw argError(`return(schema) returns variables by name, but ${missing.map((k) => `\`${k}\``).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in scope (in scope: ${st.names.join(', ') || 'none'})`)
  }
  const value: Expr = make('object', { properties: keys.map((key) => ({ key, value: make('ident', { name: key }) })) })
  const pushed = st.push({ op: 'return', value })
  if (st.root === null || st.root.outputSchema !== undefined) return pushed
  return pushed.with({ root: { ...pushed.root!, outputSchema: JSON.parse(JSON.stringify(schema)) as Record<string, unknown> } })
}

/** JSON Schema keywords a plain object schema given to `.return(...)` may use at its top level. */
const OBJECT_SCHEMA_KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties', 'title', 'description', '$schema', '$id', '$comment',
  'default', 'examples', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', 'dependentRequired', 'unevaluatedProperties', '$defs', 'definitions'])

/**
 * A plain JSON Schema of an object (`{ properties: { x: {} } }`, not made with `s`): `properties`
 * is an object of objects, every top-level key is a JSON Schema keyword, and `type` (if any) is
 * "object". Anything else given to `.return(...)` is a value.
 */
function isPlainObjectSchema(v: unknown): v is Record<string, unknown> {
  if (!isPlainObject(v) || !isPlainObject(v.properties)) return false
  if (!Object.values(v.properties).every(isPlainObject)) return false
  if (v.type !== undefined && v.type !== 'object') return false
  return Object.keys(v).every((k) => OBJECT_SCHEMA_KEYWORDS.has(k))
}

/** A memoize/cache body; without a `return` of its own it yields its `result` variable (the seed's convention). */
function memoBody(st: State, kit: Kit, fn: unknown, op: string): BodyResult {
  const body = buildBody(st, kit, fn, [], '/steps', op)
  if (body.steps.some((x) => x.op === 'return') || !body.state.names.includes('result')) return body
  return { ...body, steps: [...body.steps, { op: 'return', value: make('ident', { name: 'result' }) }] }
}

/** The key of a keyless memoize/cache: a hash of the body's JSON, the same on every run of the program. */
function bodyKey(steps: readonly Step[]): string {
  return `body:${sha256Hex(JSON.stringify(steps)).slice(0, 32)}`
}

/** `'user.address.city'` / `'items.0.name'` as AJS source (`items[0].name`), resolved where it is used. */
function dottedPath(path: unknown, what: string): SourceExpr {
  if (typeof path !== 'string' || !/^[A-Za-z_$][\w$]*(\.([A-Za-z_$][\w$]*|\d+))*$/.test(path)) {
    throw argError(`${what} takes a dotted path such as 'user.name' or 'items.0.id', got ${JSON.stringify(path)}`)
  }
  const [head, ...rest] = path.split('.')
  checkName(head, what)
  const source = head + rest.map((seg) => (/^\d+$/.test(seg) ? `[${seg}]` : `.${checkName(seg, what)}`)).join('')
  return e.parse(source)
}

function rootOnly(st: State, what: string): void {
  if (st.root === null) throw new BuilderError('BUILDER_ARGS', `${what} is only available on the program root (Agent...), not inside a body`)
}

export const METHODS: Record<string, Method> = {
  take: (st, [schema]) => { rootOnly(st, 'take()'); return takeSchema(st, schema) },
  /** `Agent.custom(atoms)`: a new root over the core atoms plus these (defineAtom atoms, as a record or a list). */
  custom: (st, [atoms]) => {
    rootOnly(st, 'custom()')
    const list = Array.isArray(atoms) ? atoms : isPlainObject(atoms) ? Object.values(atoms) : undefined
    if (!list || !list.every((a) => a !== null && typeof a === 'object' && typeof (a as { op?: unknown }).op === 'string' && isPlainObject((a as { fields?: unknown }).fields))) {
      throw argError('custom(atoms) takes atoms made with defineAtom: { myAtom } or [myAtom, ...]')
    }
    return State.empty(makeRegistry(new Set(Object.keys(METHODS)), list as Array<{ op: string; fields: Record<string, never> }>), true)
  },
  meta: (st, [m]) => { rootOnly(st, 'meta()'); return st.with({ root: { ...st.root, ...metaOf(m) } }) },
  as: (st, [name]) => {
    const n = checkName(name, 'as()')
    const last = st.steps[st.steps.length - 1]
    if (!last) throw new BuilderError('BUILDER_ARGS', 'as() names the result of the previous step, but there is none')
    const steps = [...st.steps.slice(0, -1), { ...last, result: n }]
    const fn = st.names.includes(n) ? [] : [n]
    return st.with({ steps, names: addNames(st.names, [n]), fnNames: addNames(st.fnNames, fn) })
  },
  let: (st, args, kit) => at(st, 'varsLet', () => lets(st, kit, args)),
  const: (st, [name, v], kit) => at(st, 'constSet', () => {
    const key = checkName(name, 'const')
    return st.push({ op: 'constSet', key, value: value(st, kit, v) }, [key])
  }),
  set: (st, [name, v], kit) => at(st, 'varSet', () => {
    const key = checkName(name, 'set')
    return declareFn(st, { op: 'varSet', key, value: value(st, kit, v) }, key)
  }),
  expr: (st, [source], kit) => at(st, 'expr', () => st.push({ op: 'expr', value: condition(st, kit, source) })),
  return: (st, args, kit) => at(st, 'return', () => {
    if (args.length === 0) return st.push({ op: 'return' })
    if (isSchemaBuilder(args[0])) return returnSchema(st, args[0].schema)
    if (isPlainObjectSchema(args[0])) return returnSchema(st, { type: 'object', ...args[0] })
    return st.push({ op: 'return', value: value(st, kit, args[0]) })
  }),
  /** The seed's `varSet({ key, value })`: declares `key` when new, assigns it when in scope (like `set`). */
  varSet: (st, [spec], kit) => at(st, 'varSet', () => {
    if (!isPlainObject(spec)) throw argError('varSet({ key, value })')
    checkKeys(spec, ['key', 'value'], 'varSet')
    const key = checkName(spec.key, 'varSet key')
    return declareFn(st, { op: 'varSet', key, value: value(st, kit, spec.value) }, key)
  }),
  /** An input field by dotted path (`Agent.args('user.name')`), usable wherever a value is. */
  args: (_st, [path]) => dottedPath(path, 'args()'),
  /** A variable by dotted path (`Agent.val('result.items.0')`), usable wherever a value is. */
  val: (_st, [path]) => dottedPath(path, 'val()'),
  throw: (st, [v], kit) => at(st, 'throw', () => st.push({ op: 'throw', value: value(st, kit, v) })),
  break: (st, [l]) => at(st, 'break', () => st.push(l === undefined ? { op: 'break' } : { op: 'break', label: checkName(l, 'label') })),
  continue: (st, [l]) => at(st, 'continue', () => st.push(l === undefined ? { op: 'continue' } : { op: 'continue', label: checkName(l, 'label') })),
  if: (st, args, kit) => at(st, 'if', () => {
    const { vars, rest } = splitVars(args, kit)
    const cond = condition(st, kit, args[0], vars)
    const then = buildBody(st, kit, rest[0], [], '/then', 'if')
    const step: Step = { op: 'if', condition: cond, then: then.steps }
    const bodies = [then]
    if (rest[1] !== undefined) {
      const otherwise = buildBody(st, kit, rest[1], [], '/else', 'if')
      step.else = otherwise.steps
      bodies.push(otherwise)
    }
    return hoist(st.push(step), bodies)
  }),
  while: loopOf('while'),
  doWhile: loopOf('doWhile'),
  for: forStep,
  forOf: forInOf('forOf', 'iterable'),
  forIn: forInOf('forIn', 'object'),
  switch: switchStep,
  try: tryStep,
  scope: (st, [fn], kit) => at(st, 'scope', () => {
    const body = buildBody(st, kit, fn, [], '/steps', 'scope')
    return hoist(st.push({ op: 'scope', steps: body.steps }), [body])
  }),
  parallel: (st, args, kit) => at(st, 'parallel', () => {
    const fns = args.length === 1 && Array.isArray(args[0]) ? args[0] as unknown[] : args
    if (fns.length === 0) throw argError('parallel needs at least one branch')
    const bodies = fns.map((fn, i) => buildBody(st, kit, fn, [], `/branches/${i}`, 'parallel'))
    return st.push({ op: 'parallel', branches: bodies.map((b) => b.steps) }) // branches run concurrently: nothing hoists
  }),
  // The items form of `parallel` (what `Promise.all(xs.map(...))` compiles to): each item's run is private, nothing hoists.
  parallelMap: (st, [items, as, fn, opts], kit) => at(st, 'parallelMap', () => {
    const name = checkName(as, 'parallelMap item name')
    if (opts !== undefined) { if (!isPlainObject(opts)) throw argError('options must be an object'); checkKeys(opts, ['index'], 'parallelMap') }
    const index = (opts as { index?: string } | undefined)?.index
    const bound = index === undefined ? [name] : [name, checkName(index, 'parallelMap index name')]
    const body = buildBody(st, kit, fn, bound, '/steps', 'parallelMap')
    const step: Step = { op: 'parallel', items: value(st, kit, items), as: name, steps: body.steps }
    if (index !== undefined) step.index = index
    return st.push(step)
  }),
  map: collection('map'),
  filter: collection('filter'),
  find: collection('find'),
  reduce: (st, [items, as, acc, initial, fn], kit) => at(st, 'reduce', () => {
    const item = checkName(as, 'reduce item name')
    const accumulator = checkName(acc, 'reduce accumulator name')
    const body = buildBody(st, kit, fn, [item, accumulator], '/steps', 'reduce')
    const step: Step = { op: 'reduce', items: value(st, kit, items), as: item, accumulator, initial: value(st, kit, initial), steps: body.steps }
    return hoist(st.push(step), [body])
  }),
  /** `memoize(key, body)`, or the seed's `memoize(body, key?)` (no key: one derived from the body). */
  memoize: (st, args, kit) => at(st, 'memoize', () => {
    const [fn, key] = isBody(args[0], kit) ? [args[0], args[1]] : [args[1], args[0]]
    const body = memoBody(st, kit, fn, 'memoize')
    return st.push({ op: 'memoize', key: key === undefined ? bodyKey(body.steps) : value(st, kit, key), steps: body.steps })
  }),
  /** `cache(key, body, { ttlMs }?)`, or the seed's `cache(body, key?, ttlMs?)` (no key: one derived from the body). */
  cache: (st, args, kit) => at(st, 'cache', () => {
    const bodyFirst = isBody(args[0], kit)
    const [fn, key] = bodyFirst ? [args[0], args[1]] : [args[1], args[0]]
    const opts = bodyFirst ? (args[2] === undefined ? undefined : { ttlMs: args[2] }) : args[2]
    const body = memoBody(st, kit, fn, 'cache')
    const step: Step = { op: 'cache', key: key === undefined ? bodyKey(body.steps) : value(st, kit, key), steps: body.steps }
    if (opts !== undefined) {
      if (!isPlainObject(opts)) throw argError('cache options must be { ttlMs }')
      checkKeys(opts, ['ttlMs'], 'cache')
      if (opts.ttlMs !== undefined) step.ttlMs = value(st, kit, opts.ttlMs)
    }
    return st.push(step)
  }),
  /** `varGet('x')` or the seed's `varGet({ key: 'x' })`: the variable's value as the step's result. */
  varGet: (st, [key]) => at(st, 'varGet', () => {
    if (isPlainObject(key)) {
      checkKeys(key, ['key'], 'varGet')
      key = key.key
    }
    return st.push({ op: 'varGet', key: checkName(key, 'varGet') })
  }),
  /**
   * `varsImport([names])`, or the seed's mapping form `varsImport({ variable: 'argName' })`.
   * ajs/1 reaches the args only by name (`varsImport`), so a renamed import is
   * `let variable` and a `scope` that imports the arg and assigns it: the arg's
   * name is not declared outside that scope. Same-named entries are a plain
   * `varsImport`; one scope per renamed entry when a target is another's source.
   */
  varsImport: (st, [keys]) => at(st, 'varsImport', () => {
    if (isPlainObject(keys)) {
      const entries = Object.entries(keys).map(([k, v]) => [checkName(k, 'varsImport variable'), checkName(v, 'varsImport arg name')] as const)
      const same = entries.filter(([k, v]) => k === v).map(([k]) => k)
      const renamed = entries.filter(([k, v]) => k !== v)
      let next = same.length > 0 ? st.push({ op: 'varsImport', keys: same }, same) : st
      if (renamed.length === 0) return next
      const targets = renamed.map(([k]) => k)
      const undef: Expr = make('ident', { name: 'undefined' })
      next = next.push({ op: 'varsLet', vars: Object.fromEntries(targets.map((k) => [k, undef])) }, targets)
      const sources = new Set(renamed.map(([, v]) => v))
      const groups = targets.some((k) => sources.has(k)) ? renamed.map((e) => [e]) : [renamed]
      for (const group of groups) {
        next = next.push({ op: 'scope', steps: [
          { op: 'varsImport', keys: [...new Set(group.map(([, v]) => v))] },
          ...group.map(([k, v]): Step => ({ op: 'varSet', key: k, value: make('ident', { name: v }) })),
        ] })
      }
      return next
    }
    if (!Array.isArray(keys)) throw argError('varsImport([names]) or varsImport({ variable: argName })')
    const names = keys.map((k) => checkName(k, 'varsImport'))
    return st.push({ op: 'varsImport', keys: names }, names)
  }),
  varsExport: (st, [keys]) => at(st, 'varsExport', () => {
    if (isPlainObject(keys)) {
      // The mapping form `varsExport({ out: 'variable' })`: an object of the named variables under new keys.
      const properties = Object.entries(keys).map(([k, v]) => ({ key: checkName(k, 'varsExport key'), value: make('ident', { name: checkName(v, 'varsExport variable') }) as Expr }))
      return st.push({ op: 'expr', value: make('object', { properties }) })
    }
    if (!Array.isArray(keys)) throw argError('varsExport([names]) or varsExport({ key: variable })')
    return st.push({ op: 'varsExport', keys: keys.map((k) => checkName(k, 'varsExport')) })
  }),
  destructure: (st, [kind, pat, v], kit) => at(st, 'destructure', () => {
    if (kind !== 'let' && kind !== 'const' && kind !== 'assign') throw argError('destructure kind is "let", "const" or "assign"')
    const p = pattern(pat, 'destructure pattern')
    const step: Step = { op: 'destructure', kind, pattern: p, value: value(st, kit, v) }
    return kind === 'assign' ? st.push(step) : st.push(step, namesOf(p))
  }),
  /** Any atom by name (also those whose names are taken by builder methods). */
  atom: (st, [op, input], kit) => {
    if (typeof op !== 'string' || !st.reg.atoms.has(op)) throw new BuilderError('BUILDER_UNKNOWN_METHOD', `unknown atom ${JSON.stringify(op)}`, { path: st.nextPath })
    return atomCall(st, kit, st.reg.atoms.get(op)!, input)
  },
  /** A raw step (validated with the rest at `toJSON`). */
  step: (st, [raw]) => at(st, 'step', () => {
    if (!isPlainObject(raw) || typeof raw.op !== 'string') throw argError('step({ op, ... }) needs a step object')
    const step = structuredClone(raw) as Step
    return typeof step.result === 'string' ? declareFn(st, step, step.result) : st.push(step)
  }),
  ref: (st, [name]) => {
    const n = checkName(name, 'ref()')
    if (!st.names.includes(n)) throw new BuilderError('BUILDER_ARGS', `ref(${JSON.stringify(n)}): no variable of that name is in scope (in scope: ${st.names.join(', ') || 'none'})`)
    return make('ident', { name: n }) satisfies Expr
  },
  toJSON: (st, _args, kit) => kit.build(st),
}

export { atomMethodFor }
