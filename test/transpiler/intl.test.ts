/**
 * `new Intl.NumberFormat(...).format(x)` and `new Intl.DateTimeFormat(...).format(d)` written in place
 * (src/transpiler/lower/intl.ts) or kept in a variable (lower/intl-vars.ts), and `crypto.randomUUID()`
 * (lower/random-uuid.ts): JavaScript's text, run side by side with JavaScript in UTC. A formatter made in
 * place with arguments whose order could show is refused (AJS2047), a kept one handed on is AJS2058.
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
  // Kept in a variable, as models write it to format a list.
  P('kept-currency', "const fmt = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })\nreturn [total, 3, 0.5].map((x) => fmt.format(x))"),
  P('kept-let-and-defaults', "let plain = new Intl.NumberFormat()\nconst local = new Intl.NumberFormat(locale)\nconst whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 })\nreturn [plain.format(total), local.format(total), whole.format(total), plain.format('7')]"),
  P('kept-date', "const long = new Intl.DateTimeFormat('en-US', { dateStyle: 'full', timeStyle: 'short' })\nconst d = new Date(iso)\nconst gb = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', hour: 'numeric' })\nreturn [long.format(d), long.format(ms), gb.format(d)]"),
  P('kept-args-any-expression', "const pick = () => locale\nconst fmt = new Intl.NumberFormat(pick(), { style: 'percent', maximumFractionDigits: [1, 2][1] })\nreturn fmt.format(total / 10000)"),
  P('kept-options-copied', "const opts = { style: 'percent' }\nconst fmt = new Intl.NumberFormat('en', opts)\nopts.style = 'decimal'\nreturn [fmt.format(0.25), new Intl.NumberFormat('en', opts).format(0.25)]"),
  P('kept-in-loop-and-callback', "const out = []\nfor (const l of ['en-US', 'de-DE', 'fr-FR']) {\n  const fmt = new Intl.NumberFormat(l, { style: 'currency', currency: 'EUR' })\n  out.push(fmt.format(total))\n}\nconst short = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric' })\nreturn [out, [iso, iso].map((t) => short.format(new Date(t)))]"),
  P('kept-read-by-local-function', "const fmt = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })\nconst day = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' })\nfunction line(x) { return day.format(new Date(iso)) + ': ' + fmt.format(x) }\nconst price = (x) => fmt.format(x * 2)\nreturn [line(total), [1, 2].map(price), [3].map((x) => line(x))]"),
  P('kept-format-as-callback', "const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })\nconst day = new Intl.DateTimeFormat('en-GB')\nfunction days(xs) { return xs.map(day.format) }\nreturn [[total, 3, '4'].map(money.format), days([ms, 0]), [1, 2].filter(money.format).length]"),
  P('kept-format-throws', "const fmt = new Intl.DateTimeFormat('en')\ntry { return fmt.format(new Date('nope')) } catch (e) { return e.name }"),
  P('random-uuid', "const id = crypto.randomUUID()\nreturn [typeof id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id), id === crypto.randomUUID()]"),
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

  test('a kept DateTimeFormat without an argument formats now too', async () => {
    const { ast } = transpile("function f() { const fmt = new Intl.DateTimeFormat('en-US', { dateStyle: 'short' })\nreturn fmt.format() }")
    expect((await new AgentVM().run(ast, {}, { now: () => Date.UTC(2030, 5, 1) })).result).toBe('6/1/30')
  })
})

describe('crypto.randomUUID() is the uuid atom', () => {
  test('it gives the run\'s ids (seeded and replayed where the run\'s uuid is)', async () => {
    const { ast } = transpile('function f() { return [crypto.randomUUID(), crypto.randomUUID(1)] }')
    let n = 0
    expect((await new AgentVM().run(ast, {}, { uuid: () => `id-${++n}` })).result).toEqual(['id-1', 'id-2'])
  })

  test('a crypto of the program is its own', async () => {
    const { ast } = transpile("function f() { const crypto = { randomUUID: 'mine' }\nreturn crypto.randomUUID }")
    expect((await new AgentVM().run(ast, {})).result).toBe('mine')
  })

  test('a function named uuid would hide the atom: AJS2059', () => {
    let err: unknown
    try { transpile('function uuid() { return 1 }\nfunction f() {\n  return crypto.randomUUID()\n}') } catch (e) { err = e }
    expect((err as TranspileError).code).toBe('AJS2059')
    expect((err as TranspileError).line).toBe(3)
  })
})

/** Each body, in `f` after `prelude`, is refused with `code` at or after its first line, the hint holding `rewrite`. */
function refused(code: string, prelude: string, bodies: string[], rewrite: string): void {
  for (const body of bodies) {
    test(body.replace(/\n/g, '; '), () => {
      let err: unknown
      try { transpile(`function pick(x) { return 'en' }\nfunction f() {\n${prelude}\n${body}\n}`) } catch (e) { err = e }
      expect(err).toBeInstanceOf(TranspileError)
      expect((err as TranspileError).code).toBe(code)
      expect((err as TranspileError).line).toBeGreaterThanOrEqual(4)
      expect((err as TranspileError).hint).toContain(rewrite)
    })
  }
}

describe('other Intl uses are refused, with the forms that work', () => {
  refused('AJS2047', '// other uses', [
    "const f = new Intl.NumberFormat('en-US')\nreturn f.formatToParts(1)",
    "const f = new Intl.NumberFormat(...['en-US'])\nreturn f.format(1)",
    "return new Intl.NumberFormat(pick()).format(1)",
    "return new Intl.Collator().compare('a', 'b')",
    "return new Intl.NumberFormat('en').formatToParts(1)",
  ], 'toLocaleString')
})

describe('a kept formatter handed on is refused, with the rewrite', () => {
  refused('AJS2058', "let fmt = new Intl.NumberFormat('en-US')", [
    'return fmt',
    'return typeof fmt',
    'return pick(fmt)',
    'return { fmt }',
    'const f = fmt.format\nreturn f(1)',
    'return [1].map(fmt.format.bind(fmt))',
    'return fmt === fmt',
    'fmt = new Intl.NumberFormat()\nreturn 1',
    'function show(f) { return f.format(1) }\nreturn show(fmt)',
  ], 'fmt.format(x)')
})
