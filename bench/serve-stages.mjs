#!/usr/bin/env node
// Where the server's event loop spends its CPU on POST /v1/runs (agent-typical), stage by stage,
// without sockets: main-thread CPU time (/proc/self/task/<pid>/stat, so the pool threads' work
// and other processes on a shared machine do not count) per run of
//   pool.run      - the hand-off to a pool thread and back (batched messages to the run threads, the results)
//   runs.runNow   - the same plus resolving the program, admission and its settlement, metrics
//   inject POST   - the whole route through fastify's inject (body parser, auth, validation, reply)
//   inject GET    - GET /healthz through inject: fastify's and inject's own floor
// and, in-process with CPU time, the pieces of the body and auth path (old way vs now).
// The socket side (HTTP parsing, reads, writes) is what `node bench/loadtest.mjs --phases healthz`
// measures on top. Usage: node bench/serve-stages.mjs [--no-build] [--rounds 2] [--ms 4000]
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { repoDir, workloadsIndex } from './lib/paths.mjs'

const argv = process.argv.slice(2)
const flag = (name, dflt) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : dflt }
const rounds = Number(flag('rounds', '2'))
const ms = Number(flag('ms', '4000'))
if (!argv.includes('--no-build')) {
  const b = spawnSync(process.execPath, [join(repoDir, 'scripts/build.mjs'), '--no-types', '--quiet'], { stdio: 'inherit' })
  if (b.status !== 0) process.exit(1)
}
const { createServer, parseServeConfig, tokenSha256 } = await import(pathToFileURL(join(repoDir, 'dist/server.js')).href)
const { transpile } = await import(pathToFileURL(join(repoDir, 'dist/index.js')).href)
const { workloads } = await import(pathToFileURL(workloadsIndex).href)
const agent = workloads.find((w) => w.id === 'agent-typical')
const ast = transpile(agent.source, { filename: 'agent-typical.ajs' }).ast
const astText = JSON.stringify(ast)
const body = JSON.stringify({ ast, args: agent.args })
const key = createHash('sha256').update(astText).digest('base64url')

// The pieces, from the sources (they are not exports of dist/).
const dir = mkdtempSync(join(tmpdir(), 'ajs-stages-'))
await build({ entryPoints: { raw: join(repoDir, 'src/server/raw-json.ts'), tenants: join(repoDir, 'src/server/tenants.ts') }, outdir: dir, bundle: true, format: 'esm', platform: 'node', logLevel: 'error', packages: 'external', outExtension: { '.js': '.mjs' } })
const { scanJson, SeenValues } = await import(pathToFileURL(join(dir, 'raw.mjs')).href)
const { Tenants } = await import(pathToFileURL(join(dir, 'tenants.mjs')).href)
rmSync(dir, { recursive: true, force: true })

const cpuUs = () => { const u = process.cpuUsage(); return u.user + u.system }
function piece(name, f, n = 20000) {
  for (let i = 0; i < 2000; i++) f()
  const c0 = cpuUs()
  for (let i = 0; i < n; i++) f()
  console.log(`  ${name.padEnd(44)} ${((cpuUs() - c0) / n).toFixed(2)} µs`)
}
const config = parseServeConfig({ tenants: [{ id: 'load', tokenSha256: tokenSha256('tok'), limits: { concurrentRuns: 10_000, fuelPerRun: 1000 } }] })
console.log(`pieces (CPU time per call; body ${body.length} chars):`)
const tenants = new Tenants(config)
const seen = { values: new SeenValues(), owner: 'load' }
const scan = scanJson(body, 264, 'ast')
const textMap = new Map([[astText, 1]]), keyMap = new Map([[key, 1]])
const fresh = Buffer.from(astText), freshKey = Buffer.from(key)
piece('auth: regex + SHA-256 of the token (before)', () => tenants.byHash.get(tokenSha256(/^Bearer\s+(\S+)\s*$/i.exec('Bearer tok')[1])))
piece('auth: remembered header (now)', () => tenants.authenticate('Bearer tok'))
piece('body scan: every character (before)', () => scanJson(body, 264, 'ast'))
piece('body scan: the AST seen before (now)', () => scanJson(body, 264, 'ast', seen))
piece('JSON.parse of the body without its AST', () => JSON.parse(body.slice(0, scan.start) + '{}' + body.slice(scan.end)))
piece('pool thread: program by its text (before)', () => textMap.get(fresh.latin1Slice(0, fresh.length)))
piece('pool thread: program by its key (now)', () => keyMap.get(freshKey.latin1Slice(0, freshKey.length)))

const s = await createServer({ config, pool: { size: 2 } })
const tenant = s.context.tenants.get('load')
const mainCpuMs = () => { const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10 }
const handoffs = () => JSON.parse(JSON.stringify(s.pool.handoffs ?? { sent: { messages: 0, jobs: 0 }, received: { messages: 0, jobs: 0 } }))
const perMessage = (a, b, side) => ((b[side].jobs - a[side].jobs) / Math.max(1, b[side].messages - a[side].messages)).toFixed(1)
async function stage(name, one) {
  let n = 0
  const until = performance.now() + ms
  const c0 = mainCpuMs()
  const h0 = handoffs()
  await Promise.all(Array.from({ length: 32 }, async () => { while (performance.now() < until) { await one(); n++ } }))
  const h1 = handoffs()
  const batches = h1.sent.messages > h0.sent.messages ? ` (jobs per message: ${perMessage(h0, h1, 'sent')} out, ${perMessage(h0, h1, 'received')} back)` : ''
  console.log(`  ${name.padEnd(44)} ${Math.round(((mainCpuMs() - c0) * 1000) / n)} µs${batches}`)
}
const headers = { authorization: 'Bearer tok', 'content-type': 'application/json' }
const stages = {
  'pool.run (hand-off, VM in a pool thread)': () => s.pool.run({ tenant: 'load', astText, key, args: agent.args, fuel: 1000, timeoutMs: 30_000, trace: false, maxAstNodes: 100_000, maxAstDepth: 200 }),
  'runs.runNow (+ admission, settlement, metrics)': () => s.context.runs.runNow(tenant, { ast: {}, args: agent.args }, undefined, { text: astText, key }, true),
  'inject POST /v1/runs (the whole route)': () => s.app.inject({ method: 'POST', url: '/v1/runs', headers, payload: body }),
  'inject GET /healthz (fastify + inject floor)': () => s.app.inject({ method: 'GET', url: '/healthz' }),
}
const check = await stages['inject POST /v1/runs (the whole route)']()
if (check.statusCode !== 200) throw new Error(`POST /v1/runs answered ${check.statusCode}: ${check.body.slice(0, 300)}`)
for (let r = 0; r < rounds; r++) {
  console.log(`stages, round ${r + 1} (main-thread CPU per run, 32 concurrent, ${ms} ms each):`)
  for (const [name, f] of Object.entries(stages)) await stage(name, f)
}
await s.close()
