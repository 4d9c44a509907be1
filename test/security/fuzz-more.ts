/**
 * More fuzz targets (issue 23): the Python frontend and the server's requests.
 *
 * - Python: random code-block bodies mixing ordinary statements with the
 *   shapes of hardening round 3 (huge format widths and precisions,
 *   `expandtabs`, big-int powers and conversions, parsing in other bases,
 *   digit grouping, string repeats). Each either is refused at compile time
 *   with a located TranspileError, or runs within its deadline, with fuel at
 *   most its budget, an error code that is not INTERNAL, and the host
 *   realm unchanged.
 * - Server: random requests (routes, methods, headers, bodies of any JSON
 *   shape and depth, raw non-JSON text, random ASTs from the AST generator)
 *   injected into an in-process `ajsc serve` (fastify's inject: no sockets).
 *   Each gets an answer below 500 (503 QUEUE_FULL/SERVER_STORE_FULL aside)
 *   with a JSON error carrying a code when it is an error, and the server
 *   keeps answering /healthz.
 */
import fc from 'fast-check'
import { runPythonBlock } from '../../src/python/index.ts'
import { TranspileError } from '../../src/index.ts'
import { createServer, parseServeConfig, tokenSha256, type AjsServer } from '../../src/server/index.ts'
import { astArb, DEADLINE_SLACK_MS, FUEL, MAX_HEAP_BYTES, TIMEOUT_MS, type FuzzOutcome } from './fuzz-lib.ts'
import { diffHost, snapshotHost } from './helpers.ts'

// ---- Python ------------------------------------------------------------------

const NUM = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(0, 1, -1, 10 ** 9, 2 ** 53, 10 ** 18), fc.double({ noNaN: false }).map((d) => (Number.isFinite(d) ? d : 0)))
const pyNum = NUM.map((n) => (Number.isInteger(n) ? String(n) : n.toExponential(6)))
const WIDTH = fc.constantFrom('0', '5', '40', '4096', '100000', '100000000', '999999999999', '1' + '0'.repeat(25))
const SPEC = fc.tuple(fc.constantFrom('', '<', '>', '^', '0=', '*^'), fc.constantFrom('', '+', ' '), WIDTH, fc.constantFrom('', ',', '_'), fc.constantFrom('', '.3', '.0', '.100000000'), fc.constantFrom('', 'd', 'x', 'b', 'o', 'f', 'e', 'g', '%', 's', 'c'))
  .map(([a, s, w, g, p, t]) => a + s + w + g + p + t)
const pyExpr: fc.Arbitrary<string> = fc.oneof(
  pyNum,
  fc.constantFrom("'ab\\tc'", "'x' * 1000", "'9' * 4301", "'z' * 4300", "'1' * 100000", 's', 'n', 'xs', 'len(xs)', 'd'),
  fc.tuple(pyNum, fc.constantFrom('+', '-', '*', '//', '%', '**', '<<'), pyNum).map(([a, o, b]) => `(${a} ${o} ${b})`),
  fc.tuple(fc.constantFrom('2', '3', '7', '10', '-1', '1', '0'), fc.constantFrom('10', '1000', '100000', '5000000', '60000000', '10**12')).map(([a, b]) => `(${a} ** ${b})`),
  fc.tuple(fc.constantFrom('n', '1234', '-5', '1.5', "'ab'", '10 ** 5000', '2 ** 1000'), SPEC).map(([v, sp]) => `f"{${v}:${sp}}"`),
  fc.tuple(fc.constantFrom("'%*s'", "'%.*d'", "'%-*d'"), fc.constantFrom('10', '100000000', '-5', '10**9')).map(([f, w]) => `(${f} % (${w}, 7))`),
  fc.tuple(fc.constantFrom("'a\\tb'", "'\\t' * 100", 's'), fc.constantFrom('', '0', '8', '1000000000', '-1')).map(([v, k]) => `${v}.expandtabs(${k})`),
  fc.tuple(fc.constantFrom("'ff'", "'z' * 10", "'1' * 5000", "'7' * 40", "'-0x_ff'", "'12_34'", "'v' * 30", "'3' * 4400"), fc.constantFrom('', ', 2', ', 3', ', 8', ', 16', ', 32', ', 36', ', 0')).map(([v, b]) => `int(${v}${b})`),
  fc.constantFrom('str(10 ** 4300)', 'str(10 ** 5000)', "'ab'.center(10 ** 9)", "'ab'.zfill(100000)", "'ab'.ljust(-1)", 'len(str(2 ** 14000))'),
)
const pyStmt: fc.Arbitrary<string> = fc.oneof(
  pyExpr.map((e) => `n = ${e}`),
  pyExpr.map((e) => `xs.append(${e})`),
  pyExpr.map((e) => `s = str(${e})[:50]`),
  pyExpr.map((e) => `try:\n    n = ${e}\nexcept (ValueError, TypeError, OverflowError, MemoryError, ZeroDivisionError) as err:\n    s = str(err)[:40]`),
  pyExpr.map((e) => `for i in range(3):\n    d[str(i)] = ${e}`),
  pyExpr.map((e) => `while len(xs) < 5:\n    xs.append(${e})`),
)
/** A random Python code-block body. */
export const pythonArb = fc.array(pyStmt, { minLength: 1, maxLength: 5 })
  .map((stmts) => `n = 0\ns = ''\nxs = []\nd = {}\n${stmts.join('\n')}\nreturn {'n': len(str(n)) if not isinstance(n, str) else len(n), 's': len(s), 'xs': len(xs)}`)

