/**
 * Firing (src/server/schedules/firing.ts) against a fake workflows backend, on the memory store: jitter
 * (derived from the fire, never before it), the fire-time minimum interval guard, a tenant gone from the
 * config, a last run that was pruned, a start that throws, a backend that fails (the row is left as it
 * was and the pass goes on), the bounds of a pass (100 fires), a long outage skipped in one step, and the
 * last 20 actions kept.
 */
import { describe, expect, test } from 'bun:test'
import { HttpError } from '../../src/server/errors.ts'
import { Firing, MAX_FIRES_PER_PASS, dueAtOf } from '../../src/server/schedules/firing.ts'
import { jitterOf } from '../../src/server/schedules/spec.ts'
import { MAX_ACTIONS, MemoryScheduleStore, type ScheduleRow } from '../../src/server/schedules/store.ts'
import type { WorkflowRoutesBackend } from '../../src/server/workflows.ts'

const MIN = 60_000
const T0 = Date.parse('2026-02-02T00:00:00.000Z')

/** Runs by id with a state the test sets; `failStart`/`failGet` make the next calls throw. */
function fakeWorkflows() {
  const runs = new Map<string, { state: string; body: Record<string, unknown> }>()
  const fake = {
    runs,
    failStart: undefined as Error | undefined,
    failGet: undefined as Error | undefined,
    async start(_tenant: string, body: Record<string, unknown>, options: { id?: string } = {}) {
      if (fake.failStart) throw fake.failStart
      const id = options.id!
      if (runs.has(id)) return { id, duplicate: true }
      runs.set(id, { state: 'running', body })
      return { id, state: 'running' }
    },
    async get(_tenant: string, id: string) {
      if (fake.failGet) throw fake.failGet
      const run = runs.get(id)
      if (!run) throw new HttpError('NOT_FOUND')
      return { id, state: run.state }
    },
  }
  return fake
}

function rowOf(over: Partial<ScheduleRow> = {}): ScheduleRow {
  const row: ScheduleRow = {
    tenant: 'ops', id: 's', uid: 'uid-1', workflow: { source: 'export default 1' }, args: {}, spec: { everyMs: MIN }, overlap: 'allowAll',
    catchupWindowMs: 3_600_000, jitterMs: 0, paused: false, createdAt: T0, updatedAt: T0, nextAt: T0 + MIN, dueAt: null,
    counts: { started: 0, skipped: {} }, actions: [], ...over,
  }
  row.dueAt = dueAtOf(row, T0)
  return row
}

/** `minInterval`: the tenant's limits.minScheduleIntervalMs; null: the tenant is gone from the config. */
const firingOf = (wf: ReturnType<typeof fakeWorkflows>, minInterval: number | null = MIN) =>
  new Firing({ workflows: wf as unknown as WorkflowRoutesBackend, minIntervalOf: () => minInterval ?? undefined })

