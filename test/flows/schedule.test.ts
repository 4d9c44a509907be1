/** The fs flow store and FlowScheduler, driven by a fake clock. */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FlowScheduler, loadFlowStore, scheduleOf, type ScheduleLogEntry, type SchedulerClock, type StoredFlow } from '../../src/flows/schedule/index.ts'
import { parseSavedFlow, type FlowRunResult } from '../../src/flows/index.ts'

/** Timers fire in time order as the test advances the clock; promises settle between timers. */
class FakeClock implements SchedulerClock {
  private timers: Array<{ at: number; fn: () => void; id: number }> = []
  private ids = 0
  constructor(public time: number) {}
  now = () => this.time
  setTimeout = (fn: () => void, ms: number) => { const id = ++this.ids; this.timers.push({ at: this.time + ms, fn, id }); return id }
  clearTimeout = (id: unknown) => { this.timers = this.timers.filter((t) => t.id !== id) }
  async advance(ms: number): Promise<void> {
    const end = this.time + ms
    for (let guard = 0; guard < 10_000; guard++) {
      await flush()
      const next = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0]
      if (!next) break
      this.timers = this.timers.filter((t) => t !== next)
      this.time = next.at
      next.fn()
    }
    this.time = end
    await flush()
  }
}
const flush = async () => { for (let i = 0; i < 10; i++) await Promise.resolve() }

const flowWith = (id: string, entry: Record<string, unknown>, enabled = true) => ({
  id, name: id, created_at: 'c', updated_at: 'u', enabled,
  flow: { nodes: [{ id: 'e', node_type: 'entry', data: entry }], edges: [] },
})
const stored = (id: string, entry: Record<string, unknown>): StoredFlow => {
  const flow = parseSavedFlow(flowWith(id, entry))
  const schedule = scheduleOf(flow)
  if (Array.isArray(schedule)) throw new Error(JSON.stringify(schedule))
  return { file: `${id}.json`, flow, schedule }
}
const ok = (): Promise<FlowRunResult> => Promise.resolve({ result: null, fuelUsed: 1, events: [] })
const T0 = Date.parse('2026-01-01T00:07:30Z')

