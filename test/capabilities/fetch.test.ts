import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createFetchCapability, type FetchCapabilityOptions, type LookupFn } from '../../src/capabilities/fetch.ts'
import { CapabilityError } from '../../src/capabilities/errors.ts'
import type { FetchLike } from '../../src/capabilities/transport.ts'
import { startTestServer, type TestServer } from './server.ts'

let server: TestServer
beforeAll(async () => { server = await startTestServer() })
afterAll(async () => { await server.close() })

/** Resolve names from a table, never touching real DNS. */
function fakeLookup(table: Record<string, string[]>): LookupFn & { calls: string[] } {
  const calls: string[] = []
  const fn = async (host: string) => {
    calls.push(host)
    const found = table[host]
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
  return Object.assign(fn, { calls })
}

/** Await a rejected capability call and return its error code. */
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (e) {
    expect(e).toBeInstanceOf(CapabilityError)
    return (e as CapabilityError).code
  }
  throw new Error('expected a rejection')
}

const transports: Array<[string, FetchLike | undefined]> = [
  ['node:http transport', undefined],
  ['fetchImpl transport', globalThis.fetch as unknown as FetchLike],
]

describe.each(transports)('%s', (_name, fetchImpl) => {
  /** A capability that may talk to the local server through the name `api.test`. */
  const local = (extra: Partial<FetchCapabilityOptions> = {}) =>
    createFetchCapability({
      allowedHosts: ['api.test'],
      allowPrivateHosts: ['127.0.0.1'],
      lookup: fakeLookup({ 'api.test': ['127.0.0.1'] }),
      ...(fetchImpl ? { fetchImpl } : {}),
      ...extra,
    })

  test('JSON body is parsed', async () => {
    const res = await local()(`${server.origin}/json`)
    expect(res).toMatchObject({ status: 200, ok: true, body: { hello: 'world', n: [1, 2, 3] } })
    expect(res.headers['content-type']).toContain('application/json')
    expect(res.url).toBe(`${server.origin}/json`)
  })

  test('+json content types are parsed and non-2xx is ok: false', async () => {
    const res = await local()(`${server.origin}/problem-json`)
    expect(res).toMatchObject({ status: 422, ok: false, body: { error: 'bad' } })
  })

  test('text body is returned as a string', async () => {
    const res = await local()(`${server.origin}/text`)
    expect(res.body).toBe('plain text ✓')
  })

  test('404 is data, not an error', async () => {
    const res = await local()(`${server.origin}/not-found`)
    expect(res).toMatchObject({ status: 404, ok: false, body: { error: 'missing' } })
  })

  test('204 and HEAD give a null body', async () => {
    expect((await local()(`${server.origin}/no-content`)).body).toBeNull()
    const head = await local()(`${server.origin}/json`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.body).toBeNull()
  })

  test('empty JSON body is null; invalid JSON is FETCH_BAD_JSON', async () => {
    expect((await local()(`${server.origin}/empty-json`)).body).toBeNull()
    expect(await codeOf(local()(`${server.origin}/bad-json`))).toBe('FETCH_BAD_JSON')
  })

  test('POST sends a JSON body with content-type and custom headers', async () => {
    const res = await local()(`${server.origin}/echo`, { method: 'post', body: { a: 1 }, headers: { 'X-Trace': 'abc' } })
    const echo = res.body as { method: string; headers: Record<string, string>; body: string }
    expect(echo.method).toBe('POST')
    expect(JSON.parse(echo.body)).toEqual({ a: 1 })
    expect(echo.headers['content-type']).toBe('application/json')
    expect(echo.headers['x-trace']).toBe('abc')
    expect(echo.headers['user-agent']).toBe('ajs-lang')
  })

  test('a string body is sent as is', async () => {
    const res = await local()(`${server.origin}/echo`, { method: 'PUT', body: 'raw', headers: { 'content-type': 'text/plain' } })
    expect((res.body as { body: string }).body).toBe('raw')
  })

  test('host names resolve through the injected lookup and reach the vetted server', async () => {
    const lookup = fakeLookup({ 'api.test': ['127.0.0.1'] })
    // fetch resolves names itself, so the fetchImpl case routes api.test to the local server like a proxy would.
    const viaProxy: FetchLike | undefined = fetchImpl
      ? (url, init) => fetchImpl(url.replace(/^http:\/\/api\.test:/, 'http://127.0.0.1:'), init)
      : undefined
    const cap = createFetchCapability({ allowedHosts: ['api.test'], allowPrivateHosts: ['api.test'], lookup, ...(viaProxy ? { fetchImpl: viaProxy } : {}) })
    const res = await cap(`http://api.test:${server.port}/json`)
    expect(res.body).toEqual({ hello: 'world', n: [1, 2, 3] })
    expect(lookup.calls).toEqual(['api.test'])
  })

  test('maxBytes stops a streamed body without content-length', async () => {
    const before = server.hits.length
    expect(await codeOf(local({ maxBytes: 10_000 })(`${server.origin}/big?n=200000`))).toBe('FETCH_TOO_LARGE')
    expect(server.hits.length).toBe(before + 1)
  })

  test('a body of exactly maxBytes is accepted', async () => {
    const res = await local({ maxBytes: 5000 })(`${server.origin}/big?n=5000`)
    expect((res.body as string).length).toBe(5000)
  })

  test('a declared content-length over maxBytes fails before reading', async () => {
    expect(await codeOf(local({ maxBytes: 1000 })(`${server.origin}/big-declared`))).toBe('FETCH_TOO_LARGE')
  })

  test('gzip responses are decoded and the limit counts decoded bytes', async () => {
    expect((await local()(`${server.origin}/gzip`)).body).toEqual({ zipped: true })
    expect(await codeOf(local({ maxBytes: 100_000 })(`${server.origin}/gzip-bomb`))).toBe('FETCH_TOO_LARGE')
  })

  test('timeoutMs gives FETCH_TIMEOUT', async () => {
    expect(await codeOf(local({ timeoutMs: 50 })(`${server.origin}/slow`))).toBe('FETCH_TIMEOUT')
  })

  test('a body that stalls halfway gives FETCH_TIMEOUT', async () => {
    expect(await codeOf(local({ timeoutMs: 80 })(`${server.origin}/slow-body`))).toBe('FETCH_TIMEOUT')
  })

  test('aborting while the body streams gives FETCH_ABORTED', async () => {
    const controller = new AbortController()
    const p = local()(`${server.origin}/slow-body`, { signal: controller.signal })
    setTimeout(() => controller.abort(), 30)
    expect(await codeOf(p)).toBe('FETCH_ABORTED')
  })

  test('a null init is the same as none', async () => {
    expect((await local()(`${server.origin}/json`, null as never)).status).toBe(200)
  })

  test('the caller signal aborts an in-flight request with FETCH_ABORTED', async () => {
    const controller = new AbortController()
    const p = local()(`${server.origin}/slow`, { signal: controller.signal })
    setTimeout(() => controller.abort(), 20)
    expect(await codeOf(p)).toBe('FETCH_ABORTED')
  })

  test('an already-aborted signal fails without contacting the server', async () => {
    const before = server.hits.length
    expect(await codeOf(local()(`${server.origin}/json`, { signal: AbortSignal.abort() }))).toBe('FETCH_ABORTED')
    expect(server.hits.length).toBe(before)
  })

  test('redirects are followed and the final URL is reported', async () => {
    const res = await local()(`${server.origin}/redirect?to=/json`)
    expect(res.body).toEqual({ hello: 'world', n: [1, 2, 3] })
    expect(res.url).toBe(`${server.origin}/json`)
  })

  test('303 after POST becomes a body-less GET', async () => {
    const res = await local()(`${server.origin}/redirect?status=303&to=/echo`, { method: 'POST', body: 'x' })
    expect((res.body as { method: string; body: string })).toMatchObject({ method: 'GET', body: '' })
  })

  test('307 keeps the method and body', async () => {
    const res = await local()(`${server.origin}/redirect?status=307&to=/echo`, { method: 'POST', body: 'keep' })
    expect((res.body as { method: string; body: string })).toMatchObject({ method: 'POST', body: 'keep' })
  })

  test('a redirect loop ends with FETCH_REDIRECTS', async () => {
    expect(await codeOf(local({ maxRedirects: 3 })(`${server.origin}/loop`))).toBe('FETCH_REDIRECTS')
  })

  test('a redirect to a metadata address is refused before any connection', async () => {
    const cap = local({ allowedHosts: ['*'] })
    const to = encodeURIComponent('http://169.254.169.254/latest/meta-data/')
    expect(await codeOf(cap(`${server.origin}/redirect?to=${to}`))).toBe('FETCH_PRIVATE_ADDRESS')
  })

  test('a redirect to a name resolving to a private address is refused', async () => {
    const cap = local({ allowedHosts: ['*'], lookup: fakeLookup({ 'internal.test': ['10.0.0.5'] }) })
    const to = encodeURIComponent('http://internal.test/admin')
    expect(await codeOf(cap(`${server.origin}/redirect?to=${to}`))).toBe('FETCH_PRIVATE_ADDRESS')
  })

  test('a redirect to a host outside the allowlist is refused', async () => {
    const to = encodeURIComponent('http://evil.test/')
    expect(await codeOf(local()(`${server.origin}/redirect?to=${to}`))).toBe('FETCH_HOST_DENIED')
  })

  test('a redirect to a non-http scheme is refused', async () => {
    const to = encodeURIComponent('file:///etc/passwd')
    expect(await codeOf(local()(`${server.origin}/redirect?to=${to}`))).toBe('FETCH_BAD_URL')
  })

  test('response header names that are prototype keys are dropped', async () => {
    const res = await local()(`${server.origin}/proto-headers`)
    expect(Object.hasOwn(res.headers, 'constructor')).toBe(false)
    expect(res.headers['x-ok']).toBe('yes')
  })
})

