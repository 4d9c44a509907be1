/**
 * The firing loop (src/server/schedules/loop.ts) on a clock whose timers the test fires: one timer armed
 * at a time, every pollMs, armed again after each pass; a pass asked for while one runs joins it; a pass
 * that fails is reported and the loop goes on; stop clears the timer and waits for the pass.
 */
import { expect, test } from 'bun:test'
import { ScheduleLoop } from '../../src/server/schedules/loop.ts'
import type { ScheduleService } from '../../src/server/schedules/service.ts'

test('the loop arms one timer, passes, arms again; passes join; failures are reported; stop ends it', async () => {
  const timers: Array<{ fn: () => void; ms: number; cleared: boolean }> = []
  const clock = {
    now: () => 0,
    setTimeout: (fn: () => void, ms: number) => { timers.push({ fn, ms, cleared: false }); return timers.length - 1 },
    clearTimeout: (h: unknown) => { timers[h as number]!.cleared = true },
  }
  let release: (() => void) | undefined
  let passes = 0
  let fail = false
  const service = {
    runDue: () => {
      passes++
      if (fail) return Promise.reject(new Error('store down'))
      return new Promise<number>((r) => { release = () => r(1) })
    },
  } as unknown as ScheduleService
  const errors: unknown[] = []
  const loop = new ScheduleLoop(service, clock, 250, (e) => errors.push(e))
  loop.start()
  loop.start() // once
  expect(timers.map((t) => t.ms)).toEqual([250])

  timers[0]!.fn() // the timer fires: a pass starts
  const joined = loop.pass() // asked for meanwhile: the same pass
  expect(passes).toBe(1)
  release!()
  expect(await joined).toBe(1)
  await Bun.sleep(0)
  expect(timers.length).toBe(2) // armed again after the pass

  fail = true
  timers[1]!.fn()
  await Bun.sleep(0)
  await Bun.sleep(0)
  expect(errors.map((e) => (e as Error).message)).toEqual(['store down'])
  expect(timers.length).toBe(3) // a failed pass does not stop the loop

  await loop.stop()
  expect(timers[2]!.cleared).toBe(true)
})