describe('FlowScheduler with a fake clock', () => {
  test('every N minutes / hours: on the grid from the start, first run one interval in', async () => {
    const clock = new FakeClock(T0)
    const runs: Array<[string, number]> = []
    const s = new FlowScheduler({
      clock, flows: [stored('half-hourly', { schedule_type: 'minutes', interval: 30 }), stored('daily', { schedule_type: 'hours', interval: 24 })],
      run: (f) => { runs.push([f.flow.id, clock.now() - T0]); return ok() },
    })
    s.start()
    await clock.advance(2 * 3_600_000)
    expect(runs).toEqual([1, 2, 3, 4].map((n) => ['half-hourly', n * 1_800_000]))
    await clock.advance(22 * 3_600_000)
    expect(runs.filter(([id]) => id === 'daily')).toEqual([['daily', 24 * 3_600_000]])
    expect(s.runCounts).toEqual({ 'half-hourly': 48, daily: 1 })
    await s.stop()
  })

  test('cron, six fields with seconds first, at the exact times croner computes', async () => {
    const clock = new FakeClock(T0)
    const at: string[] = []
    const s = new FlowScheduler({
      clock, timezone: 'UTC', flows: [stored('quarterly', { schedule_type: 'cron', cron: '0 */15 * * * *' })],
      run: () => { at.push(new Date(clock.now()).toISOString()); return ok() },
    })
    s.start()
    await clock.advance(53 * 60_000)
    expect(at).toEqual(['2026-01-01T00:15:00.000Z', '2026-01-01T00:30:00.000Z', '2026-01-01T00:45:00.000Z', '2026-01-01T01:00:00.000Z'])
    await s.stop()
  })

  test('manual flows never run by themselves; the log says so', async () => {
    const clock = new FakeClock(T0)
    const log: ScheduleLogEntry[] = []
    let runs = 0
    const s = new FlowScheduler({ clock, log: (e) => log.push(e), flows: [stored('by-hand', { schedule_type: 'manual' })], run: () => { runs++; return ok() } })
    s.start()
    await clock.advance(7 * 24 * 3_600_000)
    expect(runs).toBe(0)
    expect(log).toEqual([{ event: 'scheduled', at: T0, flow: 'by-hand', schedule: 'manual', next: null }])
  })

  test('a flow whose previous run is still active is skipped, and every run is logged', async () => {
    const clock = new FakeClock(T0)
    const log: ScheduleLogEntry[] = []
    const pending: Array<(r: FlowRunResult) => void> = []
    const s = new FlowScheduler({
      clock, log: (e) => log.push(e), flows: [stored('slow', { schedule_type: 'minutes', interval: 1 })],
      run: () => new Promise((resolve) => pending.push(resolve)),
    })
    s.start()
    await clock.advance(60_000)          // run 1 starts
    await clock.advance(60_000)          // still active: skipped
    pending[0]!({ result: null, fuelUsed: 2, events: [] })
    await clock.advance(60_000)          // run 2 starts
    pending[1]!({ result: null, fuelUsed: 0, events: [], error: { name: 'AgentError', code: 'TIMEOUT', message: 'too slow' } })
    await flush()
    expect(log.map((e) => `${e.event}@${(e.at - T0) / 60_000}`)).toEqual(['scheduled@0', 'started@1', 'skipped@2', 'completed@2', 'started@3', 'failed@3'])
    expect(log[5]).toMatchObject({ event: 'failed', code: 'TIMEOUT', run: 2 })
    await s.stop()
  })

  test('stop() disarms the timer and waits for runs in flight', async () => {
    const clock = new FakeClock(T0)
    let runs = 0
    const s = new FlowScheduler({ clock, flows: [stored('x', { schedule_type: 'minutes', interval: 5 })], run: () => { runs++; return ok() } })
    s.start()
    await clock.advance(5 * 60_000)
    await s.stop()
    await clock.advance(60 * 60_000)
    expect(runs).toBe(1)
  })
})

describe('the fs store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ajs-flow-store-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const put = (name: string, value: unknown) => writeFileSync(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value))
  put('every-hour.json', flowWith('every-hour', { schedule_type: 'hours', interval: 1 }))
  put('cron-flow.json', flowWith('cron-flow', { schedule_type: 'cron', cron: '0 0 8 * * *' }))
  put('off.json', flowWith('off', { schedule_type: 'hours', interval: 1 }, false))
  put('renamed.json', flowWith('other-id', { schedule_type: 'manual' }))
  put('five-fields.json', flowWith('five-fields', { schedule_type: 'cron', cron: '0 8 * * *' }))
  put('bad-cron.json', flowWith('bad-cron', { schedule_type: 'cron', cron: '0 0 99 * * *' }))
  put('no-interval.json', flowWith('no-interval', { schedule_type: 'minutes' }))
  put('broken.json', '{ nope')
  put('notes.txt', 'not a flow')

  test('loads enabled flows with their schedules and reports every other file', () => {
    const store = loadFlowStore(dir)
    expect(store.flows.map((f) => [f.flow.id, f.schedule])).toEqual([
      ['cron-flow', { type: 'cron', cron: '0 0 8 * * *' }],
      ['every-hour', { type: 'every', ms: 3_600_000, unit: 'hours', interval: 1 }],
    ])
    expect(store.disabled).toEqual(['off'])
    const rejected = Object.fromEntries(store.rejected.map((r) => [r.file.split('/').pop(), r.problems.map((p) => p.rule)]))
    expect(rejected).toEqual({
      'bad-cron.json': ['InvalidSchedule'], 'broken.json': ['ParseError'], 'five-fields.json': ['InvalidSchedule'],
      'no-interval.json': ['InvalidSchedule'], 'renamed.json': ['InvalidFlowId'],
    })
  })
})
