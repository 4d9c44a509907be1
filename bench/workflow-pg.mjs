#!/usr/bin/env node
// Workflow steps through `ajsc serve` (built dist/, child processes): in
// memory, then on PostgreSQL with `ajsc serve --database` (HTTP only,
// --job-concurrency 0) and `ajsc worker` processes on a throwaway cluster
// (bench/lib/postgres.mjs, fsync on). A step is one external request answered
// over HTTP: the answer and the job of the next step commit together, a
// worker takes the job and continues the workflow's live execution (or
// replays its journal once when another process ran its last step). The
// driver wakes on the workers' NOTIFY (ajs_events), in memory it polls.
//
//   1. one workflow of N steps (default 1,000; --steps 1000,10000), in memory
//      and with one worker: total time and time per step at each size, and
//      the CPU time per step of the server's processes (from /proc), which the
//      machine's other load moves far less than wall time; neither must grow with N;
//   2. steps per second on PostgreSQL with 1 and 2 worker processes: W
//      workflows of S steps answered concurrently (--workflows 16 --per 40),
//      and per core of this machine.
//
// Standalone: `node bench/workflow-pg.mjs [--steps 1000,10000] [--workflows 16]
// [--per 40] [--concurrency 8] [--no-memory] [--no-build] [--json out.json]`;
// `npm run bench -- --sections workflows-pg [--wf-steps 1000,10000]` runs it as
// a section (--quick: 200 steps, 8 x 20).
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { repoDir } from './lib/paths.mjs'
import { postgresBinDir, startPostgres } from './lib/postgres.mjs'

const TOKEN = 'bench-workflow-pg-token'
const sha = (t) => createHash('sha256').update(t).digest('hex')

/** Start `node bin/ajsc.js <args>`; resolves with the first match of `ready` on its stdout. */
function ajsc(args, ready, children) {
  const child = spawn(process.execPath, [join(repoDir, 'bin/ajsc.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
  children.push(child)
  let out = ''
  let err = ''
  child.stderr.on('data', (c) => { err += c })
  child.stderrText = () => err
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c
      const m = ready.exec(out)
      if (m) resolve(m)
    })
    child.once('exit', (code) => reject(new Error(`ajsc ${args[0]} exited (${code}): ${err.slice(-2000)}`)))
  })
}

/**
 * CPU time (ms) used so far by these processes and their descendants (ajsc serve, the workers, the PostgreSQL
 * server's processes), from /proc: unlike wall time it barely moves when other work shares the machine.
 * null where there is no /proc.
 */
function treeCpuMs(roots) {
  if (!existsSync('/proc/self/stat')) return null
  const stats = new Map()
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const text = readFileSync(`/proc/${d}/stat`, 'utf8')
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ')
      stats.set(Number(d), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) })
    } catch { /* gone meanwhile */ }
  }
  const wanted = new Set(roots.filter((p) => p !== undefined))
  for (let grew = true; grew;) {
    grew = false
    for (const [pid, s] of stats) if (!wanted.has(pid) && wanted.has(s.ppid)) { wanted.add(pid); grew = true }
  }
  let ticks = 0
  for (const pid of wanted) ticks += stats.get(pid)?.ticks ?? 0
  return ticks * 10 // USER_HZ is 100 on Linux
}

/** Wakes a workflow's driver when a worker ends one of its steps (NOTIFY ajs_events 'workflow:<id>'). */
async function notifications(url) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const waiters = new Map()
  const dirty = new Set()
  client.on('notification', (n) => {
    const id = n.payload?.startsWith('workflow:') ? n.payload.slice(9) : undefined
    if (id === undefined) return
    const w = waiters.get(id)
    if (w) { waiters.delete(id); w() } else dirty.add(id)
  })
  await client.query('LISTEN ajs_events')
  return {
    /** Resolves at the next step's end (at once if one ended since the last call), or after 250 ms. */
    next(id) {
      if (dirty.delete(id)) return Promise.resolve()
      return new Promise((resolve) => {
        const t = setTimeout(() => { waiters.delete(id); resolve() }, 250)
        waiters.set(id, () => { clearTimeout(t); resolve() })
      })
    },
    close: () => client.end(),
  }
}

/**
 * A client of `ajsc serve` at `url` that starts workflows of n external steps and answers each as it asks.
 * `next(id)` waits for the workflow's next step to end (a NOTIFY on PostgreSQL, a short sleep in memory).
 */
