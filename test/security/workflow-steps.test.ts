/**
 * Hardening round 3, class 2 (issues 23 and 24): a workflow step's guest code runs in a workflow
 * thread, never on the server's event loop. One tenant's CPU-heavy steps (10^9 fuel each) run while
 * another tenant's /healthz, runs and workflow steps keep answering, with nothing lost; a step past
 * its tenant's time limit is stopped in its thread without touching the other workflows it holds;
 * host code the VM cannot interrupt has its thread terminated, and that thread's other workflows
 * replay once and go on. The server runs in a child process
 * (workflow-steps-child.ts) bounded in time and memory.
 */
import { expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

const CHILD = join(import.meta.dir, 'workflow-steps-child.ts')
/** The child's peak RSS: the server, its pool thread, its workflow thread and the programs. */
const RSS_BOUND_MIB = 1024
/** A generous bound on /healthz while another tenant's steps burn CPU (a loaded CI machine; a step blocked the event loop for ~1 s before). */
const HEALTHZ_BOUND_MS = 500

test('a CPU-heavy workflow step of one tenant stalls neither /healthz nor another tenant; time limits stop only the step that overran', () => {
  const out = spawnSync(process.execPath, [CHILD], { encoding: 'utf8', timeout: 150_000 })
  const line = out.stdout.trim().split('\n').at(-1) ?? ''
  if (out.status !== 0 || !line.startsWith('{')) throw new Error(`child failed (status ${out.status}, ${out.error ?? ''}): ${out.stderr.slice(-3000)}`)
  const r = JSON.parse(line)
  // Every /healthz answered (200), within the bound; every run of the other tenant answered correctly.
  expect(r.healthz.length).toBeGreaterThan(5)
  expect(r.healthz.every((ms: number) => ms >= 0)).toBe(true)
  expect(Math.max(...r.healthz)).toBeLessThan(HEALTHZ_BOUND_MS)
  expect(r.runs).toEqual(r.runs.map((_: unknown, i: number) => i * 10))
  // Both workflows finished with the right results: the hog's (two heavy steps) and the other tenant's.
  expect(r.hog).toEqual({ state: 'done', result: 14520 })
  expect(r.good).toEqual({ state: 'done', result: 42 })
  // Past its 300 ms limit, the endless loop was stopped (TIMEOUT, journaled as the run's end) ...
  expect(r.capped.state).toBe('failed')
  expect(r.capped.error.cause.code).toBe('TIMEOUT')
  expect(r.capped.last).toMatchObject({ t: 'end', error: { code: 'TIMEOUT' } })
  // ... in its thread: no thread was terminated, and the other workflow live there went on without a replay.
  expect(r.recycled).toBe(0)
  expect(r.keeper).toEqual({ state: 'done', result: 'kept', misses: 0, hits: 1 })
  // Host code the VM cannot interrupt: its thread was terminated after the grace period; the step failed TIMEOUT
  // (journaled), the workflow live beside it replayed once and went on, and /metrics counts the recycled thread.
  expect(r.spin).toEqual({ state: 'failed', cause: 'TIMEOUT', last: 'TIMEOUT', recycled: 1 })
  expect(r.bystander).toEqual({ state: 'done', result: 'went on', misses: 1 })
  expect(r.recycledGauge).toBe(1)
  // A terminated thread: its workflow replayed once, then was live again.
  expect(r.phoenix).toEqual({ state: 'done', result: 3, misses: 1, hits: 1 })
  expect(r.peakRssMiB).toBeLessThan(RSS_BOUND_MIB)
  console.log(`healthz during the heavy steps: max ${Math.max(...r.healthz).toFixed(1)} ms over ${r.healthz.length} answers; peak RSS ${r.peakRssMiB} MiB`)
}, 160_000)