describe('node:http transport only', () => {
  const cap = createFetchCapability({
    allowedHosts: [],
    allowPrivateHosts: ['127.0.0.1', 'api.test'],
    lookup: fakeLookup({ 'api.test': ['127.0.0.1'] }),
  })
  const auth = { headers: { authorization: 'Bearer secret', cookie: 'a=1', 'x-keep': 'yes' } }

  test('credentials survive a same-origin redirect', async () => {
    const res = await cap(`${server.origin}/redirect?to=/echo`, auth)
    expect((res.body as { headers: Record<string, string> }).headers).toMatchObject({ authorization: 'Bearer secret', cookie: 'a=1' })
  })

  test('credentials are dropped when a redirect changes origin', async () => {
    const to = encodeURIComponent(`http://api.test:${server.port}/echo`)
    const res = await cap(`${server.origin}/redirect?to=${to}`, auth)
    const headers = (res.body as { headers: Record<string, string> }).headers
    expect(headers['authorization']).toBeUndefined()
    expect(headers['cookie']).toBeUndefined()
    expect(headers['x-keep']).toBe('yes')
    expect(res.url).toBe(`http://api.test:${server.port}/echo`)
  })

  test('the name is resolved once per hop and the socket uses that answer (no second DNS query)', async () => {
    const lookup = fakeLookup({ 'api.test': ['127.0.0.1'] })
    const pinned = createFetchCapability({ allowedHosts: [], allowPrivateHosts: ['api.test'], lookup })
    await pinned(`http://api.test:${server.port}/redirect?to=/json`)
    expect(lookup.calls).toEqual(['api.test', 'api.test'])
  })
})

