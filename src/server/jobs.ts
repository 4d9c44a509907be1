/**
 * Distributed mode: runs and workflow resumes are Graphile Worker jobs on
 * the shared Postgres, so `ajsc worker` processes on other machines share
 * the work. Every process registers itself in ajs.nodes and heartbeats; a
 * process that stops heartbeating (killed, crashed, unplugged) has its
 * jobs unlocked with Graphile Worker's `forceUnlockWorkers`, and a live
 * process picks them up. Job handlers are idempotent: a run already done is
 * not run again, and a workflow resumes from its journal.
 */
import { hostname } from 'node:os'
import { randomBytes } from 'node:crypto'
import { EventEmitter } from 'node:events'
import type pg from 'pg'
import { Logger, makeWorkerUtils, run, runMigrations, type Runner, type Task, type TaskList, type WorkerUtils } from 'graphile-worker'
import type { Host } from './host.ts'
import { withServerHint, type RunExecutor } from './runs.ts'
import { HttpError } from './errors.ts'
import { rowToRun } from './stores/postgres.ts'
import type { RunResult } from '../vm/result.ts'
import type { RunTask } from './pool/task.ts'
import type { RunRecord } from './stores/types.ts'
import { checkQuota, type StoreQuota } from './stores/quota.ts'
import { runBytes } from './stores/memory.ts'

export const RUN_TASK = 'ajs_run'
/** The NOTIFY channel of run and workflow events (`run:<id>`, `workflow:<id>`). */
export const EVENTS_CHANNEL = 'ajs_events'

export interface JobsOptions {
  host: Host
  pgPool: pg.Pool
  /** Jobs this process runs at once (0: only enqueue, never run). */
  concurrency: number
  kind: 'serve' | 'worker'
  /** A node that has not heartbeat for this long is dead and its jobs are unlocked (ms, default 5,000). */
  deadAfterMs?: number
  /** More job handlers (workflow resumes). */
  tasks?: TaskList
  /** Graphile Worker's poll interval for scheduled jobs (ms, default 1,000). */
  pollIntervalMs?: number
}

export interface Jobs {
  nodeId: string
  utils: WorkerUtils
  /** Called with `run:<id>` / `workflow:<id>` payloads of NOTIFY ajs_events. */
  onEvent(listener: (payload: string) => void): void
  stop(): Promise<void>
}

/** The job handler of async runs: load the request, run it in this process's pool, record the result. */
function runTaskHandler(host: Host, pgPool: pg.Pool): Task {
  return async (payload) => {
    const { id } = payload as { id: string }
    const r = await pgPool.query('SELECT * FROM ajs.runs WHERE id = $1', [id])
    if (!r.rows[0]) return
    const rec = rowToRun(r.rows[0])
    if (rec.state === 'done' || !rec.request) return
    await host.stores.runs.start(id, Date.now())
    const req = rec.request
    const task: RunTask = {
      tenant: rec.tenant, args: req.args, fuel: req.fuel, timeoutMs: req.timeoutMs, trace: req.trace,
      maxAstNodes: host.config.limits.maxAstNodes, maxAstDepth: host.config.limits.maxAstDepth,
    }
    if (req.source !== undefined) task.source = req.source
    else {
      task.astText = req.astText
      if (req.key !== undefined) task.key = req.key
    }
    let result: RunResult
    try {
      result = await host.pool.run(task)
    } catch (e) {
      const err = e as HttpError
      result = { result: null, fuelUsed: 0, error: { name: 'AgentError', code: err.code ?? 'INTERNAL', message: err.message ?? String(e) } }
    }
    // Fuel per day is counted by the server that admitted the run, when it hears the result.
    await host.stores.runs.finish(id, withServerHint(result), Date.now())
  }
}

