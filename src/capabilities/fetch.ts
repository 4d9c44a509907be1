/**
 * `createFetchCapability`: the host's `capabilities.fetch` for untrusted code.
 *
 * Every request, and every redirect hop, goes through the same gate:
 *   URL check (http/https, no credentials) → host allowlist → address check
 *   (IP literal, or every address the name resolves to) → transport with the
 *   socket pinned to the vetted addresses.
 * The body is read under `maxBytes`, the whole exchange under `timeoutMs`
 * combined with the caller's AbortSignal, and the answer is plain data
 * `{ status, ok, headers, body, url }` (JSON parsed when declared as JSON).
 */

import type * as Dns from 'node:dns/promises'
import { nodeBuiltin } from './builtin.ts'
import { classifyAddress } from './address.ts'
import { BodyTooLargeError, decodeText, isJsonContentType, readLimited } from './body.ts'
import { createDeadline, raceSignal, type Deadline } from './deadline.ts'
import { CapabilityError, fail } from './errors.ts'
import { CREDENTIAL_HEADERS, encodeBody, normalizeHeaders, normalizeMethod, parseRequestUrl } from './fetch-request.ts'
import { compileHostPatterns, normalizeHost, type HostMatcher } from './host-policy.ts'
import { bool, checkOptions, fn, int, strings } from './options.ts'
import { fetchTransport, nodeTransport, type FetchLike, type ResolvedAddress, type Transport, type TransportResponse } from './transport.ts'

/** Resolves a host name to all its addresses (like `dns.promises.lookup(host, { all: true })`). */
export type LookupFn = (hostname: string) => Promise<ReadonlyArray<{ address: string; family?: number }>>

/** Options of `createFetchCapability`. */
export interface FetchCapabilityOptions {
  /** Hosts the guest may reach: `'api.example.com'`, `'*.example.com'` (subdomains), `'*'` (any public host). */
  allowedHosts: readonly string[]
  /** Hosts (same patterns) that may resolve to private/loopback addresses; they are also allowed. Default `[]`. */
  allowPrivateHosts?: readonly string[]
  /** Refuse non-public addresses. Default `true`. */
  blockPrivate?: boolean
  /** Maximum response body size in bytes (decoded). Default 1,000,000. */
  maxBytes?: number
  /** Maximum request body size in bytes. Default 1,000,000. */
  maxRequestBytes?: number
  /** Deadline for the whole exchange, redirects and body included. Default 10,000 ms. */
  timeoutMs?: number
  /** Redirects followed before FETCH_REDIRECTS. Default 5. */
  maxRedirects?: number
  /** Use this WHATWG fetch instead of node:http (addresses then not pinned; see docs). */
  fetchImpl?: FetchLike
  /** Host name resolver. Default node:dns/promises `lookup` with `all: true`. */
  lookup?: LookupFn
  /** Default request headers (the guest's headers win). Default `{ 'user-agent': 'ajs-lang' }`. */
  userAgent?: string
}

/** What a guest passes as the second argument. */
export interface FetchInit {
  method?: string
  headers?: Record<string, string>
  body?: unknown
  signal?: AbortSignal
}

/** The plain-data answer. */
export interface FetchResult {
  status: number
  ok: boolean
  headers: Record<string, string>
  /** Parsed JSON for JSON content types, text otherwise, null for HEAD/204/205/304. */
  body: unknown
  /** The final URL after redirects. */
  url: string
}

/** The capability function placed at `capabilities.fetch`. */
export type FetchCapability = (url: string, init?: FetchInit) => Promise<FetchResult>

type Resolved = Required<Omit<FetchCapabilityOptions, 'fetchImpl' | 'lookup'>> & Pick<FetchCapabilityOptions, 'fetchImpl' | 'lookup'>

const DEFAULTS = {
  allowPrivateHosts: [],
  blockPrivate: true,
  maxBytes: 1_000_000,
  maxRequestBytes: 1_000_000,
  timeoutMs: 10_000,
  maxRedirects: 5,
  userAgent: 'ajs-lang',
}