function workflowDriver(url, next, counters) {
  const req = async (method, path, body) => {
    const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
    return res.json()
  }
  return async (n) => {
    const source = `let s = 0\nfor (let i = 0; i < ${n}; i++) s += await agent('step ' + i, { external: true })\nexport default s`
    let wf = await req('POST', '/v1/workflows', { source })
    if (wf.error) throw new Error(JSON.stringify(wf.error))
    const id = wf.id
    let answered = 0
    for (let spins = 0; spins < 100 * n + 1000; spins++) {
      wf = await req('GET', `/v1/workflows/${id}`)
      if (wf.state === 'done') {
        if (answered !== n || wf.result !== n) throw new Error(`workflow ${id}: ${answered} answers, result ${wf.result}`)
        return
      }
      if (wf.state === 'failed' || wf.state === 'cancelled') throw new Error(`workflow ${id} ${wf.state}: ${JSON.stringify(wf.error)}`)
      if (wf.state === 'waiting' && wf.requests?.length) {
        const r = await req('POST', `/v1/workflows/${id}/requests/${wf.requests[0].id}`, { value: 1 })
        // A step still holding the workflow (a loaded worker): send it again, as a client would after Retry-After.
        if (r.error?.code === 'WORKFLOW_BUSY') { counters.busy++; await new Promise((res) => setTimeout(res, 100)); continue }
        if (r.error && r.error.code !== 'ALREADY_RESOLVED') throw new Error(JSON.stringify(r.error))
        answered++
      }
      await next(id)
    }
    throw new Error(`workflow ${id} did not finish`)
  }
}

/** One workflow of each size, timed (wall and, from /proc, the CPU of the server's processes). */
async function measureSizes(drive, steps, cpu, what, log) {
  const rows = []
  for (const n of steps) {
    const t0 = performance.now()
    const c0 = cpu()
    await drive(n)
    const ms = performance.now() - t0
    const cpuMs = c0 === null ? null : cpu() - c0
    rows.push({ steps: n, totalMs: Math.round(ms), msPerStep: +(ms / n).toFixed(2), ...(cpuMs !== null ? { cpuMsPerStep: +(cpuMs / n).toFixed(2) } : {}), loadAvg: +os.loadavg()[0].toFixed(2) })
    log(`    ${String(n).padStart(6)} steps: ${(ms / 1000).toFixed(1).padStart(6)} s total, ${(ms / n).toFixed(2)} ms/step${cpuMs !== null ? `, CPU ${(cpuMs / n).toFixed(2)} ms/step (${what})` : ''}, load ${os.loadavg()[0].toFixed(1)}`)
  }
  return rows
}

