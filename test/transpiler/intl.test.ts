/**
 * `new Intl.NumberFormat(...).format(x)` and `new Intl.DateTimeFormat(...).format(d)` written in place
 * (src/transpiler/lower/intl.ts): JavaScript's text, run side by side with JavaScript in UTC; a formatter
 * kept or made with arguments whose order could show is refused (AJS2047).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, testSideBySide } from './differential/harness.ts'

const ARGS = { total: 1234.5, ms: 1795780800000, locale: 'de-DE', iso: '2026-03-07T18:30:00Z' }
const P = (name: string, body: string): Program => ({ name, source: `function main({ total, ms, locale, iso }) {\n${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('currency', "return new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(total)"),
  P('defaults', 'return [new Intl.NumberFormat().format(total), new Intl.NumberFormat(locale).format(total), new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 }).format(total)]'),
  P('percent-and-units', "return [new Intl.NumberFormat('en', { style: 'percent' }).format(0.256), new Intl.NumberFormat('en', { style: 'unit', unit: 'kilometer-per-hour' }).format(50)]"),
  P('number-of-text', "return new Intl.NumberFormat('en').format('1234.5')"),
  P('date-defaults', "return [new Intl.DateTimeFormat('en-US').format(new Date(iso)), new Intl.DateTimeFormat('en-GB').format(ms), new Intl.DateTimeFormat().format(new Date(ms))]"),
  P('date-options', "const d = new Date(iso)\nreturn [new Intl.DateTimeFormat('en-US', { dateStyle: 'full', timeStyle: 'short' }).format(d), new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit' }).format(d), new Intl.DateTimeFormat('ja-JP', { timeZone: 'Asia/Tokyo', hour: 'numeric' }).format(d)]"),
  P('invalid-date', "try { return new Intl.DateTimeFormat('en').format(new Date('nope')) } catch (e) { return e.name }"),
]

let tz: string | undefined
beforeAll(() => { tz = process.env.TZ; process.env.TZ = 'UTC' })
afterAll(() => { if (tz === undefined) delete process.env.TZ; else process.env.TZ = tz })

describe('a formatter made and used in place gives JavaScript\'s text', () => {
  testSideBySide(PROGRAMS, AgentVM)

  test('without an argument DateTimeFormat formats now: the run\'s clock', async () => {
    const { ast } = transpile("function f() { return new Intl.DateTimeFormat('en-US', { dateStyle: 'short' }).format() }")
    expect((await new AgentVM().run(ast, {}, { now: () => Date.UTC(2030, 5, 1) })).result).toBe('6/1/30')
  })
})

describe('other Intl uses are refused, with the forms that work', () => {
  const cases = [
    "const f = new Intl.NumberFormat('en-US')\nreturn f.format(1)",
    "return new Intl.NumberFormat(pick()).format(1)",
    "return new Intl.Collator().compare('a', 'b')",
    "return new Intl.NumberFormat('en').formatToParts(1)",
  ]
  for (const body of cases) {
    test(body.split('\n').pop()!, () => {
      let err: unknown
      try { transpile(`function pick() { return 'en' }\nfunction f() {\n${body}\n}`) } catch (e) { err = e }
      expect(err).toBeInstanceOf(TranspileError)
      expect((err as TranspileError).code).toBe('AJS2047')
      expect((err as TranspileError).hint).toContain('toLocaleString')
    })
  }
})
