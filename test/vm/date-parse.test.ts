/**
 * Date.parse is the VM's own reader (src/vm/builtins/date-parse.ts), the same on every host: ISO text,
 * what Date's toString / toUTCString / toDateString print, RFC 2822 and a few written forms, a text
 * without a zone as UTC (JavaScript reads it in the host's time zone, and reads other texts with the
 * engine's own legacy parser, which differ). Every accepted text gives what V8 (node) gives under
 * TZ=UTC; every other text, out-of-range fields included, is NaN. The VM runs in a child process per
 * time zone (TZ is read when the process starts).
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'
import { SCAN_COST, fromUnits } from '../../src/vm/fuel.ts'

const ROOT = join(import.meta.dir, '../..')
const CHILD = `
import { AgentVM } from '${join(ROOT, 'src/vm/index.ts')}'
import { transpile } from '${join(ROOT, 'src/transpiler/index.ts')}'
const texts = JSON.parse(process.argv[1])
const { ast } = transpile('function f({ texts }) { return texts.map((t) => Date.parse(t)) }')
const r = await new AgentVM().run(ast, { texts })
console.log(JSON.stringify({ vm: r.result, host: texts.map((t) => Date.parse(t)) }))
`

const ACCEPTED = [
  // Date's toString (the zone name optional), toUTCString, toDateString
  'Fri Nov 27 2026 12:00:00 GMT+0000 (Coordinated Universal Time)', 'Fri Nov 27 2026 13:00:00 GMT+0100 (Central European Standard Time)',
  'Fri Nov 27 2026 06:30:00 GMT-0530', 'Fri Nov 27 2026 12:00:00 GMT+0000', 'Fri Nov 27 2026 GMT+0100', 'Fri, 27 Nov 2026 12:00:00 GMT',
  'Thu, 01 Jan 1970 00:00:00 GMT', 'Fri Nov 27 2026',
  // RFC 2822: weekday optional, numeric zones, GMT / UT / UTC / Z
  '27 Nov 2026 12:00:00 +0100', 'Fri, 27 Nov 2026 12:00 -0800', '27 Nov 2026 12:00:00 -0000', 'Fri, 27 Nov 2026 12:00:00 UT',
  '27 Nov 2026 12:00:00 UTC', '27 Nov 2026 12:00:00 Z', 'Nov 27, 2026 00:00:00 UT-0100', '27 Nov 2026 12:00:00', '27 Nov 2026',
  'Tue, 31 Dec 9999 23:59:59 +2359', 'Sat Jan 01 1000 00:00:00 GMT-2359',
  // written dates, names whole or of three letters, US order with slashes
  'Nov 27, 2026', 'November 27, 2026 10:30', 'November 27, 2026 9:05:07', 'Friday, November 27, 2026', '27 November 2026', 'May 1, 2026',
  'March 7, 2024 10:00 UTC', 'Nov 27 2026 10:00 GMT', 'Feb 29, 2024', 'Sep 30, 2026', 'Nov 27 2026 (a note)',
  '2026/11/27', '2026/11/27 10:30:00', '2026/1/5 10:30', '2026/11/27 10:30 +0200', '11/27/2026', '1/5/2026 23:59:59', '2/29/2024',
  // ISO (and its zone-less date-time as UTC)
  '2024-03-07T10:00', '2024-03-07 10:00:30', '2024-03-07T10:00:00.5', '2024-03-07T10:00Z', '2024-03-07T10:00+02:00', '2024-03-07',
  '2024-03', '2024', '2024-03-07T10:00:00.123456Z', '2024-03-07T10:00:00.999999+05:30', '2024-03-07 10:00Z', '2024-03-07T10:00:00-00:30',
  '0026-03-07T10:00Z', '0000-01-01', '9999-12-31T23:59:59.999Z',
]
/** Out-of-range fields (engines differ: V8 reads Feb 30 as Mar 2), other spellings, other formats. */
const REFUSED = [
  'Feb 30, 2026', '2/30/2026', '2026-02-30', '31 Apr 2026', 'Feb 29, 2025', '2026-13-01', '2026/13/01', '13/01/2026', '27/11/2026', '2026-00-10',
  'Nov 27, 2026 24:00', '2026-11-27T24:00', '2026-11-27T10:60', 'Nov 27 2026 10:00:60', 'Nov 27, 2026 GMT+2500', '27 Nov 2026 10:00 +0160',
  'nov 27, 2026', 'NOV 27 2026', 'Sept 27, 2026', 'Foo Nov 27 2026', 'Nov 27, 2026 10:30 AM', 'Nov 27, 26', 'Nov 27, 0999',
  '  2026-11-27', '2026-11-27 ', 'Nov 27 2026 ', '2026-11-27T10:00:00+0100', '+002026-11-27', '2026-11-27T10', '2024-03-07T10:00:00.Z',
  '1', '', 'not a date',
]
const TEXTS = [...ACCEPTED, ...REFUSED]

