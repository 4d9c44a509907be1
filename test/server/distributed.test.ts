/**
 * Distributed mode on a real PostgreSQL: `ajsc serve --database` plus two
 * `ajsc worker` processes. One worker is killed with SIGKILL in the middle
 * of a workflow (an agent call in flight); the other finishes it, and no
 * completed agent call is made again (the fake LLM on 127.0.0.1 counts).
 * Skips only when initdb is not installed (.ci/run installs it).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { tokenSha256 } from '../../src/server/index.ts'
import { startFakeLlm, type FakeLlm } from '../workflows/fake-llm.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts'
import { killChildren, startAjsc } from './ajsc-process.ts'
import { runFinished } from './helpers.ts'

const available = postgresAvailable()
let db: TestPostgres
let llm: FakeLlm
let dir: string
let config: string
const children: ChildProcess[] = []

const ajsc = (args: string[], ready: RegExp) => startAjsc(args, ready, children)

beforeAll(async () => {
  if (!available) return
  ;[db, llm] = await Promise.all([startPostgres(), startFakeLlm()])
  dir = mkdtempSync(join(tmpdir(), 'ajs-dist-'))
  config = join(dir, 'ajs-serve.json')
  writeFileSync(config, JSON.stringify({
    tenants: [
      { id: 'ops', tokenSha256: tokenSha256('ops-token'), capabilities: { llm: { baseUrl: llm.baseUrl, model: 'fake' } } },
      { id: 'other', tokenSha256: tokenSha256('other-token') },
    ],
  }))
})

// Each test's processes end with it, passed or failed: a worker left running takes the next test's jobs.
afterEach(async () => {
  await killChildren(children)
  children.length = 0
})

afterAll(async () => {
  await killChildren(children)
  await llm?.close()
  await db?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const PIPELINE = `
export const meta = { name: 'pipeline' }
const a = await agent('step one')
const b = await agent('step two')
const c = await agent('step three')
export default { a, b, c }
`

describe.skipIf(!available)('ajsc serve + 2 ajsc worker on one Postgres', () => {
  test('a worker killed mid-workflow: the other finishes it; no completed agent call is repeated', async () => {
    const common = ['--database', db.url, '--config', config, '--dead-after', '1000']
    const { match } = await ajsc(['serve', ...common, '--port', '0', '--job-concurrency', '0', '--pool-size', '1'], /listening on (http:\/\/\S+)/)
    const url = match[1]!
    const workers = await Promise.all([0, 1].map(() => ajsc(['worker', ...common, '--pool-size', '1'], /running jobs as (\S+)/)))
    const req = async (method: string, path: string, body?: unknown, token = 'ops-token') => {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
      return { status: res.status, json: await res.json() as any }
    }

    llm.hold.add('step two')
    const started = await req('POST', '/v1/workflows', { source: PIPELINE })
    expect(started.status).toBe(201)
    const id = started.json.id
    await llm.received('step two')
    expect(llm.counts.get('step one')).toBe(1)

    // Which process holds the workflow's job? Its node id carries the pid.
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    const owner = await client.query(`SELECT n.node_id FROM graphile_worker.jobs j JOIN ajs.node_workers n ON n.worker_id = j.locked_by WHERE j.task_identifier = 'ajs_workflow'`)
    if (owner.rows.length !== 1) console.log((await client.query('SELECT id, task_identifier, locked_by, attempts, last_error, run_at FROM graphile_worker.jobs')).rows, (await client.query('SELECT * FROM ajs.node_workers')).rows, workers.map((w) => w.match[1]))
    await client.end()
    expect(owner.rows.length).toBe(1)
    const victim = workers.find((w) => w.match[1] === owner.rows[0].node_id)!
    const survivor = workers.find((w) => w !== victim)!
    expect(victim).toBeDefined()
    victim.child.kill('SIGKILL')
    await new Promise((r) => victim.child.once('exit', r))
    llm.hold.delete('step two')

    let wf = (await req('GET', `/v1/workflows/${id}`)).json
    for (let i = 0; i < 300 && wf.state !== 'done'; i++) {
      await Bun.sleep(50)
      wf = (await req('GET', `/v1/workflows/${id}`)).json
    }
    expect(wf.state).toBe('done')
    expect(wf.result).toEqual({ a: 'echo: step one', b: 'echo: step two', c: 'echo: step three' })
    // step one completed before the kill: never asked again. step two was in flight: asked once more.
    expect(llm.counts.get('step one')).toBe(1)
    expect(llm.counts.get('step two')).toBe(2)
    expect(llm.counts.get('step three')).toBe(1)
    expect(survivor.child.exitCode).toBeNull()
    expect((await req('GET', `/v1/workflows/${id}`, undefined, 'other-token')).status).toBe(404)

    // Async runs are jobs too: the surviving worker runs them; procedures and agent memory live in Postgres.
    const proc = await req('POST', '/v1/procedures', { source: 'function f({ n }) { storeSet({ key: "last", value: n }); return { sq: n * n } }' })
    const run = await req('POST', '/v1/runs?async=1', { token: proc.json.token, args: { n: 9 } })
    expect(run.status).toBe(202)
    const rec = await runFinished({ url }, run.json.id, 'ops-token', 5_000)
    expect(rec.result).toEqual({ result: { sq: 81 }, fuelUsed: expect.any(Number) })
    expect((await req('GET', `/v1/runs/${run.json.id}`, undefined, 'other-token')).status).toBe(404)
    const read = await req('POST', '/v1/runs', { source: 'function f() { return { last: storeGet({ key: "last" }) } }' })
    expect(read.json.result).toEqual({ last: 9 })
    const foreign = await req('POST', '/v1/runs', { source: 'function f() { return { last: storeGet({ key: "last" }) } }' }, 'other-token')
    expect(foreign.json.result).toEqual({ last: null })
    // The survivor stops: the next test's workers take every job.
    survivor.child.kill('SIGTERM')
    await new Promise((r) => survivor.child.once('exit', r))
  }, 60_000)

  test("a workflow's steps alternating between two workers: each replays every entry at most once, not the journal at each step", async () => {
    const steps = 30
    const common = ['--database', db.url, '--config', config, '--dead-after', '1000']
    const { match } = await ajsc(['serve', ...common, '--port', '0', '--job-concurrency', '0', '--pool-size', '1'], /listening on (http:\/\/\S+)/)
    const url = match[1]!
    const workers = await Promise.all([0, 1].map(() => ajsc(['worker', ...common, '--pool-size', '1'], /running jobs as (\S+)/)))
    const req = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: 'Bearer ops-token', ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
      return res.json() as Promise<any>
    }
    const source = `let sum = 0\nfor (let i = 0; i < ${steps}; i++) { log('step ' + i); sum += await agent('step ' + i, { external: true }) }\nexport default sum`
    const { id } = await req('POST', '/v1/workflows', { source })
    let wf: any
    for (let i = 0; i <= steps; i++) {
      for (let k = 0; k < 400; k++) {
        wf = await req('GET', `/v1/workflows/${id}`)
        if (wf.state === 'done' || (wf.state === 'waiting' && wf.requests.length === 1)) break
        await Bun.sleep(10)
      }
      if (wf.state === 'done') break
      await req('POST', `/v1/workflows/${id}/requests/${wf.requests[0].id}`, { value: i })
    }
    expect(wf.state).toBe('done')
    expect(wf.result).toBe((steps * (steps - 1)) / 2)
    const journal = (await req('GET', `/v1/workflows/${id}/journal?limit=1`)).total as number
    // Each worker reports what its steps cost when it stops.
    const stats = await Promise.all(workers.map(async (w) => {
      w.child.kill('SIGTERM')
      await new Promise((r) => w.child.once('exit', r))
      const m = /workflow steps: (\d+) \((\d+) continued a live execution, (\d+) of them after another process's steps; (\d+) replayed the journal\); (\d+) journal entries replayed/.exec(w.stderr())
      expect(m).not.toBeNull()
      const [steps, hits, caughtUp, misses, replayed] = m!.slice(1).map(Number) as [number, number, number, number, number]
      return { steps, hits, caughtUp, misses, replayed }
    }))
    expect(stats[0]!.steps + stats[1]!.steps).toBeGreaterThanOrEqual(steps + 1)
    // The steps did change hands (Graphile Worker gives each job to whichever worker takes it first)...
    expect(stats[0]!.caughtUp + stats[1]!.caughtUp).toBeGreaterThan(0)
    for (const s of stats) {
      // ...and a worker replays the journal at most once, then only what the other wrote since its last step.
      expect(s.misses).toBeLessThanOrEqual(1)
      expect(s.replayed).toBeLessThanOrEqual(journal)
    }
  }, 90_000)
})
