/**
 * Custom atoms in distributed mode, on a real PostgreSQL: `ajsc serve
 * --database --job-concurrency 0 --atoms` only serves HTTP (sync runs in its
 * own pool), and the async run is a Graphile Worker job that `ajsc worker
 * --atoms` takes: its pool workers import the module themselves. Skips only
 * when initdb is not installed (.ci/run installs it).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { tokenSha256 } from '../../src/server/index.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts'
import { killChildren, startAjsc } from './ajsc-process.ts'
import { runFinished } from './helpers.ts'

const ATOMS = resolve(import.meta.dir, 'fixtures/atoms.mjs')
const available = postgresAvailable()
let db: TestPostgres
let dir: string
let config: string
const children: ChildProcess[] = []

const ajsc = (args: string[], ready: RegExp) => startAjsc(args, ready, children)

beforeAll(async () => {
  if (!available) return
  db = await startPostgres()
  dir = mkdtempSync(join(tmpdir(), 'ajs-atoms-worker-'))
  config = join(dir, 'ajs-serve.json')
  writeFileSync(config, JSON.stringify({ tenants: [{ id: 'ops', tokenSha256: tokenSha256('ops-token'), context: { team: 'ops' } }] }))
})

afterAll(async () => {
  await killChildren(children)
  await db?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(!available)('ajsc serve --database + ajsc worker, both with --atoms', () => {
  test('a sync run in the server\'s pool and an async run taken by the worker both call the custom atom', async () => {
    const common = ['--database', db.url, '--config', config, '--atoms', ATOMS]
    const { match } = await ajsc(['serve', ...common, '--port', '0', '--job-concurrency', '0', '--pool-size', '1'], /listening on (http:\/\/\S+)/)
    const url = match[1]!
    const worker = await ajsc(['worker', ...common, '--pool-size', '1'], /running jobs as (\S+)/)
    expect(worker.stderr()).toContain('ajsc worker: custom atoms double, weather')
    const req = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: 'Bearer ops-token', ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
      return { status: res.status, json: await res.json() as any }
    }
    const source = 'function f({ city }) { return { text: weather({ city }), twice: double({ n: 2 }) } }'
    const sync = await req('POST', '/v1/runs', { source, args: { city: 'Oslo' } })
    expect(sync.json.result).toEqual({ text: 'Oslo: sunny (for ops)', twice: 4 })

    const run = await req('POST', '/v1/runs?async=1', { source, args: { city: 'Kyiv' } })
    expect(run.status).toBe(202)
    const rec = await runFinished({ url }, run.json.id, 'ops-token', 7_500)
    expect(rec.result).toEqual({ result: { text: 'Kyiv: sunny (for ops)', twice: 4 }, fuelUsed: expect.any(Number) })
  }, 60_000)
})
