#!/usr/bin/env node
// `npm run loadtest`: requests per second and latency of POST /v1/runs for the
// agent-typical workload, through `ajsc serve` (built dist/, a child process)
// on loopback, driven by autocannon from this process. Three phases, each
// bounded in time:
//   alone  - only the measured tenant
//   noisy  - the same, while another tenant keeps a CPU-bound loop running
//            (one run at a time: its concurrentRuns limit is 1)
//   token  - the same program stored once and run by its proc_ token
// Writes bench/results/loadtest-<date>.json and .md (with the machine's load
// average: the machine may be shared).
//
// Usage: node bench/loadtest.mjs [--duration 10] [--connections 32] [--pool-size N] [--no-write] [--no-build] [--json <file>]
//          [--phases alone,noisy,token,healthz] [--cpu-prof <dir>] [--ajsc <path/to/bin/ajsc.js>]
// --phases: only these phases (a partial run is never written; healthz, GET /healthz, the floor of
// HTTP + fastify with no run, is not in the default set). --cpu-prof <dir>: the server runs
// with node --cpu-prof (main thread and pool threads), its .cpuprofile files left in <dir>.
// --ajsc: serve with another build (e.g. a copy of dist/ and bin/ of the revision before, for an
// A/B alternated in the same conditions; a run with it is never written).
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import autocannon from 'autocannon'
import { repoDir, resultsDir, workloadsIndex } from './lib/paths.mjs'
import { machine, gitState } from './lib/machine.mjs'

const argv = process.argv.slice(2)
const flag = (name, dflt) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : dflt
}
const duration = Number(flag('duration', '10'))
const connections = Number(flag('connections', '32'))
const poolSize = flag('pool-size', undefined)
const only = flag('phases', 'alone,noisy,token').split(',')
const cpuProf = flag('cpu-prof', undefined)
const ajsc = flag('ajsc', join(repoDir, 'bin/ajsc.js'))
const write = !argv.includes('--no-write') && only.join() === 'alone,noisy,token' && flag('ajsc', undefined) === undefined

if (!argv.includes('--no-build')) {
  const b = spawnSync(process.execPath, [join(repoDir, 'scripts/build.mjs'), '--no-types', '--quiet'], { stdio: 'inherit' })
  if (b.status !== 0) process.exit(1)
}
const { transpile, AgentVM } = await import(pathToFileURL(join(ajsc, '../../dist/index.js')).href)
const { workloads } = await import(pathToFileURL(workloadsIndex).href)
const agent = workloads.find((w) => w.id === 'agent-typical')
const ast = transpile(agent.source, { filename: 'agent-typical.ajs' }).ast

const sha = (t) => createHash('sha256').update(t).digest('hex')
const TOKENS = { load: 'loadtest-tenant-token', noisy: 'loadtest-noisy-token', operator: 'loadtest-operator-token' }
const dir = mkdtempSync(join(os.tmpdir(), 'ajs-loadtest-'))
const configFile = join(dir, 'ajs-serve.json')
writeFileSync(configFile, JSON.stringify({
  tenants: [
    { id: 'load', tokenSha256: sha(TOKENS.load), limits: { concurrentRuns: 10_000, fuelPerRun: 1000 } },
    { id: 'noisy', tokenSha256: sha(TOKENS.noisy), limits: { concurrentRuns: 1, fuelPerRun: 1e12, timeoutMs: 2000 } },
  ],
  operatorTokenSha256: sha(TOKENS.operator),
}))

const serveArgs = [...(cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf] : []), ajsc, 'serve', '--config', configFile, '--port', '0', ...(poolSize ? ['--pool-size', poolSize] : [])]
const server = spawn(process.execPath, serveArgs, { stdio: ['ignore', 'pipe', 'inherit'] })
// Never leave the server behind, whatever happens here.
process.on('exit', () => server.kill('SIGKILL'))
const url = await new Promise((resolve, reject) => {
  let out = ''
  server.stdout.on('data', (c) => {
    out += c
    const m = /listening on (http:\/\/\S+)/.exec(out)
    if (m) resolve(m[1])
  })
  server.once('exit', (code) => reject(new Error(`ajsc serve exited with ${code}`)))
})

const headers = (token) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' })
async function post(path, token, body) {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: headers(token), body: JSON.stringify(body) })
  return res.json()
}

// Correctness first: the measured request must give the workload's result.
const check = await post('/v1/runs', TOKENS.load, { ast, args: agent.args })
const local = await new AgentVM().run(ast, agent.args)
if (check.error || JSON.stringify(check.result) !== JSON.stringify(local.result)) {
  console.error(`unexpected result: ${JSON.stringify(check).slice(0, 300)}`)
  process.exit(1)
}
const { token: procToken } = await post('/v1/procedures', TOKENS.load, { ast })

