/**
 * Workflow commands and child workflows on PostgreSQL: `ajsc serve --database` taking no jobs and two
 * `ajsc worker` processes; a signal, a child workflow whose result reaches its parent, and a cancellation
 * that reaches the child (each command journaled with its next step in one transaction).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tokenSha256 } from '../../src/server/index.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts'
import { workflowClient } from './workflow-server.ts'
import { killChildren, startAjsc } from './ajsc-process.ts'

const available = postgresAvailable()
let db: TestPostgres
let dir: string
let config: string
const children: ChildProcess[] = []

beforeAll(async () => {
  if (!available) return
  db = await startPostgres()
  dir = mkdtempSync(join(tmpdir(), 'ajs-wfpg-'))
  config = join(dir, 'ajs-serve.json')
  writeFileSync(config, JSON.stringify({ tenants: [{ id: 'ops', tokenSha256: tokenSha256('ops-token') }] }))
})

afterAll(async () => {
  await killChildren(children)
  await db?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(!available)('workflow commands on Postgres (serve + 2 workers)', () => {
  test('signal, child workflow, cancellation reaching the child', async () => {
    const common = ['--database', db.url, '--config', config]
    const { match } = await startAjsc(['serve', ...common, '--port', '0', '--job-concurrency', '0', '--pool-size', '1'], /listening on (http:\/\/\S+)/, children)
    const url = match[1]!
    await Promise.all([0, 1].map(() => startAjsc(['worker', ...common, '--pool-size', '1'], /running jobs as (\S+)/, children)))
    const { req, until } = workflowClient(url, { tries: 600, intervalMs: 25 })
    const command = async (path: string, body: unknown) => {
      for (;;) {
        const r = await req('POST', path, body)
        if (r.json?.error?.code !== 'WORKFLOW_BUSY') return r
        await Bun.sleep(100)
      }
    }

    const parent = `
const go = await signal('go')
const first = await workflow('child', { n: go.n })
const second = await workflow('child', { n: go.n + 1 })
export default [first, second]`
    const child = `
const ok = await agent('confirm ' + args.n, { external: true })
export default { n: args.n, ok }`
    const { json: started } = await req('POST', '/v1/workflows', { source: parent, workflows: { child } })
    expect((await command(`/v1/workflows/${started.id}/signal`, { name: 'go', value: { n: 1 }, id: 'go-1' })).status).toBe(200)
    const w1 = await until(started.id, (wf) => wf.children?.length === 1)
    const c1 = await until(w1.children[0].id, (wf) => wf.state === 'waiting')
    await req('POST', `/v1/workflows/${c1.id}/requests/${c1.requests[0].id}`, { value: true })
    expect((await until(c1.id, (wf) => wf.state === 'done')).result).toEqual({ n: 1, ok: true })

    const w2 = await until(started.id, (wf) => wf.children?.length === 2)
    const c2 = await until(w2.children[1].id, (wf) => wf.state === 'waiting')
    expect((await command(`/v1/workflows/${started.id}/cancel`, { reason: 'enough' })).status).toBe(200)
    expect((await until(started.id, (wf) => wf.state === 'cancelled')).error.code).toBe('WORKFLOW_CANCELLED')
    expect((await until(c2.id, (wf) => wf.state === 'cancelled')).error.message).toContain(started.id)
  }, 60_000)
})
