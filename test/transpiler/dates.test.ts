/**
 * Dates (src/transpiler/lower/dates.ts, src/vm/builtins/dates.ts): `new Date(...)` and the Date methods
 * give JavaScript's results, run side by side with JavaScript on a host set to UTC (the VM's time zone on
 * every host); a Date used where AJS cannot keep it is refused, located, with the rewrite.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { compileWorkflow } from '../../src/workflows/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, normalize, runNative, testSideBySide } from './differential/harness.ts'

const ARGS = { iso: '2026-11-27T10:30:00.000Z', day: '2026-03-07', ms: 1795780800000, items: [{ at: '2026-01-02' }, { at: '2025-05-01T08:00:00Z' }, { at: '2027-01-01' }] }
const P = (name: string, body: string): Program => ({ name, source: `function main({ iso, day, ms, items }) {\n${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('iso-round-trip', 'return new Date(iso).toISOString()'),
  P('time-value', 'return [new Date(ms).getTime(), new Date(ms).valueOf(), +new Date(ms), Number(new Date(ms)), new Date(iso) - new Date(day)]'),
  P('fields', 'const d = new Date(iso)\nreturn [d.getFullYear(), d.getMonth(), d.getDate(), d.getDay(), d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds(), d.getTimezoneOffset()]'),
  P('utc-fields', 'const d = new Date(ms)\nreturn [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCDay(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()]'),
  P('from-fields', 'return [new Date(2026, 10, 27).getTime(), new Date(2026, 0, 31, 23, 59, 59, 999).toISOString(), new Date(99, 1).getFullYear(), new Date(2026, 13, 40).toISOString()]'),
  P('setters-return-and-assign', 'const d = new Date(iso)\nconst r = d.setDate(d.getDate() + 40)\nd.setHours(0, 0, 0, 0)\nreturn [r, d.toISOString(), d.getTime()]'),
  P('assigned-where-the-value-is-dropped', 'let d = new Date(0)\nfor (let i = 0; i < 3; i++, d = new Date(d.getTime() + 1000)) d = new Date(d.getTime() + 1), i > 5 || (d = new Date(d.getTime() * 2))\nreturn d.toISOString()'),
  P('a-copy-is-its-own', 'const d = new Date(iso)\nconst e = new Date(d)\ne.setTime(5)\nlet f = new Date(0)\nf = new Date(d)\nd.setTime(7)\nreturn [d.getTime(), e.getTime(), f.toISOString(), new Date(e, 1).getTime(), new Date(2020, e - e).getTime()]'),
  P('utc-setters', 'let d = new Date(0)\nd.setUTCFullYear(2030, 5, 15)\nd.setUTCMinutes(90)\nd.setUTCMonth(1, 29)\nd.setMilliseconds(1500)\nreturn d.toISOString()'),
  P('set-time', 'const d = new Date(iso)\nd.setTime(ms)\nreturn d.getTime()'),
  P('add-days', 'const start = new Date(day)\nconst end = new Date(start.getTime() + 7 * 24 * 60 * 60 * 1000)\nreturn end.toISOString().slice(0, 10)'),
  P('days-between', 'const a = new Date(day)\nconst b = new Date(iso)\nreturn Math.floor((b - a) / 86400000)'),
  P('sort-by-date', 'return items.toSorted((x, y) => new Date(y.at) - new Date(x.at)).map((x) => x.at)'),
  P('filter-after', 'const cutoff = new Date(day)\nreturn items.filter((x) => new Date(x.at) > cutoff).length'),
  P('compare', 'const a = new Date(day), b = new Date(iso)\nreturn [a < b, a > b, a <= a, b >= a, a.getTime() === new Date(day).getTime()]'),
  P('texts', 'const d = new Date(ms)\nreturn [d.toString(), d.toDateString(), d.toTimeString(), d.toUTCString(), d.toJSON(), `${d}`, String(d), d + \'!\']'),
  P('locale-texts', "const d = new Date(ms)\nreturn [d.toLocaleDateString(), d.toLocaleTimeString(), d.toLocaleString(), d.toLocaleDateString('en-US', { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }), d.toLocaleString('en-GB', { timeZone: 'Asia/Tokyo' }), d.toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' }), d.toLocaleDateString('de-DE', { dateStyle: 'full' })]"),
  P('invalid', "const d = new Date('not a date')\nreturn [isNaN(d), d.getTime(), d.getFullYear(), d.toString(), d.toJSON(), d.toUTCString(), isFinite(new Date(day))]"),
  P('invalid-iso-throws', "try { return new Date('nope').toISOString() } catch (e) { return e.name }"),
  P('clip', 'return [new Date(8.64e15).getTime(), new Date(8.64e15 + 1).getTime(), new Date(-0.5).getTime(), new Date(1.9).getTime()]'),
  P('other-arguments', "return [new Date(null).getTime(), new Date(true).getTime(), new Date(undefined).getTime(), new Date('2026').getTime(), new Date(String(ms)).getTime()]"),
  P('reassign', 'let d = new Date(day)\nif (ms > 0) { d = new Date(iso) }\nreturn d.toISOString()'),
  P('in-callbacks', 'const base = new Date(day)\nreturn [1, 2, 3].map((n) => { const d = new Date(base.getTime()); d.setDate(d.getDate() + n); return d.toISOString().slice(0, 10) })'),
  P('math', 'return [Math.max(new Date(day), new Date(iso)), Math.min(new Date(ms), new Date(0))]'),
  P('parsed-forms', "return [new Date('March 7, 2024').getDate(), new Date('2026/11/27').getMonth(), new Date('Fri, 27 Nov 2026 12:00:00 GMT').getHours()]"),
]

let tz: string | undefined
beforeAll(() => { tz = process.env.TZ; process.env.TZ = 'UTC' })
afterAll(() => { if (tz === undefined) delete process.env.TZ; else process.env.TZ = tz })

describe('a Date gives JavaScript\'s results (JavaScript on a host set to UTC)', () => {
  testSideBySide(PROGRAMS, AgentVM)

  test('the JavaScript side really ran in UTC (these tests would pass trivially otherwise)', () => {
    expect(new Date(0).getTimezoneOffset()).toBe(0)
    expect(normalize(runNative(P('hour', 'return new Date(0).getHours()')))).toEqual({ ok: true, value: 0 })
  })
})

describe('how a Date is lowered', () => {
  test('new Date(x) is Date.time(x); a method call is the static of that name; getTime is the time value itself', () => {
    const { ast } = transpile('function f({ s }) { const d = new Date(s); return [d.getTime(), d.getMonth()] }')
    const text = JSON.stringify(ast)
    expect(text).toContain('"object":{"$expr":"ident","name":"Date"},"method":"time"')
    expect(text).toContain('"method":"getMonth","args":[{"$expr":"ident","name":"d"}]')
    expect(text).not.toContain('"method":"getTime"')
  })

  test('a setter of a const Date assigns it its new time (the variable is a let in the AST)', () => {
    const { ast } = transpile('function f() { const d = new Date(0); d.setDate(2); return d.getTime() }')
    const text = JSON.stringify(ast)
    expect(text).toContain('"op":"varsLet"')
    expect(text).toContain('"$expr":"assign","op":"=","target":{"$expr":"ident","name":"d"},"value":{"$expr":"methodCall","object":{"$expr":"ident","name":"Date"},"method":"setDate"')
  })

  test('new Date() reads the run\'s clock (the `now` run option), as Date.now() does', async () => {
    const { ast } = transpile('function f() { const d = new Date(); return [d.toISOString(), Date.now() - d] }')
    const r = await new AgentVM().run(ast, {}, { now: () => Date.UTC(2030, 0, 2, 3, 4, 5) })
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual(['2030-01-02T03:04:05.000Z', 0])
  })
})

function refusal(source: string): { code: string; message: string; hint: string; line: number; column: number } {
  try {
    transpile(source)
  } catch (e) {
    if (!(e instanceof TranspileError)) throw e
    return { code: e.code, message: e.message, hint: e.hint, line: e.line, column: e.column }
  }
  throw new Error(`accepted: ${source}`)
}

describe('a Date where AJS would hold a number and JavaScript an object is refused, with the rewrite', () => {
  const fn = (body: string) => `function f({ s }) {\n${body}\n}`
  const cases: Array<[string, string, string, string]> = [
    ['returned', 'const d = new Date(s)\nreturn d', 'AJS2042', '`d.toISOString()`'],
    ['in an array', 'return [new Date(s)]', 'AJS2042', '`new Date(s).toISOString()`'],
    ['in an object', 'return { at: new Date(s) }', 'AJS2042', '.getTime()'],
    ['passed to a function', 'return JSON.stringify(new Date(s))', 'AJS2042', '.toISOString()'],
    ['compound assignment', 'let d = new Date(s)\nd += 1\nreturn 1', 'AJS2042', '`d.getTime()`'],
    ['another value assigned', 'let d = new Date(s)\nd = 5\nreturn 1', 'AJS2042', '`d.toISOString()`'],
    // An assignment's value is the Date (JavaScript returns the object, AJS held its time).
    ['an assignment read as a value', 'let d = new Date(s)\nreturn (d = new Date(5))', 'AJS2042', '.toISOString()'],
    // Two names for one Date in JavaScript: a setter through one changes the other (AJS would hold two times).
    ['another Date variable declared with it', 'const d = new Date(s)\nconst e = d\ne.setTime(5)\nreturn d.getTime()', 'AJS2042', '`new Date(d)`'],
    ['another Date variable assigned it', 'let d = new Date(s), e = new Date(0)\ne = d\nd.setTime(7)\nreturn e.getTime()', 'AJS2042', '`new Date(d)`'],
    ['an assignment in an array', 'let d = new Date(s)\nconst a = [d = new Date(5)]\nreturn a', 'AJS2042', '.getTime()'],
    ['typeof', 'const d = new Date(s)\nreturn typeof d', 'AJS2042', '`d.toISOString()`'],
    ['a property read', 'const d = new Date(s)\nreturn d.length', 'AJS2042', '`d.getTime()`'],
    ['identity', 'const a = new Date(s), b = new Date(s)\nreturn a === b', 'AJS2044', '`a.getTime() === b.getTime()`'],
    ['loose identity', 'const a = new Date(s)\nreturn a == 0', 'AJS2044', '`a.getTime() === 0`'],
    ['an unknown method', 'const d = new Date(s)\nreturn d.getFullYaer()', 'AJS2043', 'getFullYear'],
  ]
  for (const [what, body, code, hint] of cases) {
    test(what, () => {
      const r = refusal(fn(body))
      expect(r.code).toBe(code)
      expect(r.hint).toContain(hint)
      expect(r.line).toBeGreaterThan(1)
    })
  }

  test('a const Date is not reassigned (its setters are fine)', () => {
    expect(refusal(fn('const d = new Date(s)\nd = new Date(0)\nreturn 1')).code).toBe(refusal(fn('const d = 1\nd = 2\nreturn 1')).code)
  })

  test('a workflow refuses new Date() (it reads the clock) and accepts new Date(x) of a given time', () => {
    let code = ''
    try { compileWorkflow('const t = new Date().toISOString()') } catch (e) { code = (e as { code: string }).code }
    expect(code).toBe('AJS5006')
    expect(() => compileWorkflow('const t = new Date("2026-01-01").toISOString()\nexport default t')).not.toThrow()
  })
})

describe('a Date call is paid for', () => {
  test('a long text given to new Date is charged by its length before it is read', async () => {
    const vm = new AgentVM()
    const fuel = async (body: string) => (await vm.run(transpile(`function f({ s }) { return ${body} }`).ast, { s: '2026-11-27' + ' '.repeat(1_000_000) }, { fuel: 1e6 })).fuelUsed
    // 1,000,010 characters scanned at 0.00001 fuel each: 10 fuel more than reading the text's length.
    expect(await fuel('new Date(s).getTime()') - await fuel('s.length')).toBeCloseTo(10, 1)
  })

  test('toLocaleString\'s options are checked before Intl reads them', async () => {
    const { ast } = transpile('function f({ o }) { return new Date(0).toLocaleString("en", o) }')
    const r = await new AgentVM().run(ast, { o: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'x'])) }, { fuel: 1e6 })
    expect(r.error?.code).toBe('RANGE_ERROR')
  })
})
