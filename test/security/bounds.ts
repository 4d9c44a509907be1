/**
 * Bounded-outcome checks of the hardening suite (issue 12): every case
 * states the error code (or result) it must end with, the most fuel it may
 * use (a factor of the work it asked for), and it must end within its
 * deadline plus a small margin. Memory is measured separately, as RSS in a
 * child process (rss.test.ts).
 */
import { expect } from 'bun:test'
import type { RunOptions, RunResult } from '../../src/index.ts'
import { expectHostUnchanged, runBody, snapshotHost, vm } from './helpers.ts'

/** Wall-time slack over a run's deadline (one bounded native call, a loaded CI machine). */
export const DEADLINE_MARGIN_MS = 400

export interface BoundedCase {
  name?: string
  /** Body of `function main()` (AJS source), or a whole AST/source given to `vm.run`. */
  body?: string
  program?: unknown
  args?: Record<string, unknown>
  options?: RunOptions
  expect: { code: string } | { result: unknown }
  /** Most fuel the run may report (default: the budget). */
  maxFuel?: number
}

// A generous deadline by default: the outcome (code, fuel) must not depend on how loaded the machine is.
const DEFAULTS: RunOptions = { fuel: 1_000, timeoutMs: 5_000 }

/** Run a case and assert its bounded outcome; returns the result for extra checks. */
export async function bounded(c: BoundedCase): Promise<RunResult> {
  const options = { ...DEFAULTS, ...c.options }
  const before = snapshotHost()
  const started = performance.now()
  const r = c.program !== undefined ? await vm.run(c.program, c.args ?? {}, options) : await runBody(c.body!, options, c.args)
  const ms = performance.now() - started
  if ('code' in c.expect) {
    expect({ code: r.error?.code, message: r.error?.message }).toMatchObject({ code: c.expect.code })
  } else {
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual(c.expect.result)
  }
  expect(r.fuelUsed).toBeLessThanOrEqual(c.maxFuel ?? options.fuel!)
  expect(ms).toBeLessThan(options.timeoutMs! + DEADLINE_MARGIN_MS)
  expectHostUnchanged(before)
  return r
}