function cannon(body, title) {
  const request = body === undefined ? { url: `${url}/healthz`, method: 'GET' } : { url: `${url}/v1/runs`, method: 'POST', headers: headers(TOKENS.load), body: JSON.stringify(body) }
  return new Promise((resolve, reject) => {
    autocannon({ ...request, connections, duration, title }, (err, r) => (err ? reject(err) : resolve(r)))
  })
}

/** The noisy neighbour: one CPU-bound run after another until stopped. */
function noisyNeighbour() {
  let stop = false
  let runs = 0
  const loop = { source: 'function spin() { let i = 0; while (true) { i++ } }', options: { timeoutMs: 1000 } }
  const done = (async () => {
    while (!stop) {
      const r = await post('/v1/runs', TOKENS.noisy, loop)
      if (r.error?.code === 'TIMEOUT') runs++
      else if (!r.error) throw new Error('the CPU-bound loop finished?')
    }
  })()
  return { async stop() { stop = true; await done; return runs } }
}

/** CPU time (user + system, ms) the server process used so far: robust to other load on the machine, unlike wall-clock rates. */
const clockTick = 100
function cpuMsOf(statFile) {
  try {
    const fields = readFileSync(statFile, 'utf8').split(') ')[1].split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTick
  } catch {
    return NaN
  }
}
/** The whole process (every thread), and its main thread alone (the event loop: HTTP, auth, admission, the hand-off to workers). */
/** CPU time of every thread of the server, by thread id (Linux names them all "node": they are told apart by how busy they are). */
function threadCpuMs() {
  const out = new Map()
  try {
    for (const tid of readdirSync(`/proc/${server.pid}/task`)) out.set(tid, cpuMsOf(`/proc/${server.pid}/task/${tid}/stat`))
  } catch { /* not Linux */ }
  return out
}
const serverCpuMs = () => ({ all: cpuMsOf(`/proc/${server.pid}/stat`), main: cpuMsOf(`/proc/${server.pid}/task/${server.pid}/stat`), threads: threadCpuMs() })

/** The server's hand-offs to its run threads so far (messages and the runs they carried, each way; absent on servers without the gauges). */
async function handoffs() {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKENS.operator}` } })).text()
  const read = (name, direction) => Number(new RegExp(`^${name}\\{direction="${direction}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN)
  return { out: [read('ajs_pool_handoff_messages', 'out'), read('ajs_pool_handoff_jobs', 'out')], back: [read('ajs_pool_handoff_messages', 'back'), read('ajs_pool_handoff_jobs', 'back')] }
}

async function phase(body, title) {
  const h0 = await handoffs()
  const cpu0 = serverCpuMs()
  const r = summarize(await cannon(body, title))
  const cpu1 = serverCpuMs()
  const h1 = await handoffs()
  const perRun = (ms) => Math.round((ms * 1000) / Math.max(1, r.requests))
  r.serverCpuUsPerRun = perRun(cpu1.all - cpu0.all)
  r.mainThreadCpuUsPerRun = perRun(cpu1.main - cpu0.main)
  // The two busiest threads besides the main one are the run threads at this load (the workflow threads stay idle).
  const others = [...cpu1.threads].filter(([tid]) => tid !== String(server.pid)).map(([tid, ms]) => ms - (cpu0.threads.get(tid) ?? 0)).sort((a, b) => b - a)
  if (others.length >= 2) r.threadCpuUsPerRun = { busiestTwoOthers: perRun(others[0] + others[1]), rest: perRun(others.slice(2).reduce((a, b) => a + b, 0)) }
  const perMessage = (side) => +((h1[side][1] - h0[side][1]) / Math.max(1, h1[side][0] - h0[side][0])).toFixed(2)
  if (Number.isFinite(h1.out[0])) r.runsPerMessage = { out: perMessage('out'), back: perMessage('back') }
  return r
}

const summarize = (r) => ({
  requestsPerSec: Math.round(r.requests.average),
  latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
  requests: r.requests.total,
  non2xx: r.non2xx,
  errors: r.errors,
  timeouts: r.timeouts,
})

