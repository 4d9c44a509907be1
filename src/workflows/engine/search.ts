/**
 * What a run is found by: a name, tags and search attributes (a flat map of
 * string, number or boolean values). Given when the run starts (journaled in
 * its start entry) and changed by the workflow itself with
 * `upsertAttributes({ k: v })` (journaled as `{ "t": "attributes", "set" }`;
 * a null value removes the key), like Temporal's upsertSearchAttributes.
 * Every host lists runs by them: `ajsc workflow ls --tag x --attr k=v`,
 * `GET /v1/workflows?tag=x&attr.k=v`. The bounds keep a row small and
 * its index cheap; going over one is SEARCH_ATTRIBUTES_LIMIT, a malformed
 * value SEARCH_ATTRIBUTES_INVALID.
 */
import { workflowError } from './errors.ts'
import type { JournalEntry } from './journal.ts'

export type SearchValue = string | number | boolean
export type SearchAttributes = Record<string, SearchValue>

export interface SearchInfo {
  /** A display name (not unique; listing filters by it exactly). */
  name?: string
  tags?: string[]
  attributes?: SearchAttributes
}

export const SEARCH_LIMITS = Object.freeze({
  nameLength: 200,
  tags: 16,
  tagLength: 64,
  attributes: 32,
  keyLength: 64,
  /** The attributes as JSON. */
  attributeBytes: 4096,
})

/** Tags and keys: what a CLI flag and a query string carry without quoting. */
const TAG = /^[A-Za-z0-9][A-Za-z0-9_.:/-]*$/
const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/

type Fail = (code: 'SEARCH_ATTRIBUTES_INVALID' | 'SEARCH_ATTRIBUTES_LIMIT', message: string) => Error
const asWorkflowError: Fail = (code, message) => workflowError(code, message)
const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

function checkTags(v: unknown, where: string, fail: Fail): string[] {
  if (!Array.isArray(v)) throw fail('SEARCH_ATTRIBUTES_INVALID', `${where} must be an array of strings`)
  if (v.length > SEARCH_LIMITS.tags) throw fail('SEARCH_ATTRIBUTES_LIMIT', `${where} has ${v.length} tags; a run has at most ${SEARCH_LIMITS.tags}`)
  for (const t of v) {
    if (typeof t !== 'string' || !TAG.test(t)) throw fail('SEARCH_ATTRIBUTES_INVALID', `${where}: ${JSON.stringify(t)?.slice(0, 80)} is not a tag (letters, digits and _ . : / -, starting with a letter or digit)`)
    if (t.length > SEARCH_LIMITS.tagLength) throw fail('SEARCH_ATTRIBUTES_LIMIT', `${where}: the tag "${t.slice(0, 40)}…" is longer than ${SEARCH_LIMITS.tagLength} characters`)
  }
  return [...new Set(v as string[])]
}

/** One attribute (null: remove it, only where `removable`). */
function checkAttribute(k: string, v: unknown, where: string, fail: Fail, removable: boolean): void {
  if (!KEY.test(k)) throw fail('SEARCH_ATTRIBUTES_INVALID', `${where}: "${k.slice(0, 80)}" is not an attribute name (letters, digits and _ . -, starting with a letter or _)`)
  if (k.length > SEARCH_LIMITS.keyLength) throw fail('SEARCH_ATTRIBUTES_LIMIT', `${where}: the attribute name "${k.slice(0, 40)}…" is longer than ${SEARCH_LIMITS.keyLength} characters`)
  const ok = typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || (removable && v === null)
  if (!ok) throw fail('SEARCH_ATTRIBUTES_INVALID', `${where}.${k} must be a string, a finite number or a boolean${removable ? ' (null removes it)' : ''}`)
}

/** Attributes within the count and size bounds (after a merge: what the run holds). */
function checkBounds(attrs: SearchAttributes, where: string, fail: Fail): void {
  const n = Object.keys(attrs).length
  if (n > SEARCH_LIMITS.attributes) throw fail('SEARCH_ATTRIBUTES_LIMIT', `${where}: a run holds at most ${SEARCH_LIMITS.attributes} attributes (this would be ${n})`)
  const bytes = Buffer.byteLength(JSON.stringify(attrs))
  if (bytes > SEARCH_LIMITS.attributeBytes) throw fail('SEARCH_ATTRIBUTES_LIMIT', `${where}: a run's attributes are at most ${SEARCH_LIMITS.attributeBytes} bytes as JSON (this would be ${bytes})`)
}

