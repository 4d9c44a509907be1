/**
 * Validation of what a guest asks the fetch capability to send: URL, method,
 * headers and body. Everything here is pure and throws FETCH_BAD_URL /
 * FETCH_BAD_REQUEST with a precise summary.
 */

import { fail } from './errors.ts'

/** Methods a guest may use. CONNECT and TRACE are deliberately absent. */
export const ALLOWED_METHODS = Object.freeze(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/** Headers the transport owns; letting a guest set them enables smuggling or vhost tricks. */
const FORBIDDEN_HEADERS = new Set([
  'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect',
  'proxy-connection',
])

/** Headers dropped when a redirect leaves the original origin. */
export const CREDENTIAL_HEADERS = Object.freeze(['authorization', 'cookie', 'proxy-authorization'])

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const BAD_VALUE = /[\r\n\0]/
const MAX_URL_LENGTH = 8192
const MAX_HEADERS = 100

/** Parse and check a request URL (absolute, or relative to `base` for redirects). */
export function parseRequestUrl(input: unknown, base?: URL): URL {
  if (typeof input !== 'string' || input.length === 0) throw fail('FETCH_BAD_URL', 'the URL must be a non-empty string')
  if (input.length > MAX_URL_LENGTH) throw fail('FETCH_BAD_URL', `the URL is longer than ${MAX_URL_LENGTH} characters`)
  let url: URL
  try {
    url = base ? new URL(input, base) : new URL(input)
  } catch {
    throw fail('FETCH_BAD_URL', `'${input.slice(0, 200)}' is not a valid absolute URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw fail('FETCH_BAD_URL', `protocol '${url.protocol}' is not allowed; only http: and https:`)
  }
  if (url.username !== '' || url.password !== '') {
    throw fail('FETCH_BAD_URL', 'credentials in the URL (user:password@) are not allowed; use an Authorization header')
  }
  url.hash = ''
  return url
}

/** Uppercase and check the method (default GET). */
export function normalizeMethod(method: unknown): string {
  if (method === undefined || method === null) return 'GET'
  if (typeof method !== 'string') throw fail('FETCH_BAD_REQUEST', 'method must be a string')
  const m = method.toUpperCase()
  if (!ALLOWED_METHODS.includes(m)) throw fail('FETCH_BAD_REQUEST', `method '${method.slice(0, 40)}' is not one of ${ALLOWED_METHODS.join(', ')}`)
  return m
}

/** Copy headers into a lowercase-keyed record of strings, refusing transport-owned names. */
export function normalizeHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (headers === undefined || headers === null) return out
  if (typeof headers !== 'object' || Array.isArray(headers)) throw fail('FETCH_BAD_REQUEST', 'headers must be an object of strings')
  const entries = Object.entries(headers as Record<string, unknown>)
  if (entries.length > MAX_HEADERS) throw fail('FETCH_BAD_REQUEST', `more than ${MAX_HEADERS} headers`)
  for (const [name, value] of entries) {
    const key = name.toLowerCase()
    if (!TOKEN.test(name)) throw fail('FETCH_BAD_REQUEST', `'${name.slice(0, 40)}' is not a valid header name`)
    if (FORBIDDEN_HEADERS.has(key)) throw fail('FETCH_BAD_REQUEST', `header '${key}' is set by the transport and may not be given`)
    const text = typeof value === 'number' || typeof value === 'boolean' ? String(value) : value
    if (typeof text !== 'string') throw fail('FETCH_BAD_REQUEST', `header '${key}' must be a string`)
    if (BAD_VALUE.test(text)) throw fail('FETCH_BAD_REQUEST', `header '${key}' contains a line break or NUL`)
    out[key] = text
  }
  return out
}

/**
 * Encode a request body: strings as UTF-8, other JSON data as JSON (setting
 * content-type when absent), byte arrays as is. Mutates `headers` for the
 * content type only.
 */
export function encodeBody(body: unknown, headers: Record<string, string>, method: string, maxBytes: number): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined
  if (method === 'GET' || method === 'HEAD') throw fail('FETCH_BAD_REQUEST', `a ${method} request cannot have a body`)
  let bytes: Uint8Array
  if (typeof body === 'string') {
    bytes = new TextEncoder().encode(body)
  } else if (body instanceof Uint8Array) {
    bytes = body
  } else {
    let text: string | undefined
    try {
      text = JSON.stringify(body)
    } catch (e) {
      throw fail('FETCH_BAD_REQUEST', 'the body is not JSON-serialisable', e)
    }
    if (text === undefined) throw fail('FETCH_BAD_REQUEST', 'the body is not JSON-serialisable')
    bytes = new TextEncoder().encode(text)
    headers['content-type'] ??= 'application/json'
  }
  if (bytes.byteLength > maxBytes) throw fail('FETCH_BAD_REQUEST', `the request body is ${bytes.byteLength} bytes, over maxRequestBytes (${maxBytes})`)
  return bytes
}