const batching = (p) => (p.threadCpuUsPerRun ? `; the two busiest other threads ${p.threadCpuUsPerRun.busiestTwoOthers}, the rest ${p.threadCpuUsPerRun.rest}` : '') + (p.runsPerMessage ? `; runs per message to/from the threads ${p.runsPerMessage.out}/${p.runsPerMessage.back}` : '')
const loadStart = os.loadavg().map((x) => +x.toFixed(2))
const phases = {}
const log = (s) => console.log(s)
log(`ajsc serve at ${url}; ${connections} connections, ${duration} s per phase; load average ${loadStart.join(' ')}`)
await cannon({ ast, args: agent.args }, 'warm-up').catch(() => {})
if (only.includes('alone')) {
  phases.alone = await phase({ ast, args: agent.args }, 'alone')
  log(`alone:  ${phases.alone.requestsPerSec} runs/s, p50 ${phases.alone.latencyMs.p50} ms, p99 ${phases.alone.latencyMs.p99} ms, server CPU ${phases.alone.serverCpuUsPerRun} µs/run (main thread ${phases.alone.mainThreadCpuUsPerRun})${batching(phases.alone)}`)
}
if (only.includes('noisy')) {
  const noisy = noisyNeighbour()
  await new Promise((r) => setTimeout(r, 200))
  phases.noisy = await phase({ ast, args: agent.args }, 'noisy')
  phases.noisy.cpuLoopRuns = await noisy.stop()
  log(`noisy:  ${phases.noisy.requestsPerSec} runs/s, p50 ${phases.noisy.latencyMs.p50} ms, p99 ${phases.noisy.latencyMs.p99} ms (another tenant ran ${phases.noisy.cpuLoopRuns} one-second CPU loops meanwhile)`)
}
if (only.includes('token')) {
  phases.token = await phase({ token: procToken, args: agent.args }, 'token')
  log(`token:  ${phases.token.requestsPerSec} runs/s, p50 ${phases.token.latencyMs.p50} ms, p99 ${phases.token.latencyMs.p99} ms, server CPU ${phases.token.serverCpuUsPerRun} µs/run (main thread ${phases.token.mainThreadCpuUsPerRun})${batching(phases.token)}`)
}
if (only.includes('healthz')) {
  phases.healthz = await phase(undefined, 'healthz')
  log(`healthz: ${phases.healthz.requestsPerSec} req/s, server CPU ${phases.healthz.serverCpuUsPerRun} µs/request (main thread ${phases.healthz.mainThreadCpuUsPerRun})`)
}
const loadEnd = os.loadavg().map((x) => +x.toFixed(2))

server.kill('SIGTERM')
await new Promise((r) => server.once('exit', r))
rmSync(dir, { recursive: true, force: true })

const m = machine()
const results = {
  date: new Date().toISOString(),
  command: `npm run loadtest${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
  machine: { ...m, loadStart, loadEnd },
  git: gitState(),
  setup: { workload: 'agent-typical', body: 'POST /v1/runs { ast, args } (AST ~7.5 KB JSON)', connections, durationSec: duration, poolSize: poolSize ?? 'default (CPU count)' },
  phases,
  targets: {
    'runs/s alone >= 5000': phases.alone?.requestsPerSec >= 5000,
    'p99 alone < 20 ms': phases.alone?.latencyMs.p99 < 20,
    'p99 with a noisy tenant <= 2 x alone': phases.noisy?.latencyMs.p99 <= 2 * phases.alone?.latencyMs.p99,
  },
}
const md = [
  `# Load test: POST /v1/runs, agent-typical (${results.date.slice(0, 10)})`,
  '',
  `Command: \`${results.command}\`  `,
  `Machine: ${m.line}; load average ${loadStart.join(' ')} at start, ${loadEnd.join(' ')} at end (the machine may be shared)  `,
  `Commit: ${results.git.line}  `,
  `Setup: ${results.setup.body}, ${connections} connections, ${duration} s per phase, pool ${results.setup.poolSize}`,
  '',
  '| phase | runs/s | p50 ms | p90 ms | p99 ms | max ms | non-2xx | server CPU µs/run | main thread µs/run | run threads µs/run | other threads µs/run | runs per message out/back |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...Object.entries(phases).map(([k, p]) => `| ${k} | ${p.requestsPerSec} | ${p.latencyMs.p50} | ${p.latencyMs.p90} | ${p.latencyMs.p99} | ${p.latencyMs.max} | ${p.non2xx} | ${p.serverCpuUsPerRun} | ${p.mainThreadCpuUsPerRun} | ${p.threadCpuUsPerRun?.busiestTwoOthers ?? ''} | ${p.threadCpuUsPerRun?.rest ?? ''} | ${p.runsPerMessage ? `${p.runsPerMessage.out}/${p.runsPerMessage.back}` : ''} |`),
  '',
  'Server CPU per run is user + system time of the server process (all its threads) divided by the runs answered',
  '(main thread: the event loop alone, where HTTP, auth, admission and the hand-off to the pool run; run threads: the two',
  'busiest other threads, which at this load are the pool\'s run threads; other threads: V8\'s and libuv\'s helpers, GC included):',
  `on an otherwise idle machine with ${os.cpus().length} cores it bounds the rate at ≈ ${os.cpus().length} × 1e6 / (µs per run) runs/s.`,
  '',
  'Targets: ' + Object.entries(results.targets).map(([k, v]) => `${k}: ${v ? 'met' : 'NOT met'}`).join('; '),
  '',
].join('\n')
log(`\n${md}`)
const jsonOut = flag('json', undefined)
if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify({ ...results, markdown: md }, null, 2)}\n`)
if (write) {
  mkdirSync(resultsDir, { recursive: true })
  const base = join(resultsDir, `loadtest-${results.date.slice(0, 10)}`)
  writeFileSync(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`)
  writeFileSync(`${base}.md`, md)
  log(`wrote ${base.slice(repoDir.length + 1)}.json and .md`)
}
