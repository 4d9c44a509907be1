/**
 * Date.parse of an ISO date and time without a zone is UTC on every host (JavaScript reads it in
 * the host's time zone, so a program's numbers, and a replayed workflow's branches, moved with TZ).
 * Each case runs in a child process per time zone (TZ is read when the process starts).
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '../..')
const CHILD = `
import { AgentVM } from '${join(ROOT, 'src/vm/index.ts')}'
import { transpile } from '${join(ROOT, 'src/transpiler/index.ts')}'
const texts = JSON.parse(process.argv[1])
const { ast } = transpile('function f({ texts }) { return texts.map((t) => Date.parse(t)) }')
const r = await new AgentVM().run(ast, { texts })
console.log(JSON.stringify({ vm: r.result, host: texts.map((t) => Date.parse(t)) }))
`
const TEXTS = ['2024-03-07T10:00', '2024-03-07 10:00:30', '2024-03-07T10:00:00.5', '2024-03-07T10:00Z', '2024-03-07T10:00+02:00', '2024-03-07', 'March 7, 2024 10:00 UTC', 'not a date']
const UTC = [Date.UTC(2024, 2, 7, 10), Date.UTC(2024, 2, 7, 10, 0, 30), Date.UTC(2024, 2, 7, 10, 0, 0, 500), Date.UTC(2024, 2, 7, 10), Date.UTC(2024, 2, 7, 8), Date.UTC(2024, 2, 7), Date.UTC(2024, 2, 7, 10), null]

function inZone(tz: string): { vm: Array<number | null>; host: number[] } {
  const r = spawnSync(process.execPath, ['--eval', CHILD, JSON.stringify(TEXTS)], { env: { ...process.env, TZ: tz }, encoding: 'utf8', timeout: 20_000 })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!)
}

describe('Date.parse is the same on every host', () => {
  for (const tz of ['UTC', 'Asia/Tokyo', 'America/New_York']) {
    test(`TZ=${tz}`, () => {
      const { vm, host } = inZone(tz)
      expect(vm).toEqual(UTC) // NaN leaves the VM as null
      if (tz === 'Asia/Tokyo') expect(host[0]).toBe(UTC[0]! - 9 * 3600_000) // the host's own reading moved: the case is real
    })
  }
})