describe('address policy (no connection made)', () => {
  const lookup = fakeLookup({
    'public.test': ['93.184.216.34'],
    'loop.test': ['127.0.0.1'],
    'mixed.test': ['93.184.216.34', '10.1.2.3'],
    'v6loop.test': ['::1'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'meta6.test': ['fd00:ec2::254'],
  })
  const cap = createFetchCapability({ allowedHosts: ['*'], lookup, timeoutMs: 2000 })

  test.each([
    'http://127.0.0.1/', 'http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/',
    'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://169.254.169.254/', 'http://[fd00:ec2::254]/', 'http://10.0.0.1/',
    'http://192.168.1.1/', 'http://172.16.0.1/', 'http://100.64.0.1/', 'http://0.0.0.0/', 'http://[fe80::1]/', 'http://224.0.0.1/',
    'http://loop.test/', 'http://mixed.test/', 'http://v6loop.test/', 'http://mapped.test/', 'http://meta6.test/',
  ])('%s is refused', async (url) => {
    expect(await codeOf(cap(url))).toBe('FETCH_PRIVATE_ADDRESS')
  })

  test('unresolvable names are FETCH_DNS', async () => {
    expect(await codeOf(cap('http://nowhere.test/'))).toBe('FETCH_DNS')
  })

  test('blockPrivate: false lets private addresses through (to the local server)', async () => {
    const open = createFetchCapability({ allowedHosts: ['127.0.0.1'], blockPrivate: false })
    expect((await open(`${server.origin}/json`)).status).toBe(200)
  })

  test('allowedHosts alone does not unblock a private address', async () => {
    const strict = createFetchCapability({ allowedHosts: ['127.0.0.1'] })
    expect(await codeOf(strict(`${server.origin}/json`))).toBe('FETCH_PRIVATE_ADDRESS')
  })
})

describe('allowlist and request validation', () => {
  const lookup = fakeLookup({ 'api.example.com': ['93.184.216.34'] })
  const cap = createFetchCapability({ allowedHosts: ['*.example.com', 'exact.test'], lookup })
  const abort = { signal: AbortSignal.abort() }

  test('wildcards match subdomains but not the apex or look-alikes', async () => {
    // An aborted signal stops right after the policy passes, so nothing is contacted.
    expect(await codeOf(cap('https://api.example.com/x', abort))).toBe('FETCH_ABORTED')
    expect(await codeOf(cap('https://example.com/x', abort))).toBe('FETCH_HOST_DENIED')
    expect(await codeOf(cap('https://evilexample.com/x', abort))).toBe('FETCH_HOST_DENIED')
    expect(await codeOf(cap('https://api.example.com.evil.test/x', abort))).toBe('FETCH_HOST_DENIED')
  })

  test('host comparison ignores case and a trailing dot', async () => {
    expect(await codeOf(cap('https://EXACT.test./', abort))).not.toBe('FETCH_HOST_DENIED')
  })

  test.each([
    ['ftp://exact.test/', 'FETCH_BAD_URL'],
    ['file:///etc/passwd', 'FETCH_BAD_URL'],
    ['not a url', 'FETCH_BAD_URL'],
    ['http://user:pw@exact.test/', 'FETCH_BAD_URL'],
    ['', 'FETCH_BAD_URL'],
  ])('%s → %s', async (url, code) => {
    expect(await codeOf(cap(url))).toBe(code)
  })

  test.each([
    [{ method: 'CONNECT' }],
    [{ method: 'TRACE' }],
    [{ headers: { host: 'other' } }],
    [{ headers: { 'transfer-encoding': 'chunked' } }],
    [{ headers: { 'x-a': 'a\r\nx-b: b' } }],
    [{ headers: { 'bad name': 'x' } }],
    [{ method: 'GET', body: 'x' }],
    [{ body: 'x', method: 'POST', extra: 1 }],
  ])('bad request %j → FETCH_BAD_REQUEST', async (init) => {
    expect(await codeOf(cap('https://exact.test/', init as never))).toBe('FETCH_BAD_REQUEST')
  })

  test('maxRequestBytes limits the request body', async () => {
    const small = createFetchCapability({ allowedHosts: ['exact.test'], maxRequestBytes: 3, lookup })
    expect(await codeOf(small('https://exact.test/', { method: 'POST', body: 'four' }))).toBe('FETCH_BAD_REQUEST')
  })

  test.each([
    [{}],
    [{ allowedHosts: ['*'], maxBytes: -1 }],
    [{ allowedHosts: ['*'], maxByte: 10 }],
    [{ allowedHosts: ['a.*.com'] }],
    [{ allowedHosts: ['host:8080'] }],
    [{ allowedHosts: 'example.com' }],
    [{ allowedHosts: ['*'], timeoutMs: 0 }],
  ])('bad options %j → FETCH_OPTIONS', (options) => {
    expect(() => createFetchCapability(options as never)).toThrow(expect.objectContaining({ code: 'FETCH_OPTIONS' }))
  })

  test('errors carry a hint and a stable code in the message', async () => {
    try {
      await cap('https://denied.test/')
      throw new Error('unreachable')
    } catch (e) {
      const err = e as CapabilityError
      expect(err.code).toBe('FETCH_HOST_DENIED')
      expect(err.hint).toContain('allowedHosts')
      expect(err.message).toStartWith('FETCH_HOST_DENIED:')
    }
  })
})
