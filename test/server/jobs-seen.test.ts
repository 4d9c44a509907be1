/**
 * Distributed mode: an async run another process ran reaches this server by a NOTIFY; a client that
 * reads its record as done before that notification arrives gets its concurrentRuns slot back at once
 * (RunExecutor.seen), and the later notification settles nothing twice. CI caught the race in
 * distributed.test.ts: a sync run right after seeing an async run done was 429 TENANT_BUSY.
 */
import { describe, expect, test } from 'bun:test'
import type pg from 'pg'
import { jobsExecutor, type Jobs } from '../../src/server/jobs.ts'
import type { Host } from '../../src/server/host.ts'
import type { RunRecord } from '../../src/server/stores/types.ts'

const result = { result: { sq: 81 }, fuelUsed: 3 }

/** A pool whose queries all succeed; SELECT of the run answers its done row. */
function fakePool(): pg.Pool {
  const query = async (text: string) => (text.startsWith('SELECT * FROM ajs.runs') ? { rows: [{ id: 'run_1', tenant: 't', state: 'done', created_at: 1, finished_at: 2, request: null, result }] } : { rows: [] })
  return { query, connect: async () => ({ query, release: () => {} }) } as unknown as pg.Pool
}

describe('jobsExecutor: a done record read before its notification', () => {
  test('done is called once: by the read, not again by the notification', async () => {
    let notify: (payload: string) => void = () => {}
    const jobs = { onEvent: (l: (p: string) => void) => { notify = l } } as unknown as Jobs
    const executor = jobsExecutor({} as Host, fakePool(), jobs)
    const record: RunRecord = { id: 'run_1', tenant: 't', state: 'queued', createdAt: 1 }
    const calls: unknown[] = []
    await executor.start(record, {} as never, (r) => calls.push(r))
    expect(calls).toEqual([])
    executor.seen!({ ...record, state: 'running' } as RunRecord) // not done: nothing
    executor.seen!({ ...record, state: 'done', result })
    expect(calls).toEqual([result])
    notify('run:run_1')
    await Bun.sleep(5)
    expect(calls).toEqual([result])
  })

  test('without a read, the notification still settles it (once)', async () => {
    let notify: (payload: string) => void = () => {}
    const jobs = { onEvent: (l: (p: string) => void) => { notify = l } } as unknown as Jobs
    const executor = jobsExecutor({} as Host, fakePool(), jobs)
    const calls: unknown[] = []
    await executor.start({ id: 'run_1', tenant: 't', state: 'queued', createdAt: 1 }, {} as never, (r) => calls.push(r))
    notify('run:run_1')
    notify('run:run_1')
    await Bun.sleep(5)
    expect(calls).toEqual([result])
    executor.seen!({ id: 'run_1', tenant: 't', state: 'done', createdAt: 1, result })
    expect(calls).toEqual([result])
  })
})
