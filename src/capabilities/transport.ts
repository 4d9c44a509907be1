/**
 * The two ways the fetch capability talks HTTP, behind one small interface.
 *
 * - `nodeTransport` (default): node:http / node:https with a `lookup` hook
 *   that hands the socket exactly the addresses the policy already checked.
 *   The connection can therefore not go to an address that was not vetted,
 *   which defeats DNS rebinding (a second resolution returning 127.0.0.1).
 * - `fetchTransport(fetchImpl)`: any WHATWG `fetch` (tests, Bun, a proxy
 *   wrapper). Addresses are checked before the call, but `fetch` resolves the
 *   name again itself, so this path is not rebinding-proof; documented.
 *
 * Both use manual redirects: the capability follows them itself, re-checking
 * every hop.
 */

import type * as Http from 'node:http'
import type * as Https from 'node:https'
import type * as Zlib from 'node:zlib'
import { nodeBuiltin } from './builtin.ts'

// Loaded on first use, not at import: importing `ajs-lang` should not pay for
// Node's HTTP stack unless a fetch capability actually fetches.
const http = () => nodeBuiltin<typeof Http>('node:http')
const https = () => nodeBuiltin<typeof Https>('node:https')
const zlib = () => nodeBuiltin<typeof Zlib>('node:zlib')
import type { ByteSource } from './body.ts'

/** An address that passed the policy. */
export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** One HTTP exchange, already validated. */
export interface TransportRequest {
  url: URL
  method: string
  headers: Record<string, string>
  body: Uint8Array | undefined
  signal: AbortSignal
  /** The vetted addresses for `url.hostname` (empty for IP-literal hosts). */
  addresses: readonly ResolvedAddress[]
}

/** The response head plus a body stream the caller reads (or cancels). */
export interface TransportResponse {
  status: number
  headers: Record<string, string>
  body: ByteSource | null
  /** Drop the connection without reading the rest of the body. */
  cancel(): void
}

/** Performs one request without following redirects. */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>

/** A WHATWG-style fetch function (the subset the kit uses). */
export type FetchLike = (url: string, init: {
  method: string
  headers: Record<string, string>
  body?: Uint8Array
  redirect: 'manual'
  signal: AbortSignal
}) => Promise<{
  status: number
  headers: { forEach(cb: (value: string, key: string) => void): void }
  body: ByteSource | null
}>

/** Header names a response may not set on our plain object (prototype keys). */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

function putHeader(out: Record<string, string>, key: string, value: string): void {
  const k = key.toLowerCase()
  if (UNSAFE_KEYS.has(k)) return
  out[k] = k in out ? `${out[k]}, ${value}` : value
}

const ignore = (): void => undefined

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | ResolvedAddress[], family?: number) => void

/** A node `lookup` that answers only with the pre-checked addresses. */
function pinnedLookup(addresses: readonly ResolvedAddress[]) {
  return (_host: string, options: { all?: boolean } | number | undefined, cb: LookupCallback): void => {
    const first = addresses[0]
    if (!first) {
      cb(Object.assign(new Error('no vetted address'), { code: 'ENOTFOUND' }), '', 0)
    } else if (typeof options === 'object' && options?.all) {
      cb(null, addresses.map((a) => ({ ...a })))
    } else {
      cb(null, first.address, first.family)
    }
  }
}

const DECODERS: Record<string, () => Zlib.Gunzip | Zlib.Inflate | Zlib.BrotliDecompress> = {
  gzip: () => zlib().createGunzip(),
  'x-gzip': () => zlib().createGunzip(),
  deflate: () => zlib().createInflate(),
  br: () => zlib().createBrotliDecompress(),
}

/** node:http / node:https transport with the lookup pinned to vetted addresses. */
export const nodeTransport: Transport = (req) =>
  new Promise<TransportResponse>((resolve, reject) => {
    const mod = req.url.protocol === 'https:' ? https() : http()
    const headers: Record<string, string> = { ...req.headers }
    if (req.body) headers['content-length'] = String(req.body.byteLength)
    const request = mod.request(req.url, {
      method: req.method,
      headers,
      signal: req.signal,
      // No shared pool: a pooled socket was connected under another capability's
      // policy (its allowPrivateHosts / lookup), so reusing it could bypass ours.
      agent: false,
      lookup: req.addresses.length > 0 ? (pinnedLookup(req.addresses) as never) : undefined,
    })
    request.on('error', reject)
    request.on('response', (res) => {
      // Errors reach the caller through body iteration; after a cancel nobody
      // iterates, and an 'error' event without a listener would crash the host.
      res.on('error', ignore)
      const out: Record<string, string> = {}
      for (const [k, v] of Object.entries(res.headers)) {
        if (v === undefined) continue
        putHeader(out, k, Array.isArray(v) ? v.join(', ') : v)
      }
      const encoding = out['content-encoding']?.trim().toLowerCase()
      const decoder = encoding ? DECODERS[encoding] : undefined
      let body: ByteSource = res
      if (decoder) {
        const stream = decoder()
        stream.on('error', ignore)
        res.on('error', (e) => stream.destroy(e))
        body = res.pipe(stream) as unknown as ByteSource
        delete out['content-encoding']
        delete out['content-length']
      }
      resolve({
        status: res.statusCode ?? 0,
        headers: out,
        body,
        cancel: () => { res.destroy(); request.destroy() },
      })
    })
    request.end(req.body ? Buffer.from(req.body) : undefined)
  })

/** Transport over a WHATWG fetch function; addresses are not pinned (see module docs). */
export function fetchTransport(fetchImpl: FetchLike): Transport {
  return async (req) => {
    const res = await fetchImpl(req.url.href, {
      method: req.method,
      headers: req.headers,
      ...(req.body ? { body: req.body } : {}),
      redirect: 'manual',
      signal: req.signal,
    })
    const out: Record<string, string> = {}
    res.headers.forEach((value, key) => putHeader(out, key, value))
    const body = res.body
    return {
      status: res.status,
      headers: out,
      body,
      cancel: () => {
        if (body && 'getReader' in body) {
          // A locked stream is being read; the reader's own cleanup cancels it.
          const stream = body as unknown as { locked?: boolean; cancel?: () => Promise<void> }
          if (!stream.locked) stream.cancel?.().catch(() => undefined)
        }
      },
    }
  }
}