/** Checked name, tags and attributes (undefined fields left out); `where` prefixes messages (`options`, `--tag`, the body). */
export function checkSearch(v: { name?: unknown; tags?: unknown; attributes?: unknown }, where = 'options', fail: Fail = asWorkflowError): SearchInfo {
  const out: SearchInfo = {}
  if (v.name !== undefined) {
    if (typeof v.name !== 'string' || v.name.length === 0) throw fail('SEARCH_ATTRIBUTES_INVALID', `${where}.name must be a non-empty string`)
    if (v.name.length > SEARCH_LIMITS.nameLength) throw fail('SEARCH_ATTRIBUTES_LIMIT', `${where}.name is longer than ${SEARCH_LIMITS.nameLength} characters`)
    out.name = v.name
  }
  if (v.tags !== undefined) {
    const tags = checkTags(v.tags, `${where}.tags`, fail)
    if (tags.length > 0) out.tags = tags
  }
  if (v.attributes !== undefined) {
    if (!isPlainObject(v.attributes)) throw fail('SEARCH_ATTRIBUTES_INVALID', `${where}.attributes must be an object of string, number or boolean values`)
    for (const [k, x] of Object.entries(v.attributes)) checkAttribute(k, x, `${where}.attributes`, fail, false)
    checkBounds(v.attributes as SearchAttributes, `${where}.attributes`, fail)
    if (Object.keys(v.attributes).length > 0) out.attributes = { ...(v.attributes as SearchAttributes) }
  }
  return out
}

/** `current` with `set` applied (null removes a key), checked against the bounds. */
export function mergeAttributes(current: SearchAttributes, set: unknown, where: string, fail: Fail = asWorkflowError): { set: Record<string, SearchValue | null>; attributes: SearchAttributes } {
  if (!isPlainObject(set)) throw fail('SEARCH_ATTRIBUTES_INVALID', `${where} takes an object of attributes (string, number or boolean values; null removes one)`)
  const next: SearchAttributes = { ...current }
  for (const [k, v] of Object.entries(set)) {
    checkAttribute(k, v, where, fail, true)
    if (v === null) delete next[k]
    else next[k] = v as SearchValue
  }
  checkBounds(next, where, fail)
  return { set: { ...(set as Record<string, SearchValue | null>) }, attributes: next }
}

/** A run's search info as its journal has it: the start entry's, then each `attributes` entry applied in order. */
export function searchOfJournal(journal: readonly JournalEntry[]): SearchInfo {
  const start = journal[0]?.t === 'start' ? journal[0] : undefined
  let attributes: SearchAttributes = { ...(start?.attributes ?? {}) }
  for (const e of journal) if (e.t === 'attributes') attributes = applySet(attributes, e.set)
  return {
    ...(start?.name !== undefined ? { name: start.name } : {}),
    ...(start?.tags !== undefined && start.tags.length > 0 ? { tags: [...start.tags] } : {}),
    ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
  }
}

/** `set` applied to `attrs` without checks (journaled sets were checked when they were made). */
export function applySet(attrs: SearchAttributes, set: Record<string, SearchValue | null>): SearchAttributes {
  const next = { ...attrs }
  for (const [k, v] of Object.entries(set)) {
    if (v === null) delete next[k]
    else next[k] = v
  }
  return next
}

/** A listing filter: every tag, every attribute (the text a flag or a query string gives) and the exact name. */
export interface SearchFilter {
  name?: string
  tags?: string[]
  attributes?: Record<string, string>
}

/**
 * The values an attribute filter's text matches: the string itself, and the
 * number or boolean it spells (`--attr priority=2` finds 2 and "2").
 */
export function attributeCandidates(text: string): SearchValue[] {
  const out: SearchValue[] = [text]
  if (text === 'true' || text === 'false') out.push(text === 'true')
  else if (text.trim() !== '' && Number.isFinite(Number(text))) out.push(Number(text))
  return out
}

/** Does a run with this info pass the filter? */
export function matchesSearch(info: SearchInfo, f: SearchFilter): boolean {
  if (f.name !== undefined && info.name !== f.name) return false
  if (f.tags?.some((t) => !info.tags?.includes(t))) return false
  for (const [k, text] of Object.entries(f.attributes ?? {})) {
    const v = info.attributes?.[k]
    if (v === undefined || !attributeCandidates(text).includes(v)) return false
  }
  return true
}

/** `k=v` (a CLI `--attr`): the attribute's name and the value's text; a bad one is SEARCH_ATTRIBUTES_INVALID. */
export function parseAttributeFlag(text: string, flag: string): [string, string] {
  const at = text.indexOf('=')
  const k = at > 0 ? text.slice(0, at) : ''
  if (!KEY.test(k)) throw workflowError('SEARCH_ATTRIBUTES_INVALID', `${flag} ${JSON.stringify(text.slice(0, 80))}: expected name=value (the name: letters, digits and _ . -, starting with a letter or _)`)
  return [k, text.slice(at + 1)]
}

/**
 * Attributes from `k=v` texts as a run is started with them (`ajsc workflow run --attr`):
 * a value that spells a number or a boolean is one (`--attr priority=2`); quote it as JSON to keep a string (`--attr 'zip="02134"'`).
 */
export function attributesOfFlags(texts: readonly string[], flag: string): SearchAttributes {
  const out: SearchAttributes = {}
  for (const t of texts) {
    const [k, raw] = parseAttributeFlag(t, flag)
    let v: SearchValue = raw
    if (raw.startsWith('"')) {
      try { v = JSON.parse(raw) as string } catch { /* kept as written */ }
    } else {
      const c = attributeCandidates(raw)
      v = c[1] ?? raw
    }
    out[k] = v
  }
  return out
}
