/**
 * The two deployments behind the CLI. `startServe`: the HTTP API with
 * everything in memory in one process, or — with a database URL — stores
 * in Postgres and async runs and workflow resumes as Graphile Worker jobs
 * (this process runs some of them too, unless `jobConcurrency` is 0).
 * `startWorker`: no HTTP, only the job runner, for more machines.
 */
import { PgSeenTokens } from './budget.ts'
import { availableParallelism } from 'node:os'
import type { ServeConfig } from './config.ts'
import { createServer, type AjsServer, type ScheduleOptions } from './app.ts'
import { PgScheduleStore } from './schedules/pg-store.ts'
import { createHost, type Host } from './host.ts'
import { loadServerAtoms } from './atoms.ts'
import { jobsExecutor, startJobs, type Jobs } from './jobs.ts'
import type { PoolOptions } from './pool/pool.ts'
import { createPgStores } from './stores/postgres.ts'
import { workflowJobTasks, workflowStepStats, workflowsBackend } from './workflows.ts'

export interface StartServeOptions {
  config: ServeConfig
  pool?: PoolOptions
  /** postgres://… : distributed mode. Absent: everything in memory. */
  database?: string
  /** Jobs this process runs at once in distributed mode (default: the pool size; 0: serve only). */
  jobConcurrency?: number
  /** Distributed mode: a node silent for this long is dead and its jobs go to others (ms, default 5,000). */
  deadAfterMs?: number
  logger?: boolean
  env?: Readonly<Record<string, string | undefined>>
  /** Workflow schedules: the clock firing reads and how often it looks (the store is PostgreSQL's with a database). */
  schedules?: Omit<ScheduleOptions, 'store'>
}

export interface Served extends AjsServer {
  /** The job runner (distributed mode only). */
  jobs?: Jobs
}

export async function startServe(options: StartServeOptions): Promise<Served> {
  if (!options.database) {
    const server = await createServer({
      config: options.config, pool: options.pool, logger: options.logger, env: options.env,
      workflows: (host) => workflowsBackend(host),
      health: () => ({ database: false }),
      schedules: options.schedules,
    })
    return server
  }
  const { stores, host, jobs } = await startPgHost({ ...options, database: options.database }, 'serve', options.jobConcurrency)
  const server = await createServer({
    config: options.config, host, logger: options.logger,
    executor: (h) => jobsExecutor(h, stores.pool, jobs),
    workflows: (h) => workflowsBackend(h, { pgPool: stores.pool, jobs }),
    health: () => ({ database: true, node: jobs.nodeId }),
    schedules: { ...options.schedules, store: () => new PgScheduleStore(stores.pool) },
    onClose: () => jobs.stop(),
  })
  return Object.assign(server, { jobs })
}

export interface StartWorkerOptions {
  config: ServeConfig
  database: string
  pool?: PoolOptions
  /** Jobs run at once (default: the pool size). */
  concurrency?: number
  deadAfterMs?: number
  env?: Readonly<Record<string, string | undefined>>
}

export interface StartedWorker {
  host: Host
  jobs: Jobs
  /** What this process's workflow steps did (continued live, caught up, replayed; entries replayed). */
  workflowSteps: Readonly<typeof workflowStepStats>
  stop(): Promise<void>
}

export async function startWorker(options: StartWorkerOptions): Promise<StartedWorker> {
  const { host, jobs } = await startPgHost(options, 'worker', options.concurrency)
  return {
    host,
    jobs,
    workflowSteps: workflowStepStats,
    async stop() {
      await jobs.stop()
      await host.close()
    },
  }
}

interface PgHostOptions {
  config: ServeConfig
  database: string
  pool?: PoolOptions
  deadAfterMs?: number
  env?: Readonly<Record<string, string | undefined>>
}

/** Distributed mode, shared by serve and worker: Postgres stores, the host, and the job runner (the host is closed if jobs fail to start). */
async function startPgHost(options: PgHostOptions, kind: 'serve' | 'worker', concurrency: number | undefined) {
  // Atom modules first: a broken one fails the start before a database connection is opened.
  const atoms = await loadServerAtoms(options.config)
  // A workflow step holds a connection for its lock and needs another for its queries, and Graphile Worker takes
  // and completes jobs through the same pool: with fewer than two per job, concurrent steps wait for each other forever.
  const jobSlots = concurrency ?? options.pool?.size ?? availableParallelism()
  const stores = await createPgStores(options.database, { max: Math.max(10, 2 * jobSlots + 4) })
  const host = createHost({ config: options.config, pool: options.pool, stores, usage: stores.usage, env: options.env, atoms, seenTokens: new PgSeenTokens(stores.pool, { max: options.config.budgetTokens?.maxSeen }) })
  try {
    const jobs = await startJobs({
      host, pgPool: stores.pool, kind,
      concurrency: concurrency ?? host.pool.size,
      deadAfterMs: options.deadAfterMs,
      tasks: workflowJobTasks(host, stores.pool),
    })
    return { stores, host, jobs }
  } catch (e) {
    await host.close()
    throw e
  }
}
