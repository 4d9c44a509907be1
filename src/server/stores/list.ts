/**
 * Listing a tenant's runs and workflows, and paging a workflow's journal:
 * bounded pages and opaque cursors. A list is newest first, ordered by
 * (createdAt, id) descending; its cursor is the last item's pair, so a page
 * never repeats or skips an item however many are created meanwhile. A
 * journal page is in journal order; its cursor is the next entry's index and
 * the budget as of there (so each page shows the budget over time without
 * reading the entries before it). A cursor is base64url JSON: opaque to
 * clients, checked when it comes back (400 on a bad one), and it never
 * names a tenant: every query is scoped by the authenticated one.
 */
import { HttpError } from '../errors.ts'

/** Items a page holds by default, and at most. */
export const DEFAULT_PAGE = 20
export const MAX_PAGE = 100
/** Journal entries a page holds by default, and at most. */
export const DEFAULT_JOURNAL_PAGE = 100
export const MAX_JOURNAL_PAGE = 500

export interface ListCursor {
  createdAt: number
  id: string
}

export interface ListQuery<S extends string = string> {
  state?: S
  limit: number
  /** Only items strictly older than this (createdAt, id). */
  before?: ListCursor
}

export interface Page<T> {
  items: T[]
  /** Pass as `cursor` for the next (older) page; absent on the last page. */
  nextCursor?: string
}

const encode = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url')

function decode(cursor: string): unknown {
  if (cursor.length > 600 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw badCursor()
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw badCursor()
  }
}

const badCursor = () => new HttpError('BAD_REQUEST', 'Invalid cursor: pass the nextCursor of the previous page as it was given')

export const listCursor = (c: ListCursor): string => encode(['l', c.createdAt, c.id])

export function parseListCursor(cursor: string | undefined): ListCursor | undefined {
  if (cursor === undefined || cursor === '') return undefined
  const v = decode(cursor)
  if (!Array.isArray(v) || v.length !== 3 || v[0] !== 'l' || !Number.isSafeInteger(v[1]) || typeof v[2] !== 'string' || v[2].length > 200) throw badCursor()
  return { createdAt: v[1] as number, id: v[2] as string }
}

/** A journal cursor: the index of the next entry (0-based) and the budget as of the entries before it. */
export interface JournalCursor {
  from: number
  spent: number
  total: number | null
}

export const journalCursor = (c: JournalCursor): string => encode(['j', c.from, c.spent, c.total])

export function parseJournalCursor(cursor: string | undefined): JournalCursor {
  if (cursor === undefined || cursor === '') return { from: 0, spent: 0, total: null }
  const v = decode(cursor)
  if (!Array.isArray(v) || v.length !== 4 || v[0] !== 'j' || !Number.isSafeInteger(v[1]) || (v[1] as number) < 0 || !Number.isSafeInteger(v[2]) || (v[2] as number) < 0 || (v[3] !== null && !Number.isSafeInteger(v[3]))) throw badCursor()
  return { from: v[1] as number, spent: v[2] as number, total: v[3] as number | null }
}

/** `?limit=` as sent (a string: the server coerces nothing), bounded: 400 outside 1..max. */
export function parseLimit(limit: string | undefined, fallback: number, max: number): number {
  if (limit === undefined || limit === '') return fallback
  const n = /^[0-9]{1,6}$/.test(limit) ? Number(limit) : NaN
  if (!(n >= 1 && n <= max)) throw new HttpError('BAD_REQUEST', `Invalid limit "${limit.slice(0, 20)}": a page holds 1 to ${max} items`)
  return n
}

/** Newer first: (createdAt, id) descending. */
export const newestFirst = (a: ListCursor, b: ListCursor): number => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** Is `x` strictly after the cursor in newest-first order (older, or as old with a smaller id)? */
export const olderThan = (x: ListCursor, c: ListCursor | undefined): boolean =>
  c === undefined || x.createdAt < c.createdAt || (x.createdAt === c.createdAt && x.id < c.id)

/**
 * A page from `limit + 1` candidates already in newest-first order (the extra one
 * only tells that there is a next page).
 */
export function pageOf<T extends ListCursor, U>(candidates: readonly T[], limit: number, view: (x: T) => U): Page<U> {
  const items = candidates.slice(0, limit)
  const last = items[items.length - 1]
  return { items: items.map(view), ...(candidates.length > limit && last ? { nextCursor: listCursor(last) } : {}) }
}

/** In memory: the `limit + 1` newest of `all` that pass `keep` and come after the cursor (one pass, a bounded buffer). */
export function newestOf<T extends ListCursor>(all: Iterable<T>, keep: (x: T) => boolean, q: ListQuery): T[] {
  const want = q.limit + 1
  const top: T[] = []
  for (const x of all) {
    if (!keep(x) || !olderThan(x, q.before)) continue
    if (top.length === want && newestFirst(x, top[want - 1]!) >= 0) continue
    // Insert in order (the buffer is at most MAX_PAGE + 1 long).
    let i = top.length
    while (i > 0 && newestFirst(x, top[i - 1]!) < 0) i--
    top.splice(i, 0, x)
    if (top.length > want) top.pop()
  }
  return top
}