/** Date.parse of each text by node (V8) under TZ=UTC; NaN as null. */
function v8(texts: string[]): Array<number | null> {
  const r = spawnSync('node', ['--input-type=module', '--eval', 'console.log(JSON.stringify(JSON.parse(process.argv[1]).map((t) => Date.parse(t))))', JSON.stringify(texts)],
    { env: { ...process.env, TZ: 'UTC' }, encoding: 'utf8', timeout: 20_000 })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout)
}

function inZone(tz: string): { vm: Array<number | null>; host: Array<number | null> } {
  const r = spawnSync(process.execPath, ['--eval', CHILD, JSON.stringify(TEXTS)], { env: { ...process.env, TZ: tz }, encoding: 'utf8', timeout: 20_000 })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!)
}

describe('Date.parse is the same on every host', () => {
  const native = v8(TEXTS)
  const expected = [...native.slice(0, ACCEPTED.length), ...REFUSED.map(() => null)]

  test('V8 reads every accepted text, and gives a number for the out-of-range ones the VM refuses', () => {
    expect(ACCEPTED.filter((_, i) => native[i] === null)).toEqual([])
    expect(native[ACCEPTED.indexOf('Fri Nov 27 2026 12:00:00 GMT+0000 (Coordinated Universal Time)')]).toBe(Date.UTC(2026, 10, 27, 12))
    expect(native[ACCEPTED.indexOf('11/27/2026')]).toBe(Date.UTC(2026, 10, 27))
    expect(native[TEXTS.indexOf('Feb 30, 2026')]).toBe(Date.UTC(2026, 2, 2)) // where another engine may say NaN or Feb 28
  })

  for (const tz of ['UTC', 'Asia/Tokyo', 'America/New_York']) {
    test(`TZ=${tz}`, () => {
      const { vm, host } = inZone(tz)
      expect(TEXTS.map((t, i) => [t, vm[i]])).toEqual(TEXTS.map((t, i) => [t, expected[i]!])) // NaN leaves the VM as null
      // The host's own reading moved with the zone: the case is real.
      if (tz !== 'UTC') expect(host[ACCEPTED.indexOf('November 27, 2026 10:30')]).not.toBe(expected[ACCEPTED.indexOf('November 27, 2026 10:30')])
    })
  }
})

describe('Date.parse is charged by the length of its text', () => {
  const fuelOf = async (text: string) => {
    const { ast } = transpile('function f({ t }) { return Date.parse(t) }')
    const r = await new AgentVM().run(ast, { t: text })
    expect(r.result).toBeNaN()
    return r.fuelUsed
  }

  test('a long text costs SCAN_COST a character more than a short one (and is NaN)', async () => {
    const text = `Fri ${'A'.padEnd(100_000, 'a')} 27 2026` // the weekday's letters are scanned more than once: still linear
    expect(await fuelOf(text) - await fuelOf('x')).toBeCloseTo(fromUnits((text.length - 1) * SCAN_COST), 9)
  })
})