export async function startJobs(options: JobsOptions): Promise<Jobs> {
  const { pgPool, host } = options
  const nodeId = `${options.kind}-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`
  const deadAfter = options.deadAfterMs ?? 5000
  await runMigrations({ pgPool, logger: quietLogger })
  await pgPool.query('INSERT INTO ajs.nodes (id, kind) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET seen_at = now()', [nodeId, options.kind])
  const utils = await makeWorkerUtils({ pgPool, logger: quietLogger })

  const events = new EventEmitter()
  const mapWorker = (workerId: string) => { void pgPool.query('INSERT INTO ajs.node_workers (worker_id, node_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [workerId, nodeId]).catch(() => {}) }
  // Jobs are locked by the pool's id (or a worker's, depending on Graphile Worker's mode): map both to this node.
  events.on('pool:create', ({ workerPool }: { workerPool: { id: string } }) => mapWorker(workerPool.id))
  events.on('worker:create', ({ worker }: { worker: { workerId: string } }) => mapWorker(worker.workerId))

  let runner: Runner | undefined
  if (options.concurrency > 0) {
    runner = await run({
      pgPool,
      concurrency: options.concurrency,
      noHandleSignals: true,
      pollInterval: options.pollIntervalMs ?? 1000,
      logger: quietLogger,
      events: events as never,
      taskList: { [RUN_TASK]: runTaskHandler(host, pgPool), ...options.tasks },
    })
  }

  // Heartbeat, and unlock the jobs of nodes that stopped heartbeating.
  const beat = setInterval(() => {
    void (async () => {
      await pgPool.query('UPDATE ajs.nodes SET seen_at = now() WHERE id = $1', [nodeId])
      const dead = await pgPool.query<{ id: string }>(`DELETE FROM ajs.nodes WHERE seen_at < now() - ($1::int * interval '1 millisecond') RETURNING id`, [deadAfter])
      if (dead.rows.length === 0) return
      const workers = await pgPool.query<{ worker_id: string }>('DELETE FROM ajs.node_workers WHERE node_id = ANY($1) RETURNING worker_id', [dead.rows.map((r) => r.id)])
      if (workers.rows.length > 0) await utils.forceUnlockWorkers(workers.rows.map((r) => r.worker_id))
    })().catch(() => { /* the database is unreachable for a moment; try again next beat */ })
  }, Math.max(200, Math.floor(deadAfter / 5)))
  beat.unref()

  // One connection LISTENs for run/workflow events (results of jobs run by other processes).
  const listeners: Array<(payload: string) => void> = []
  const listenClient = await pgPool.connect()
  await listenClient.query(`LISTEN ${EVENTS_CHANNEL}`)
  listenClient.on('notification', (n) => { if (n.payload) for (const l of listeners) l(n.payload) })

  return {
    nodeId,
    utils,
    onEvent: (l) => { listeners.push(l) },
    async stop() {
      clearInterval(beat)
      await runner?.stop().catch(() => {})
      await listenClient.query(`UNLISTEN ${EVENTS_CHANNEL}`).catch(() => {})
      listenClient.release()
      await pgPool.query('DELETE FROM ajs.node_workers WHERE node_id = $1', [nodeId]).catch(() => {})
      await pgPool.query('DELETE FROM ajs.nodes WHERE id = $1', [nodeId]).catch(() => {})
      await utils.release()
    },
  }
}

/** The executor of distributed mode: sync runs in this process's pool; async runs as jobs any process may take. */
export function jobsExecutor(host: Host, pgPool: pg.Pool, jobs: Jobs): RunExecutor {
  const pending = new Map<string, (result: RunResult) => void>()
  // Once per run: by its notification, or by a read of its done record that came first.
  const finish = (id: string, result: RunResult) => {
    const done = pending.get(id)
    if (!done) return
    pending.delete(id)
    done(result)
  }
  jobs.onEvent((payload) => {
    if (!payload.startsWith('run:')) return
    const id = payload.slice(4)
    if (!pending.has(id)) return
    void pgPool.query('SELECT * FROM ajs.runs WHERE id = $1', [id]).then((r) => {
      const rec: RunRecord | undefined = r.rows[0] ? rowToRun(r.rows[0]) : undefined
      finish(id, rec?.result ?? { result: null, fuelUsed: 0, error: { name: 'AgentError', code: 'INTERNAL', message: 'run record vanished' } })
    })
  })
  return {
    run: (task, control) => host.pool.run(task, control),
    seen: (rec) => { if (rec.result) finish(rec.id, rec.result) },
    async start(record, _task, done, quota) {
      const client = await pgPool.connect()
      try {
        // The run record and its job commit together: no job without its record, no record without its job.
        await client.query('BEGIN')
        if (quota) await checkRunQuota(client, record, quota)
        await client.query('INSERT INTO ajs.runs (id, tenant, state, created_at, request) VALUES ($1,$2,$3,$4,$5)', [record.id, record.tenant, record.state, record.createdAt, record.request ?? null])
        await client.query('SELECT graphile_worker.add_job($1, $2::json)', [RUN_TASK, JSON.stringify({ id: record.id })])
        await client.query('COMMIT')
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {})
        throw e
      } finally {
        client.release()
      }
      pending.set(record.id, done)
    },
  }
}

/** The tenant's async-run quota, checked under a per-tenant transaction lock (servers sharing the database cannot all pass). */
async function checkRunQuota(client: pg.PoolClient, record: RunRecord, quota: StoreQuota): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(7412, hashtext($1))', [record.tenant])
  const r = await client.query('SELECT count(*) AS n, coalesce(sum(length(coalesce(request::text, \'\')) + length(coalesce(result::text, \'\'))), 0) AS bytes FROM ajs.runs WHERE tenant = $1', [record.tenant])
  checkQuota('async runs', record.tenant, { count: Number(r.rows[0].n), bytes: Number(r.rows[0].bytes) }, { count: 1, bytes: runBytes(record) }, quota)
}

/** Graphile Worker logs only its errors (to stderr); the rest is noise for an embedded queue. */
const quietLogger = new Logger(() => (level, message) => {
  if (level === 'error') process.stderr.write(`graphile-worker: ${message}\n`)
})
