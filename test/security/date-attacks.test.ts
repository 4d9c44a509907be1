/**
 * Attacks on the Date statics (src/vm/builtins/dates.ts): making an Intl.DateTimeFormat takes 0.13-0.4 ms
 * in Node (the locale's data, the zone's rules), and the process keeps only 16 formatters, so a program
 * naming 20 zones or locales in turn made one on every call, for the 0.01 fuel of a cached one.
 */
import { describe, expect, test } from 'bun:test'
import { runBody } from './helpers.ts'

const ZONES = ['UTC', 'America/New_York', 'Europe/Paris', 'Asia/Tokyo', 'Europe/London', 'America/Chicago', 'Asia/Kolkata', 'Australia/Sydney', 'Africa/Cairo', 'America/Sao_Paulo',
  'Europe/Berlin', 'Asia/Shanghai', 'America/Denver', 'Pacific/Auckland', 'Asia/Dubai', 'Europe/Moscow', 'America/Los_Angeles', 'Asia/Singapore', 'Europe/Madrid', 'America/Toronto']

const loop = (n: number, call: string) => `const zs = ${JSON.stringify(ZONES)}\nlet s = 0\nfor (let i = 0; i < ${n}; i++) s += ${call}.length\nreturn s`
const fuel = async (body: string) => {
  const r = await runBody(body, { fuel: 10_000 })
  expect(r.error).toBeUndefined()
  return r.fuelUsed
}

describe('a new date format is paid as making a formatter, the first time a run names it', () => {
  for (const call of ["Date.toLocaleString(i * 1000, 'en', { timeZone: zs[i % 20] })", "Date.toLocaleDateString(i, 'en', { timeZone: zs[i % 20], dateStyle: 'full' })",
    "Date.toLocaleTimeString(i, [zs[i % 20] === 'UTC' ? 'de' : 'en'], { timeZone: zs[i % 20] })", "Date.intlFormat(i, 'en', { timeZone: zs[i % 20] })"]) {
    test(call, async () => {
      // 40 calls over 20 formats: a run that named more than 8 pays on every call (3 fuel: 300,000 characters' scan).
      const rotating = await fuel(loop(40, call))
      const one = await fuel(loop(40, call.replaceAll('i % 20', 'i % 1')))
      expect(rotating - one).toBeCloseTo(39 * 3, 0)
      // The fuel is the run's own: the same again (every formatter now cached in the process) costs the same.
      expect(await fuel(loop(40, call))).toBe(rotating)
    })
  }

  test('up to 8 formats are paid once each', async () => {
    const some = await fuel(loop(40, "Date.toLocaleString(i, 'en', { timeZone: zs[i % 8] })"))
    const one = await fuel(loop(40, "Date.toLocaleString(i, 'en', { timeZone: zs[i % 1] })"))
    expect(some - one).toBeCloseTo(7 * 3, 0)
  })

  test('options too large are refused before anything is paid or made', async () => {
    const r = await runBody("return Date.toLocaleString(0, 'en', { timeZone: 'UTC', a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8 })", { fuel: 1 })
    expect(r.error?.code).toBe('RANGE_ERROR')
    expect(r.fuelUsed).toBeLessThan(1)
  })
})
