/**
 * Linear cost when a workflow's steps alternate between two processes (two
 * `ajsc worker`s taking its jobs in turn): here two hosts, each with its own
 * workflow threads and live executions, drive one workflow over one store.
 * A step that finds its live execution behind (the other process ran the
 * step before) replays only the entries written since, so over the
 * workflow's life each process replays each entry at most once (counted,
 * not timed), and the outcome is the one a single process gives.
 */
import { afterAll, expect, test } from 'bun:test'
import { createHost, parseServeConfig, tokenSha256, type Host } from '../../src/server/index.ts'
import { LiveRuns, WorkflowDriver, WorkflowService, workflowStepStats } from '../../src/server/workflows.ts'
import { MemoryWorkflowStore } from '../../src/server/stores/workflows.ts'

const config = parseServeConfig({ tenants: [{ id: 'ops', tokenSha256: tokenSha256('ops-token') }] })
const hosts: Host[] = []
afterAll(async () => { await Promise.all(hosts.map((h) => h.close())) })

const STEPS = 40
const SOURCE = `
let sum = 0
for (let i = 0; i < ${STEPS}; i++) {
  log('step ' + i)
  sum += await agent('step ' + i, { external: true })
  if (i === 20) sum += (await signal('bonus')).add
}
export default sum
`

/** Drive one workflow to its end with `drivers` taking its steps in turn; the HTTP side answers each request. */
async function run(drivers: WorkflowDriver[], store: MemoryWorkflowStore): Promise<{ result: unknown; journal: number }> {
  const service = new WorkflowService(store)
  const { id } = await service.start('ops', { source: SOURCE }) as { id: string }
  for (let s = 0; s < 3 * STEPS; s++) {
    await drivers[s % drivers.length]!.step(id)
    const wf = await service.get('ops', id) as { state: string; result?: unknown; requests: Array<{ id: string }> }
    if (wf.state === 'done') return { result: wf.result, journal: (await store.journal.read(id)).length }
    expect(wf.state).toBe('waiting')
    if (wf.requests.length === 0) await service.signal('ops', id, { name: 'bonus', value: { add: 1000 } })
    else await service.resolve('ops', id, wf.requests[0]!.id, s)
  }
  throw new Error('the workflow did not end')
}

const newStats = (): typeof workflowStepStats => ({ hits: 0, misses: 0, caughtUp: 0, replayedEntries: 0, maxLive: 256 })

test('steps alternating between two processes: each replays every entry at most once; the result is one process\'s', async () => {
  hosts.push(createHost({ config, pool: { size: 1 } }), createHost({ config, pool: { size: 1 } }))
  const single = newStats()
  const soloStore = new MemoryWorkflowStore(async () => {})
  const solo = await run([new WorkflowDriver(hosts[0]!, soloStore, new LiveRuns(single))], soloStore)
  expect(single.misses).toBe(1) // its first step opens the run from the start entry; every other step continues it

  const store = new MemoryWorkflowStore(async () => {})
  const stats = [newStats(), newStats()]
  const drivers = stats.map((st, i) => new WorkflowDriver(hosts[i]!, store, new LiveRuns(st)))
  const both = await run(drivers, store)
  expect(both.result).toEqual(solo.result)
  expect(both.journal).toBe(solo.journal)
  for (const st of stats) {
    // One replay (its first step), then catch-ups: never the whole journal again.
    expect(st.misses).toBe(1)
    expect(st.caughtUp).toBeGreaterThanOrEqual(STEPS / 2 - 2)
    expect(st.replayedEntries).toBeLessThanOrEqual(both.journal)
  }
  // Together about the journal once (each entry is written by one process and replayed by the other), not its square.
  expect(stats[0]!.replayedEntries + stats[1]!.replayedEntries).toBeLessThanOrEqual(both.journal + STEPS)
})