/** Stop the workers (SIGTERM) and read the cost report each prints (src/cli/commands/serve.ts); null where none came. */
async function workerStats(procs) {
  return Promise.all(procs.map(async (c) => {
    if (c.exitCode === null) {
      const exited = new Promise((r) => c.once('exit', r))
      c.kill('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))])
    }
    const m = /workflow steps: (\d+) \((\d+) continued a live execution, (\d+) of them after another process's steps; (\d+) replayed the journal\); (\d+) journal entries replayed/.exec(c.stderrText())
    if (!m) return null
    const [steps, hits, caughtUp, misses, replayed] = m.slice(1).map(Number)
    return { steps, hits, caughtUp, misses, replayed }
  }))
}

function ajscConfig(dir) {
  const config = join(dir, 'ajs-serve.json')
  writeFileSync(config, JSON.stringify({ tenants: [{ id: 'bench', tokenSha256: sha(TOKEN), limits: { fuelPerRun: 100_000_000, concurrentRuns: 64 } }] }))
  return config
}

export async function runWorkflowPgBench({ quick = false, steps, workflows, per, concurrency = 8, build = true, memory = true, log = console.log } = {}) {
  steps ??= quick ? [200] : [1000]
  workflows ??= quick ? 8 : 16
  per ??= quick ? 20 : 40
  if (build) {
    const b = spawnSync(process.execPath, [join(repoDir, 'scripts/build.mjs'), '--no-types', '--quiet'], { stdio: 'inherit' })
    if (b.status !== 0) throw new Error('build failed')
  }
  const out = { cores: os.cpus().length, memorySizes: [], sizes: [], throughput: [] }
  const children = []
  const killAll = () => { for (const c of children) if (c.exitCode === null) c.kill('SIGKILL') }
  process.on('exit', killAll)
  const dir = mkdtempSync(join(os.tmpdir(), 'ajs-bench-wfpg-'))
  const config = ajscConfig(dir)
  const counters = { busy: 0 }
  const stop = async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM')
    await new Promise((r) => setTimeout(r, 500))
    killAll()
    children.length = 0
  }
  try {
    if (memory) {
      // The same workflows through ajsc serve in memory (no --database): its steps run in that process.
      const [, url] = await ajsc(['serve', '--config', config, '--port', '0', '--pool-size', '1'], /listening on (http:\/\/\S+)/, children)
      const drive = workflowDriver(url, () => new Promise((r) => setTimeout(r, 1)), counters)
      await drive(5)
      log('  one workflow of N steps, ajsc serve in memory:')
      out.memorySizes = await measureSizes(drive, steps, () => treeCpuMs(children.map((c) => c.pid)), 'serve', log)
      await stop()
    }
    if (postgresBinDir() === null) {
      log('  PostgreSQL: skipped, it is not installed (initdb, postgres)')
      out.skipped = 'PostgreSQL is not installed'
      return out
    }
    const db = await startPostgres()
    let events
    try {
      const [, url] = await ajsc(['serve', '--config', config, '--database', db.url, '--port', '0', '--pool-size', '1', '--job-concurrency', '0'], /listening on (http:\/\/\S+)/, children)
      const worker = () => ajsc(['worker', '--config', config, '--database', db.url, '--pool-size', '1', '--concurrency', String(concurrency)], /running jobs as/, children)
        .then((m) => { workerProcs.push(children.at(-1)); return m })
      const workerProcs = []
      await worker()
      events = await notifications(db.url)
      const drive = workflowDriver(url, (id) => events.next(id), counters)
      await drive(5) // warm-up: the worker compiles the program, the pools connect
      log('  one workflow of N steps, PostgreSQL: ajsc serve (HTTP only) and one ajsc worker process:')
      out.sizes = await measureSizes(drive, steps, () => treeCpuMs([db.pid, ...children.map((c) => c.pid)]), 'serve + worker + PostgreSQL', log)
      log(`  steps per second on PostgreSQL, ${workflows} workflows of ${per} steps at once (worker --concurrency ${concurrency}):`)
      for (const workers of [1, 2]) {
        if (workers === 2) await worker()
        counters.busy = 0
        const cpu = () => treeCpuMs([db.pid, ...children.map((c) => c.pid)])
        const c0 = cpu()
        const t0 = performance.now()
        await Promise.all(Array.from({ length: workflows }, () => drive(per)))
        const ms = performance.now() - t0
        const cpuMsPerStep = c0 === null ? null : +((cpu() - c0) / (workflows * per)).toFixed(2)
        const perSec = (workflows * per * 1000) / ms
        const busy = counters.busy
        out.throughput.push({ workers, workflows, stepsEach: per, totalMs: Math.round(ms), stepsPerSecond: Math.round(perSec), stepsPerSecondPerCore: Math.round(perSec / out.cores), ...(cpuMsPerStep !== null ? { cpuMsPerStep } : {}), busyAnswers: busy, loadAvg: +os.loadavg()[0].toFixed(2) })
        log(`    ${workers} worker process${workers > 1 ? 'es' : ''}: ${Math.round(perSec)} steps/s (${Math.round(perSec / out.cores)} per core of ${out.cores}), ${(ms / 1000).toFixed(1)} s${cpuMsPerStep !== null ? `, CPU ${cpuMsPerStep} ms/step` : ''}${busy ? `, ${busy} answers sent again (WORKFLOW_BUSY)` : ''}, load ${os.loadavg()[0].toFixed(1)}`)
      }
      // What the workers' steps cost over the whole run (each prints it when it stops): journal entries replayed.
      out.workerSteps = await workerStats(workerProcs)
      for (const [i, w] of out.workerSteps.entries()) {
        log(`    worker ${i + 1} over the run: ${w ? `${w.steps} steps, ${w.caughtUp} caught up after the other's steps, ${w.misses} replayed a journal; ${w.replayed} entries replayed` : 'no report'}`)
      }
    } finally {
      await events?.close().catch(() => {})
      await stop()
      await db.stop()
    }
  } finally {
    await stop()
    process.off('exit', killAll)
    rmSync(dir, { recursive: true, force: true })
  }
  return out
}

/** The section of bench/results/<date>.md. */
export function renderWorkflowPg(r) {
  const row = (where) => (x) => `| ${where} | ${x.steps} | ${(x.totalMs / 1000).toFixed(1)} s | ${x.msPerStep} ms | ${x.cpuMsPerStep ?? '-'} ms | ${x.loadAvg} |`
  const sizes = [...(r.memorySizes ?? []).map(row('ajsc serve, in memory')), ...r.sizes.map(row('PostgreSQL, one ajsc worker'))].join('\n')
  const tput = r.throughput.map((x) => `| ${x.workers} | ${x.workflows} x ${x.stepsEach} | ${x.stepsPerSecond} | ${x.stepsPerSecondPerCore} | ${x.cpuMsPerStep ?? '-'} ms | ${x.loadAvg} |`).join('\n')
  const replays = (r.workerSteps ?? []).map((w, i) => (w ? `worker ${i + 1}: ${w.steps} steps, ${w.caughtUp} caught up after the other's steps, ${w.misses} replayed a journal, ${w.replayed} entries replayed` : `worker ${i + 1}: no report`)).join('; ')
  return `\n## 10. Workflow steps: ajsc serve in memory, and on PostgreSQL (ajsc serve --database + ajsc worker)\n\n| where | steps (one workflow) | total | per step | CPU per step | load |\n| --- | --- | --- | --- | --- | --- |\n${sizes}\n\n| worker processes | workflows x steps | steps/s | per core (${r.cores}) | CPU per step | load |\n| --- | --- | --- | --- | --- | --- |\n${tput}\n${replays ? `\nOver the run: ${replays}.\n` : ''}`
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2)
  const flag = (name) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : undefined }
  const num = (name) => (flag(name) === undefined ? undefined : Number(flag(name)))
  const result = await runWorkflowPgBench({
    quick: argv.includes('--quick'),
    steps: flag('steps')?.split(',').map(Number).filter((n) => n > 0),
    workflows: num('workflows'), per: num('per'), concurrency: num('concurrency') ?? 8,
    build: !argv.includes('--no-build'),
    memory: !argv.includes('--no-memory'),
  })
  const json = flag('json')
  if (json) writeFileSync(json, JSON.stringify(result, null, 2) + '\n')
}
