/**
 * Soak (issue 23): several tenants on one `ajsc serve` (in this process, on
 * 127.0.0.1) — well-behaved tenants sending small runs back to back and
 * measuring latency, one hostile tenant cycling through the attack classes of
 * hardening round 3. Two phases of SOAK_SECONDS each (default 20): the
 * well-behaved tenants alone, then with the hostile one. Prints one JSON line:
 * p50/p99 alone and under attack, their ratio, the server's peak RSS, what
 * each side got back, and whether anything was lost.
 *
 *   bun bench/soak.ts                  # 2 x 20 s
 *   SOAK_SECONDS=60 bun bench/soak.ts  # longer
 *
 * test/security/soak.test.ts runs a short version and asserts what does not
 * depend on the machine's load (nothing lost, codes, memory ceiling); the
 * latency ratio is measured here, in the same run, and printed.
 */
import { createServer, parseServeConfig, tokenSha256 } from '../src/server/index.ts'

const SECONDS = Number(process.env.SOAK_SECONDS ?? 20)
const GOOD = ['good1', 'good2', 'good3']
const config = parseServeConfig({
  tenants: [
    ...GOOD.map((id) => ({ id, tokenSha256: tokenSha256(`token-${id}`), limits: { fuelPerRun: 1000, timeoutMs: 5000 } })),
    { id: 'hostile', tokenSha256: tokenSha256('token-hostile'), limits: { fuelPerRun: 100_000, timeoutMs: 2000, maxProcedures: 20 } },
  ],
  limits: { maxBodyBytes: 2_000_000 },
})
const MAX_HEAP_MB = 256
const baseRss = process.memoryUsage.rss()
const server = await createServer({ config, pool: { size: 2, graceMs: 500, maxHeapMb: MAX_HEAP_MB } })
const url = await server.listen({ host: '127.0.0.1', port: 0 })

const post = async (tenant: string, path: string, body: unknown, raw?: string) => {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer token-${tenant}`, 'content-type': 'application/json' }, body: raw ?? JSON.stringify(body) })
  const text = await res.text()
  let json: any
  try { json = JSON.parse(text) } catch { json = undefined }
  return { status: res.status, json }
}

// The well-behaved workload: a small agent-like program with a checked answer.
const GOOD_SOURCE = 'function f({ n }) { let s = 0\n for (let i = 0; i < 200; i++) { s += i % (n + 1) }\n return { s, id: n } }'
const expected = (n: number) => { let s = 0; for (let i = 0; i < 200; i++) s += i % (n + 1); return { s, id: n } }

let peakRss = process.memoryUsage.rss()
const rssTimer = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage.rss()) }, 50)

async function goodLoop(tenant: string, until: number, out: { latencies: number[]; wrong: number; failed: string[] }) {
  let n = 0
  while (Date.now() < until) {
    n = (n + 1) % 50
    const started = performance.now()
    const r = await post(tenant, '/v1/runs', { source: GOOD_SOURCE, args: { n } })
    out.latencies.push(performance.now() - started)
    if (r.status !== 200) out.failed.push(`${r.status} ${r.json?.error?.code}`)
    else if (JSON.stringify(r.json.result) !== JSON.stringify(expected(n))) { out.wrong++; if (out.wrong < 3) console.error('wrong', n, JSON.stringify(r.json).slice(0, 300)) }
  }
}

/** The hostile tenant's cycle: one attack per class of issue 23. */
const ATTACKS: Array<[string, () => Promise<{ status: number; json: any }>]> = [
  ['cpu loop at its fuel cap (slots, class 1)', () => post('hostile', '/v1/runs', { source: 'function f() { let i = 0\n while (true) { i++ } }' })],
  ['compile a large source (class 2)', () => post('hostile', '/v1/procedures', { source: `function f({ n }) {\n${Array.from({ length: 6000 }, (_, i) => `  const v${i} = n + ${i}`).join('\n')}\n  return v0\n}` })],
  ['fill the procedure store (class 3)', () => post('hostile', '/v1/procedures', { source: 'function f() { return 1 }' })],
  ['python width 10^9 (class 4)', () => post('hostile', '/v1/runs', { ast: { ajs: 1, op: 'seq', libraries: { python: 1 }, steps: [{ op: 'return', value: { $expr: 'call', callee: 'py$fmt', args: [{ $expr: 'literal', value: 1 }, { $expr: 'literal', value: '>1000000000' }] } }] } })],
  ['deep body (class 7)', () => post('hostile', '/v1/runs', undefined, `{"source":"function f(x) { return 1 }","args":{"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`)],
  ['many medium strings (memory)', () => post('hostile', '/v1/runs', { source: "function f() { const keep = []\n for (let i = 0; i < 2000; i++) keep.push('x'.repeat(1000000) + i)\n return keep.length }" })],
]

async function hostileLoop(until: number, out: { byAttack: Record<string, Record<string, number>>; fiveHundreds: string[] }) {
  let i = 0
  while (Date.now() < until) {
    const [name, attack] = ATTACKS[i++ % ATTACKS.length]!
    const r = await attack()
    const key = `${r.status} ${r.json?.error?.code ?? 'ok'}`
    ;(out.byAttack[name] ??= {})[key] = ((out.byAttack[name] ??= {})[key] ?? 0) + 1
    if (r.status >= 500 && r.status !== 503) out.fiveHundreds.push(`${name}: ${key}`)
  }
}

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0 }

async function phase(withHostile: boolean) {
  const until = Date.now() + SECONDS * 1000
  const good = { latencies: [] as number[], wrong: 0, failed: [] as string[] }
  const hostile = { byAttack: {} as Record<string, Record<string, number>>, fiveHundreds: [] as string[] }
  let healthzMax = 0
  const health = (async () => {
    while (Date.now() < until) {
      const started = performance.now()
      const h = await fetch(`${url}/healthz`)
      await h.text()
      healthzMax = Math.max(healthzMax, performance.now() - started)
      await new Promise((r) => setTimeout(r, 100))
    }
  })()
  await Promise.all([...GOOD.map((t) => goodLoop(t, until, good)), ...(withHostile ? [hostileLoop(until, hostile)] : []), health])
  return { good, hostile, healthzMax }
}

const alone = await phase(false)
const attacked = await phase(true)
clearInterval(rssTimer)
await server.close()
const report = {
  seconds: SECONDS,
  alone: { requests: alone.good.latencies.length, p50: pct(alone.good.latencies, 50), p99: pct(alone.good.latencies, 99) },
  attacked: { requests: attacked.good.latencies.length, p50: pct(attacked.good.latencies, 50), p99: pct(attacked.good.latencies, 99) },
  p99Ratio: pct(attacked.good.latencies, 99) / Math.max(0.001, pct(alone.good.latencies, 99)),
  goodWrong: alone.good.wrong + attacked.good.wrong,
  goodFailed: [...alone.good.failed, ...attacked.good.failed],
  hostile: attacked.hostile.byAttack,
  hostile5xx: attacked.hostile.fiveHundreds,
  healthzMaxMs: Math.max(alone.healthzMax, attacked.healthzMax),
  peakRssMiB: Math.round(peakRss / 2 ** 20),
  baseRssMiB: Math.round(baseRss / 2 ** 20),
  poolHeapMiB: 2 * MAX_HEAP_MB,
  loadavg: (await import('node:os')).loadavg(),
}
console.log(JSON.stringify(report))
