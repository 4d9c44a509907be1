/**
 * `s.replace(pattern, callback)` and `replaceAll` (src/vm/builtins/replace-callback.ts): each replacement
 * from the callback, as JavaScript calls it; side by side with JavaScript.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM, defineAtom } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, testSideBySide } from './differential/harness.ts'

const ARGS = { s: 'the quick brown fox, the lazy dog', date: '2026-11-27', tpl: 'Hi {name}, you owe {amount}.', vars: { name: 'Ada', amount: 12.5 } }
const P = (name: string, body: string): Program => ({ name, source: `function main({ s, date, tpl, vars }) {\n${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('capitalize-words', 'return s.replace(/\\b\\w/g, (c) => c.toUpperCase())'),
  P('camel-case', "return 'get-user-by-id'.replace(/-(\\w)/g, (_, c) => c.toUpperCase())"),
  P('groups-offset-text', 'return date.replace(/(\\d+)-(\\d+)-(\\d+)/, (m, y, mo, d) => `${d}/${mo}/${y}`)'),
  P('template-fill', "return tpl.replace(/\\{(\\w+)\\}/g, (_, key) => key in vars ? String(vars[key]) : '?')"),
  P('first-only', "return s.replace(/the/, (m, offset) => m.toUpperCase() + offset)"),
  P('text-pattern', "return [s.replace('the', (m, at, all) => `${m}@${at}/${all.length}`), s.replaceAll('o', (m, at) => at)]"),
  P('empty-pattern', "return 'abc'.replaceAll('', (m, at) => `[${at}]`)"),
  P('value-read-as-text', "return ['a1b2'.replace(/\\d/g, (d) => Number(d) * 10), 'xy'.replace('x', () => null)]"),
  P('named-groups', "return 'v1.2'.replace(/(?<major>\\d)\\.(?<minor>\\d)/, (m, a, b, at) => `${b}.${a}@${at}`)"),
  P('callback-with-block-and-state', "let n = 0\nconst out = s.replaceAll(/o/g, (m) => { n++; return String(n) })\nreturn [out, n]"),
  P('non-global-replaceAll-throws', "try { return 'x'.replaceAll(/x/, () => 'y') } catch (e) { return e.name }"),
]

describe('replace with a callback gives JavaScript\'s text', () => {
  testSideBySide(PROGRAMS, AgentVM)

  test('the callback may call an atom; the calls run in order', async () => {
    const calls: string[] = []
    const upper = defineAtom('upper', { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, { type: 'string' }, async ({ text }: { text: string }) => { calls.push(text); return text.toUpperCase() })
    const { ast } = transpile('function f({ s }) { return s.replace(/[aeiou]/g, (v) => upper({ text: v })) }', { atoms: ['upper'] })
    const r = await new AgentVM([upper]).run(ast, { s: 'banana' })
    expect(r.result).toBe('bAnAnA')
    expect(calls).toEqual(['a', 'a', 'a'])
  })

  test('a callback of more than four parameters is refused (AJS2049)', () => {
    let err: unknown
    try { transpile("function f({ s }) { return s.replace(/(a)(b)(c)/, (m, a, b, c, at) => at) }") } catch (e) { err = e }
    expect(err).toBeInstanceOf(TranspileError)
    expect((err as TranspileError).code).toBe('AJS2049')
  })

  test('every match is paid for: a million matches end on fuel', async () => {
    const { ast } = transpile("function f({ s }) { return s.replace(/a/g, (m) => 'b').length }")
    const r = await new AgentVM().run(ast, { s: 'a'.repeat(1_000_000) }, { fuel: 1_000 })
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
  })
})