/** Run one Python body and check the invariants. */
export async function checkPython(body: string): Promise<FuzzOutcome> {
  const before = snapshotHost()
  const started = Date.now()
  let r
  try {
    r = await runPythonBlock(body, { fuel: FUEL, timeoutMs: TIMEOUT_MS, maxHeapBytes: MAX_HEAP_BYTES })
  } catch (e) {
    if (e instanceof TranspileError) return { ok: true } // a located refusal
    return { ok: false, problem: `runPythonBlock threw: ${(e as Error)?.stack ?? e}` }
  }
  const ms = Date.now() - started
  if (ms > TIMEOUT_MS + DEADLINE_SLACK_MS) return { ok: false, problem: `block took ${ms} ms (deadline ${TIMEOUT_MS})` }
  if (!(r.fuelUsed >= 0 && r.fuelUsed <= FUEL)) return { ok: false, problem: `fuelUsed ${r.fuelUsed} outside [0, ${FUEL}]` }
  if (r.error && (typeof r.error.code !== 'string' || r.error.code === 'INTERNAL')) return { ok: false, problem: `error ${JSON.stringify(r.error).slice(0, 300)}` }
  if (r.error?.code === 'PY_EXCEPTION' && /RangeError|Invalid string length|Maximum call stack|is not a function|undefined is not/.test(r.error.message)) {
    return { ok: false, problem: `a host exception reached the guest: ${r.error.message.slice(0, 200)}` }
  }
  const diff = diffHost(before, snapshotHost())
  if (diff.length > 0) return { ok: false, problem: `host changed: ${diff.join(', ')}` }
  return { ok: true }
}

export const pythonProperty = fc.asyncProperty(pythonArb, async (body) => {
  const o = await checkPython(body)
  if (!o.ok) throw new Error(`${o.problem}\n--- body ---\n${body}`)
})

// ---- server requests ---------------------------------------------------------------

const TOKEN = 'token-fuzz'
let server: AjsServer | undefined

/** The in-process server the requests go to (one per process; small limits so bad inputs stay cheap). */
export async function fuzzServer(): Promise<AjsServer> {
  server ??= await createServer({
    config: parseServeConfig({
      tenants: [{ id: 'fuzz', tokenSha256: tokenSha256(TOKEN), limits: { fuelPerRun: FUEL, timeoutMs: 500, requestsPerMinute: null, maxProcedures: 50, maxAsyncRuns: 50, maxWorkflows: 20 } }],
      limits: { maxBodyBytes: 256 * 1024, maxAstNodes: 5000, maxAstDepth: 40 },
    }),
    pool: { size: 1, queueSize: 64, graceMs: 500 },
  })
  return server
}
export async function closeFuzzServer(): Promise<void> {
  await server?.close()
  server = undefined
}

