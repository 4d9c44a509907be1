/** Pure library atoms: collections, text and JSON. Synchronous and trusted. */
import { vmError } from '../errors.ts'
import { getComputed, isForbiddenKey, ownKeys, toKey } from '../guards.ts'
import { jsonParse, jsonStringify } from '../builtins/json.ts'
import { isRegex, regexSupport } from '../builtins/regex-hook.ts'
import type { AtomDef } from './types.ts'
import { coreAtom, runOf } from './define.ts'
import { guestString, joinGuest } from '../builtins/coerce.ts'
import type { Run } from '../runtime.ts'
import { checkChars } from '../builtins/sizes.ts'
import { SLOT_COST } from '../fuel.ts'

const pure = { sync: true, trusted: true }

function asArray(v: unknown, op: string, field: string): unknown[] {
  if (!Array.isArray(v)) throw vmError('TYPE_ERROR', `${op}.${field} must be an array`, { op })
  return v
}

function asObject(v: unknown, op: string, field: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw vmError('TYPE_ERROR', `${op}.${field} must be an object`, { op })
  return v as Record<string, unknown>
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$0-9][\w$]*)*)\s*\}\}/g

/**
 * `{{a.b}}` placeholders resolved against `vars` through the guarded
 * accessors. Each path's text is made once per call, and the running length
 * is checked before each piece is added: a template repeating one large
 * value thousands of times stops with HEAP_LIMIT before it is built.
 */
function fillTemplate(rt: Run, template: string, vars: unknown): string {
  const texts = new Map<string, string>()
  const parts: string[] = []
  let total = 0
  let last = 0
  for (const m of template.matchAll(PLACEHOLDER)) {
    const path = m[1]!
    let t = texts.get(path)
    if (t === undefined) {
      let v: unknown = vars
      for (const part of path.split('.')) v = getComputed(rt, v, part)
      t = v === undefined || v === null ? '' : typeof v === 'string' ? v : jsonStringify(rt, v) ?? ''
      texts.set(path, t)
    }
    total += m.index - last + t.length
    checkChars(rt, total)
    rt.charge(SLOT_COST)
    parts.push(template.slice(last, m.index), t)
    last = m.index + m[0].length
  }
  checkChars(rt, total + template.length - last)
  parts.push(template.slice(last))
  return parts.join('')
}

export const LIBRARY_ATOMS: AtomDef[] = [
  coreAtom('push', ({ list, item }, ctx) => {
    const arr = asArray(list, 'push', 'list')
    if (Object.isFrozen(arr)) throw vmError('TYPE_ERROR', 'Cannot push to a read-only array', { op: 'push' })
    runOf(ctx).chargeSlots(1)
    return arr.push(item)
  }, pure),
  coreAtom('len', ({ value }) => {
    if (typeof value === 'string' || Array.isArray(value)) return value.length
    if (value !== null && typeof value === 'object') return ownKeys(value).length
    return 0
  }, pure),
  coreAtom('split', ({ value, separator }, ctx) => {
    if (typeof value !== 'string') throw vmError('TYPE_ERROR', 'split.value must be a string', { op: 'split' })
    const parts = isRegex(separator) ? regexSupport().split(runOf(ctx), separator, value) : value.split(guestString(runOf(ctx), separator))
    runOf(ctx).chargeSlots(parts.length)
    return parts
  }, pure),
  coreAtom('join', ({ items, separator }, ctx) => {
    const arr = asArray(items, 'join', 'items')
    const rt = runOf(ctx)
    return rt.chargeString(joinGuest(rt, arr, separator === undefined ? ',' : guestString(rt, separator)))
  }, pure),
  coreAtom('pick', ({ object, keys }, ctx) => {
    const o = asObject(object, 'pick', 'object')
    const out: Record<string, unknown> = {}
    for (const k of asArray(keys, 'pick', 'keys')) {
      const key = toKey(runOf(ctx), k)
      if (Object.hasOwn(o, key)) out[key] = o[key as string]
    }
    runOf(ctx).chargeSlots(Object.keys(out).length)
    return out
  }, pure),
  coreAtom('omit', ({ object, keys }, ctx) => {
    const o = asObject(object, 'omit', 'object')
    const drop = new Set(asArray(keys, 'omit', 'keys').map((k) => guestString(runOf(ctx), k)))
    const out: Record<string, unknown> = {}
    for (const k of ownKeys(o)) if (!drop.has(k)) out[k] = o[k]
    runOf(ctx).chargeSlots(Object.keys(out).length)
    return out
  }, pure),
  coreAtom('merge', ({ objects }, ctx) => {
    const out: Record<string, unknown> = {}
    for (const o of asArray(objects, 'merge', 'objects')) {
      if (o === null || o === undefined) continue
      const src = asObject(o, 'merge', 'objects[]')
      const keys = ownKeys(src)
      runOf(ctx).chargeSlots(keys.length)
      for (const k of keys) out[k] = src[k]
    }
    return out
  }, pure),
  coreAtom('keys', ({ object }, ctx) => {
    const keys = ownKeys(object)
    runOf(ctx).chargeSlots(keys.length)
    return keys
  }, pure),
  coreAtom('template', ({ template, vars }, ctx) => {
    if (typeof template !== 'string') throw vmError('TYPE_ERROR', 'template.template must be a string', { op: 'template' })
    return runOf(ctx).chargeString(fillTemplate(runOf(ctx), template, vars ?? {}))
  }, pure),
  coreAtom('regexMatch', ({ pattern, value, flags }, ctx) => {
    const r = regexSupport()
    return r.exec(runOf(ctx), isRegex(pattern) ? pattern : r.make(pattern, flags ?? ''), value)
  }, pure),
  coreAtom('jsonParse', ({ text }, ctx) => jsonParse(runOf(ctx), text), pure),
  coreAtom('jsonStringify', ({ value, indent }, ctx) => jsonStringify(runOf(ctx), value, indent) ?? null, pure),
]

export { isForbiddenKey }