const SCHEMA = {
  allowedHosts: strings,
  allowPrivateHosts: strings,
  blockPrivate: bool,
  maxBytes: int(0, 2 ** 31),
  maxRequestBytes: int(0, 2 ** 31),
  timeoutMs: int(1, 24 * 3600 * 1000),
  maxRedirects: int(0, 50),
  fetchImpl: fn,
  lookup: fn,
  userAgent: (v: unknown) => (typeof v === 'string' ? null : 'a string'),
}

const INIT_KEYS = new Set(['method', 'headers', 'body', 'signal'])
const REDIRECTS = new Set([301, 302, 303, 307, 308])
const NO_BODY_STATUS = new Set([204, 205, 304])

const defaultLookup: LookupFn = (host) => nodeBuiltin<typeof Dns>('node:dns/promises').lookup(host, { all: true, verbatim: true })

/** The policy part: decides whether a URL may be contacted and with which addresses. */
interface Gate {
  allowed: HostMatcher
  privateOk: HostMatcher
  blockPrivate: boolean
  lookup: LookupFn
}

async function vet(gate: Gate, url: URL, deadline: Deadline): Promise<ResolvedAddress[]> {
  const host = normalizeHost(url.hostname)
  const privateAllowed = !gate.blockPrivate || gate.privateOk.matches(host)
  if (!gate.allowed.matches(host) && !gate.privateOk.matches(host)) {
    throw fail('FETCH_HOST_DENIED', `host '${host}' is not in allowedHosts (${gate.allowed.patterns.join(', ') || 'empty'})`)
  }
  const literal = classifyAddress(host)
  if (literal) {
    if (literal.blocked && !privateAllowed) {
      throw fail('FETCH_PRIVATE_ADDRESS', `'${host}' is a ${literal.kind} address`)
    }
    return []
  }
  if (deadline.signal.aborted) throw deadlineError(deadline)
  let found: ReadonlyArray<{ address: string; family?: number }>
  try {
    found = await raceSignal(Promise.resolve().then(() => gate.lookup(host)), deadline.signal, () => deadlineError(deadline))
  } catch (e) {
    if (e instanceof CapabilityError) throw e
    throw fail('FETCH_DNS', `cannot resolve '${host}': ${(e as Error)?.message ?? String(e)}`, e)
  }
  if (!Array.isArray(found) || found.length === 0) throw fail('FETCH_DNS', `'${host}' resolved to no address`)
  const out: ResolvedAddress[] = []
  for (const entry of found) {
    const info = typeof entry?.address === 'string' ? classifyAddress(entry.address) : null
    if (!info) throw fail('FETCH_DNS', `the resolver returned an invalid address for '${host}'`)
    if (info.blocked && !privateAllowed) {
      throw fail('FETCH_PRIVATE_ADDRESS', `'${host}' resolves to ${info.address}, a ${info.kind} address`)
    }
    out.push({ address: info.address, family: info.family })
  }
  return out
}

function deadlineError(deadline: Deadline): CapabilityError {
  return deadline.reason() === 'aborted'
    ? fail('FETCH_ABORTED', 'the request was aborted')
    : fail('FETCH_TIMEOUT', 'the request timed out')
}

/** Map anything thrown during an exchange to a CapabilityError. */
function toCapabilityError(e: unknown, deadline: Deadline): CapabilityError {
  if (e instanceof CapabilityError) return e
  if (deadline.reason() !== null) return deadlineError(deadline)
  const message = (e as Error)?.message ?? String(e)
  return fail('FETCH_NETWORK', message, e)
}

function parseBody(bytes: Uint8Array, headers: Record<string, string>): unknown {
  const text = decodeText(bytes)
  if (!isJsonContentType(headers['content-type'])) return text
  if (text.trim() === '') return null
  try {
    return JSON.parse(text)
  } catch (e) {
    throw fail('FETCH_BAD_JSON', `invalid JSON body: ${(e as Error).message}`, e)
  }
}