const ROUTES = ['/v1/runs', '/v1/runs?async=1', '/v1/procedures', '/v1/workflows', '/v1/runs/run_x', '/v1/procedures/proc_x', '/v1/workflows/wf_x', '/v1/workflows/wf_x/requests/r1', '/v1/workflows/wf_x/signals/s', '/metrics', '/healthz', '/openapi.json', '/v1/nope', '/%2e%2e/etc', '/v1/runs/%00']
const { v: jsonValue } = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof({ depthSize: 'small', maxDepth: 6 },
    fc.constantFrom(null, true, 0, -1, 1e308, 'x', '', '__proto__', 'function f() { return 1 }', 'proc_x'),
    fc.string({ maxLength: 20 }), fc.integer(), fc.double(),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('source', 'ast', 'args', 'options', 'token', 'fuel', 'timeoutMs', 'trace', 'value', 'ttl', '__proto__', 'constructor', 'x'), tie('v'), { maxKeys: 4 })),
}))
const bodyArb: fc.Arbitrary<{ payload: string | undefined; type: string | undefined }> = fc.oneof(
  jsonValue.map((v) => ({ payload: JSON.stringify(v) ?? 'null', type: 'application/json' })),
  astArb.map((ast) => ({ payload: JSON.stringify({ ast }), type: 'application/json' })),
  fc.tuple(fc.constantFrom('function f() { return 1 }', 'function f( {', 'while (true) {}', "function f() { return 'a'.repeat(1e9) }", 'x'.repeat(1000)), fc.constantFrom('source', 'ast')).map(([src, k]) => ({ payload: JSON.stringify({ [k]: src }), type: 'application/json' })),
  fc.integer({ min: 1, max: 5000 }).map((n) => ({ payload: '['.repeat(n) + ']'.repeat(n), type: 'application/json' })),
  fc.string({ maxLength: 200 }).map((s) => ({ payload: s, type: 'application/json' })),
  fc.tuple(fc.string({ maxLength: 50 }), fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', '', 'multipart/form-data; boundary=x')).map(([s, t]) => ({ payload: s, type: t || undefined })),
  fc.constant({ payload: undefined, type: undefined }),
)
const VALID: Array<[string, string]> = [['POST', '/v1/runs'], ['POST', '/v1/runs?async=1'], ['POST', '/v1/procedures'], ['POST', '/v1/workflows'],
  ['POST', '/v1/workflows/wf_x/requests/r1'], ['GET', '/v1/runs/run_x'], ['GET', '/metrics'], ['DELETE', '/v1/procedures/proc_x']]
/** Mostly routes that exist with their method (so bodies reach validation and the pool), sometimes any pair. */
const routeArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...VALID) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'), fc.constantFrom(...ROUTES)) },
)
export const requestArb = fc.record({
  route: routeArb,
  auth: fc.constantFrom(`Bearer ${TOKEN}`, `Bearer ${TOKEN}`, 'Bearer nope', 'Basic eA==', '', `bearer ${TOKEN}`, `Bearer ${TOKEN}\u0000`),
  body: bodyArb,
  extra: fc.dictionary(fc.constantFrom('x-request-id', 'accept', 'idempotency-key', 'content-encoding', 'x-forwarded-for'), fc.string({ maxLength: 30 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')), { maxKeys: 2 }),
})
export type FuzzRequest = typeof requestArb extends fc.Arbitrary<infer T> ? T : never

/** Inject one request and check the invariants. */
export async function checkRequest(req: FuzzRequest): Promise<FuzzOutcome> {
  const s = await fuzzServer()
  const [method, url] = req.route
  const headers: Record<string, string> = { ...req.extra }
  if (req.auth) headers['authorization'] = req.auth.replace(/\u0000/g, '')
  if (req.body.type) headers['content-type'] = req.body.type
  let res
  try {
    res = await s.app.inject({ method: method as 'GET', url, headers, ...(req.body.payload !== undefined && method !== 'GET' && method !== 'HEAD' ? { payload: req.body.payload } : {}) })
  } catch (e) {
    return { ok: false, problem: `inject threw: ${(e as Error)?.stack ?? e}` }
  }
  let json: any
  try { json = res.body ? JSON.parse(res.body) : undefined } catch { json = undefined }
  const code = json?.error?.code
  if (res.statusCode >= 500 && !(res.statusCode === 503 && (code === 'QUEUE_FULL' || code === 'SERVER_STORE_FULL'))) {
    return { ok: false, problem: `${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}` }
  }
  if (res.statusCode >= 400 && method !== 'HEAD' && typeof code !== 'string') return { ok: false, problem: `${method} ${url}: ${res.statusCode} without an error code: ${res.body.slice(0, 200)}` }
  const health = await s.app.inject({ method: 'GET', url: '/healthz' })
  if (health.statusCode !== 200) return { ok: false, problem: `/healthz answered ${health.statusCode} after ${method} ${url}` }
  return { ok: true }
}

export const requestProperty = fc.asyncProperty(requestArb, async (req) => {
  const o = await checkRequest(req)
  if (!o.ok) throw new Error(o.problem)
})
