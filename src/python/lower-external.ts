/**
 * Calls of the host's functions (`transpilePython`'s `externals`): a Python program reaches the host
 * only through them. `name(...)` is a call of the name's atom: the arguments become the fields of the
 * atom's input as JSON data (what `json.dumps` accepts), and the atom's result comes back as Python
 * values (objects as dicts, whole numbers as ints). A workflow's `agent(...)`, `sleep(...)` and custom
 * atoms are such calls; the workflow engine journals each by its call site (`site`), so a resumed run
 * gets the journaled result instead of calling again.
 */
import * as b from '../ast/build.ts'
import type { ExprOf } from './ir.ts'
import { type Node, arr, call, lit, rt } from './nodes.ts'
import { type FnCtx, elements, lowerExpr } from './lower-expr.ts'

/** How one host function is called. */
export interface PythonExternal {
  /** The atom called (default: the function's name). */
  atom?: string
  /** The fields the positional arguments fill, in order; a keyword argument may name any of them. */
  fields?: readonly string[]
  /** How many arguments are required. Default 0. */
  min?: number
  /** The last field takes the remaining positional arguments as a list (`log(*values)`). */
  rest?: boolean
  /**
   * The call's one argument is the atom's `input` field: `lookup(x)` is `lookup({ input: x })`, and
   * keyword arguments `lookup(id=3)` are the dict `{ "id": 3 }` (a workflow's custom atoms).
   */
  input?: boolean
  /** Add `site: "line:col"`, the call's place in the source (what a workflow journal keys calls by). */
  site?: boolean
}

/**
 * `print(...)` when the host takes printed lines (`externals.print`, e.g. a workflow's `log`): the
 * line print would write (`sep=`, `end=` applied) is the one item of the host function's first field.
 */
export function hostPrint(cx: FnCtx, e: ExprOf<'call'>, ext: PythonExternal, line: Node): Node {
  const fields: Record<string, Node> = { [ext.fields?.[0] ?? 'values']: arr([line]) }
  if (ext.site) fields.site = lit(`${e.loc[0]}:${e.loc[1] + 1}`)
  return rt('fromdata', [call(ext.atom ?? 'print', [b.object(fields)], e.loc)], e.loc)
}

/** The call of a host function as an atom call; undefined when `name` is no host function. */
export function externalCall(cx: FnCtx, e: ExprOf<'call'>, name: string): Node | undefined {
  const ext = cx.L.options.externals?.get(name)
  if (!ext) return undefined
  const bad = (detail: string, fix: string): never => { throw cx.L.r.error('PY_ARGUMENTS', { name, detail, fix }, e.loc) }
  if (e.kw.some((k) => k.name === null)) bad('`**` arguments are not accepted by a host function', `Name the arguments of ${name}() one by one.`)
  const data = (n: Node) => rt('data', [n])
  const fields: Record<string, Node> = {}
  if (ext.input) {
    if (e.args.length > 1 || (e.args.length === 1 && e.kw.length > 0)) bad('takes one argument, or keyword arguments', `Call it as ${name}(value) or ${name}(field=value, ...).`)
    if (e.args.some((a) => a.k === 'star')) bad('`*` arguments are not accepted here', `Call it as ${name}(value).`)
    fields.input = e.args.length === 1
      ? data(lowerExpr(cx, e.args[0]!))
      : b.object(Object.fromEntries(e.kw.map((k) => [k.name!, data(lowerExpr(cx, k.value))])))
  } else {
    const names = ext.fields ?? []
    const fixed = ext.rest ? names.length - 1 : names.length
    if (e.args.some((a) => a.k === 'star') && !ext.rest) bad('`*` arguments are not accepted here', `Pass the arguments of ${name}() one by one.`)
    if (!ext.rest && e.args.length > names.length) bad(`takes at most ${names.length} argument${names.length === 1 ? '' : 's'} (${names.join(', ')}), got ${e.args.length}`, `Call it as ${name}(${names.join(', ')}).`)
    e.args.slice(0, fixed).forEach((a, i) => { fields[names[i]!] = data(lowerExpr(cx, a)) })
    if (ext.rest) fields[names[fixed]!] = data(arr(elements(cx, e.args.slice(fixed))))
    for (const k of e.kw) {
      if (!names.includes(k.name!)) bad(`unexpected keyword argument '${k.name}'`, `${name}() takes ${names.join(', ') || 'no arguments'}.`)
      if (fields[k.name!] !== undefined) bad(`got multiple values for argument '${k.name}'`, `Pass ${k.name} once.`)
      fields[k.name!] = data(lowerExpr(cx, k.value))
    }
    const given = names.filter((f) => fields[f] !== undefined).length
    if (given < (ext.min ?? 0)) bad(`missing required argument '${names[given]}'`, `Call it as ${name}(${names.join(', ')}).`)
  }
  if (ext.site) fields.site = lit(`${e.loc[0]}:${e.loc[1] + 1}`)
  return rt('fromdata', [call(ext.atom ?? name, [b.object(fields)], e.loc)], e.loc)
}