async function readResult(res: TransportResponse, url: URL, method: string, maxBytes: number): Promise<FetchResult> {
  const declared = Number(res.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.cancel()
    throw fail('FETCH_TOO_LARGE', `content-length ${declared} is over maxBytes (${maxBytes})`)
  }
  let body: unknown = null
  if (method === 'HEAD' || NO_BODY_STATUS.has(res.status)) {
    res.cancel()
  } else {
    let bytes: Uint8Array
    try {
      bytes = await readLimited(res.body, maxBytes)
    } catch (e) {
      res.cancel()
      if (e instanceof BodyTooLargeError) throw fail('FETCH_TOO_LARGE', `the body is over maxBytes (${maxBytes})`)
      throw e
    }
    body = parseBody(bytes, res.headers)
  }
  return { status: res.status, ok: res.status >= 200 && res.status < 300, headers: res.headers, body, url: url.href }
}

/** Create a fetch capability enforcing an allowlist, private-range blocking and size/time limits. */
export function createFetchCapability(options: FetchCapabilityOptions): FetchCapability {
  const opts = checkOptions<Resolved>('FETCH_OPTIONS', 'createFetchCapability', options, SCHEMA, DEFAULTS, ['allowedHosts'])
  const gate: Gate = {
    allowed: compileHostPatterns(opts.allowedHosts, 'allowedHosts'),
    privateOk: compileHostPatterns(opts.allowPrivateHosts, 'allowPrivateHosts'),
    blockPrivate: opts.blockPrivate,
    lookup: opts.lookup ?? defaultLookup,
  }
  const transport: Transport = opts.fetchImpl ? fetchTransport(opts.fetchImpl) : nodeTransport

  return async function fetchCapability(input: string, init: FetchInit | null = {}): Promise<FetchResult> {
    init ??= {}
    if (typeof init !== 'object' || init === null) throw fail('FETCH_BAD_REQUEST', 'the second argument must be an object')
    for (const key of Object.keys(init)) {
      if (!INIT_KEYS.has(key)) throw fail('FETCH_BAD_REQUEST', `unknown request option '${key}' (known: ${[...INIT_KEYS].join(', ')})`)
    }
    let url = parseRequestUrl(input)
    let method = normalizeMethod(init.method)
    const headers: Record<string, string> = { 'user-agent': opts.userAgent, ...normalizeHeaders(init.headers) }
    if (headers['user-agent'] === '') delete headers['user-agent']
    let body = encodeBody(init.body, headers, method, opts.maxRequestBytes)
    const deadline = createDeadline(init.signal, opts.timeoutMs)
    try {
      for (let hop = 0; ; hop++) {
        const addresses = await vet(gate, url, deadline)
        if (deadline.signal.aborted) throw deadlineError(deadline)
        const res = await transport({ url, method, headers, body, signal: deadline.signal, addresses })
        const location = res.headers['location']
        if (!REDIRECTS.has(res.status) || location === undefined) {
          return await readResult(res, url, method, opts.maxBytes)
        }
        res.cancel()
        if (hop >= opts.maxRedirects) throw fail('FETCH_REDIRECTS', `more than ${opts.maxRedirects} redirects (last to '${location.slice(0, 200)}')`)
        const next = parseRequestUrl(location, url)
        // Browsers turn 303 (and 301/302 after POST) into a body-less GET.
        if (res.status === 303 ? method !== 'HEAD' : (res.status === 301 || res.status === 302) && method === 'POST') {
          method = 'GET'
          body = undefined
          delete headers['content-type']
        }
        if (next.origin !== url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h]
        url = next
      }
    } catch (e) {
      throw toCapabilityError(e, deadline)
    } finally {
      deadline.dispose()
    }
  }
}