describe('schedule firing', () => {
  test('jitter: a fire waits its delay (derived from it, below jitterMs), and the run keeps the nominal time', async () => {
    const wf = fakeWorkflows()
    const row = rowOf({ jitterMs: 30_000 })
    const delay = jitterOf('uid-1', T0 + MIN, 30_000)
    expect(delay).toBeGreaterThanOrEqual(0)
    expect(delay).toBeLessThan(30_000)
    expect(row.dueAt).toBe(T0 + MIN + delay)
    const f = firingOf(wf)
    if (delay > 0) {
      await f.fireDue(row, T0 + MIN + delay - 1)
      expect(row.counts.started).toBe(0)
    }
    await f.fireDue(row, T0 + MIN + delay)
    expect(row.counts.started).toBe(1)
    expect(row.actions[0]!.nominalAt).toBe(T0 + MIN)
    expect([...wf.runs.values()][0]!.body.attributes).toEqual({ scheduleId: 's', scheduledAt: new Date(T0 + MIN).toISOString() })
  })

  test('a jitter longer than the catch-up window does not make a fire missed', async () => {
    const row = rowOf({ jitterMs: 3_600_000, catchupWindowMs: MIN, uid: 'uid-jitter' })
    const delay = jitterOf('uid-jitter', T0 + MIN, 3_600_000)
    expect(delay).toBeGreaterThan(2 * MIN) // this uid's delay: longer than the window
    await firingOf(fakeWorkflows()).fireDue(row, T0 + MIN + delay)
    expect(row.counts).toEqual({ started: 1, skipped: {} })
  })

  test('the minimum interval holds at fire time too; a tenant gone from the config fires nothing', async () => {
    const wf = fakeWorkflows()
    const row = rowOf()
    await firingOf(wf, 2 * MIN).fireDue(row, T0 + 4 * MIN) // fires at +1..+4 minutes, allowed every 2
    expect(row.actions.map((a) => a.reason ?? a.outcome)).toEqual(['started', 'minInterval', 'started', 'minInterval'])
    expect(row.actions[1]!.message).toContain('limits.minScheduleIntervalMs')

    const gone = rowOf()
    await firingOf(wf, null).fireDue(gone, T0 + 4 * MIN)
    expect([gone.actions.length, gone.nextAt, gone.dueAt]).toEqual([0, T0 + MIN, T0 + 5 * MIN])
  })

  test('a pruned last run is not running; a start that throws is a skipped fire; a failing backend leaves the row', async () => {
    const wf = fakeWorkflows()
    const f = firingOf(wf)
    const row = rowOf({ overlap: 'skip', lastRunId: 'wf_pruned' })
    await f.fireDue(row, T0 + MIN)
    expect(row.actions[0]).toMatchObject({ outcome: 'started' })

    wf.runs.get(row.lastRunId!)!.state = 'done'
    wf.failStart = new Error('database gone')
    await f.fireDue(row, T0 + 2 * MIN)
    expect(row.actions[1]).toMatchObject({ outcome: 'skipped', reason: 'SERVER_ERROR', message: 'database gone' })
    wf.failStart = undefined

    // The overlap check itself fails: the pass reports it and leaves the row as it was, the other rows go on.
    const store = new MemoryScheduleStore()
    await store.insert(rowOf({ id: 'bad', overlap: 'skip', lastRunId: 'wf_x' }), { maxCount: 10, maxBytes: 1e9, keys: ['a', 'b'] })
    await store.insert(rowOf({ id: 'good', uid: 'uid-2' }), { maxCount: 10, maxBytes: 1e9, keys: ['a', 'b'] })
    wf.failGet = new Error('read failed')
    const errors: unknown[] = []
    expect(await store.claimDue(T0 + MIN, 10, (r) => f.fireDue(r, T0 + MIN), (e) => errors.push(e))).toBe(1)
    expect(errors.map((e) => (e as Error).message)).toEqual(['read failed'])
    expect((await store.get('ops', 'bad'))!.nextAt).toBe(T0 + MIN)
    expect((await store.get('ops', 'good'))!.counts.started).toBe(1)
  })

  test('a pass handles at most 100 fires; the rest are due at once; 20 actions are kept', async () => {
    const wf = fakeWorkflows()
    const row = rowOf({ catchupWindowMs: 1000 * MIN })
    const now = T0 + 250 * MIN
    await firingOf(wf).fireDue(row, now)
    expect(row.counts.started).toBe(MAX_FIRES_PER_PASS)
    expect(row.dueAt! <= now).toBe(true)
    expect(row.actions.length).toBe(MAX_ACTIONS)
    await firingOf(wf).fireDue(row, now)
    await firingOf(wf).fireDue(row, now)
    expect(row.counts.started).toBe(250)
    expect(row.dueAt).toBe(T0 + 251 * MIN)
  })

  test('a long outage: missed fires are counted up to a bound and the rest skipped in one step', async () => {
    const row = rowOf({ catchupWindowMs: 5 * MIN })
    const now = T0 + 20_000 * MIN
    await firingOf(fakeWorkflows()).fireDue(row, now)
    const missed = row.actions.find((a) => a.reason === 'catchupWindow')!
    expect(missed.message).toMatch(/^10000 and more fires/)
    expect(row.counts.started).toBe(6) // the fires within five minutes of now, both ends included
    expect(row.nextAt).toBe(now + MIN)
  })
})
