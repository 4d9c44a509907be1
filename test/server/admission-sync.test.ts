/**
 * The per-run path without promises it does not need (issue 28): an admission with nothing to
 * reserve is granted synchronously and still takes and gives back its slot and counts the fuel
 * used, on the right UTC day (the day is formatted once a day, not per run); one with a daily
 * quota still reserves first. StopController calls listener objects (handleEvent) as EventTarget does.
 */
import { describe, expect, test } from 'bun:test'
import { parseServeConfig, tokenSha256 } from '../../src/server/config.ts'
import { HttpError } from '../../src/server/errors.ts'
import { MemoryUsageLedger, Tenants, type Admission } from '../../src/server/tenants.ts'
import { StopController } from '../../src/server/stop-signal.ts'

const config = parseServeConfig({
  tenants: [
    { id: 'free', tokenSha256: tokenSha256('tok-free'), limits: { concurrentRuns: 1, fuelPerRun: 500 } },
    { id: 'daily', tokenSha256: tokenSha256('tok-daily'), limits: { concurrentRuns: 4, fuelPerRun: 500, fuelPerDay: 700 } },
  ],
})

describe('admission', () => {
  test('no daily quota: granted at once, one slot, usage counted on the day of the run', async () => {
    let now = Date.UTC(2026, 10, 27, 23, 59, 59, 500)
    const adds: Array<[string, number]> = []
    const ledger = new (class extends MemoryUsageLedger {
      override add(tenant: string, day: string, fuel: number): void {
        adds.push([day, fuel])
        super.add(tenant, day, fuel)
      }
    })()
    const tenants = new Tenants(config, ledger, () => now)
    const free = tenants.get('free')!
    const first = tenants.admit(free, { fuel: 10_000 })
    expect(first instanceof Promise).toBe(false)
    const a = first as Admission
    expect(a.fuel).toBe(500)
    expect(free.inFlight).toBe(1)
    expect(() => tenants.admit(free, {})).toThrow(HttpError)
    await a.settle(120)
    await a.settle(120)
    expect(free.inFlight).toBe(0)
    expect(ledger.used('free', '2026-11-27')).toBe(120)
    // Past midnight: the next run's fuel counts against the new day.
    now += 1_000
    const b = tenants.admit(free, {}) as Admission
    await b.settle(30)
    expect(ledger.used('free', '2026-11-28')).toBe(30)
    // A clock set back a day is followed too.
    now -= 86_400_000
    const c = tenants.admit(free, {}) as Admission
    await c.settle(5)
    expect(adds).toEqual([['2026-11-27', 120], ['2026-11-28', 30], ['2026-11-27', 5]])
  })

  test('a daily quota: reserved first (a promise), refused once spent', async () => {
    const ledger = new MemoryUsageLedger()
    const tenants = new Tenants(config, ledger, () => Date.UTC(2026, 10, 27, 12))
    const daily = tenants.get('daily')!
    const pending = tenants.admit(daily, {})
    expect(pending instanceof Promise).toBe(true)
    const a = await pending
    expect(a.fuel).toBe(500)
    const b = await tenants.admit(daily, {})
    expect(b.fuel).toBe(200)
    await expect(Promise.resolve().then(() => tenants.admit(daily, {}))).rejects.toMatchObject({ code: 'FUEL_QUOTA_EXCEEDED' })
    expect(daily.inFlight).toBe(2)
    await a.settle(100)
    await b.settle(0)
    expect(daily.inFlight).toBe(0)
    expect(ledger.used('daily', '2026-11-27')).toBe(100)
  })
})

describe('StopController', () => {
  test('calls functions and handleEvent objects once; removed ones are not called', () => {
    const gone = new StopController()
    const calls: string[] = []
    const fn = () => calls.push('fn')
    const obj = { handleEvent: () => calls.push('obj') }
    const removed = { handleEvent: () => calls.push('removed') }
    gone.addEventListener('abort', fn)
    gone.addEventListener('abort', obj)
    gone.addEventListener('abort', removed)
    gone.removeEventListener('abort', removed)
    gone.abort()
    gone.abort()
    expect(calls).toEqual(['fn', 'obj'])
    expect(gone.signal.aborted).toBe(true)
  })
})
