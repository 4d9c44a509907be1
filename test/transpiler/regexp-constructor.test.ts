/**
 * `new RegExp(pattern, flags)` and `RegExp(...)`: a pattern built at run time (the VM's global RegExp,
 * src/vm/builtins/globals.ts), guarded as a literal is; side by side with JavaScript.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/index.ts'
import { type Program, testSideBySide } from './differential/harness.ts'

const ARGS = { s: 'a.b 12-34 A.B a.bc x+y', term: 'a.b', words: ['x+y', 'b'] }
const P = (name: string, body: string): Program => ({ name, source: `function main({ s, term, words }) {\n${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('escaped-user-term', "const esc = term.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&')\nconst re = new RegExp(`\\\\b${esc}\\\\b`, 'gi')\nreturn [(s.match(re) || []).length, s.replace(re, '[$&]'), re.source, re.flags]"),
  P('without-new-and-without-flags', "const re = RegExp('(\\\\d+)-(\\\\d+)')\nconst m = s.match(re)\nreturn [m[1], m[2], m.index, re.test('1-2'), re.flags]"),
  P('copy-with-new-flags', "const re = /a\\.b/i\nconst all = new RegExp(re, 'gi')\nconst same = new RegExp(re)\nreturn [s.match(all), same.flags, all.flags, same.source === re.source]"),
  P('alternation-of-words', "const esc = (w) => w.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&')\nconst re = new RegExp(words.map(esc).join('|'), 'g')\nreturn s.replace(re, (m) => m.toUpperCase())"),
  P('a-number-and-undefined-as-patterns', "return [new RegExp(12).test(s), new RegExp().source, new RegExp(undefined, 'g').flags, String(new RegExp('a/b'))]"),
  P('split-and-matchAll', "const sep = new RegExp('[ -]')\nconst re = new RegExp('\\\\d', 'g')\nreturn [s.split(sep), [...s.matchAll(re)].map((m) => m[0])]"),
  P('invalid-pattern-throws-a-catchable-error', "try { new RegExp('(') } catch (e) { return 'caught' }\nreturn 'not'"),
]

describe('new RegExp(pattern, flags) builds a guarded regex at run time', () => {
  testSideBySide(PROGRAMS, AgentVM)

  const run = (body: string, args: Record<string, unknown> = {}, fuel = 1e6) =>
    new AgentVM().run(transpile(`function main({ p, n }) {\n${body}\n}`).ast, args, { fuel })

  test('an exponential pattern runs on the linear engine, in bounded time', async () => {
    const r = await run("return new RegExp(p).test('a'.repeat(n) + '!')", { p: '^(a+)+$', n: 5000 })
    expect(r.error).toBeUndefined()
    expect(r.result).toBe(false)
  })

  test('a pattern no engine can bound is REGEX_UNSAFE, catchable', async () => {
    const r = await run('try { new RegExp(p) } catch (e) { return e.message }\nreturn new RegExp(p)', { p: '(a*)*\\1$', n: 0 })
    expect(r.result).toContain('(a*)*')
    const thrown = await run('return new RegExp(p)', { p: '(a*)*\\1$', n: 0 })
    expect(thrown.error?.code).toBe('REGEX_UNSAFE')
  })

  test('each pattern built is paid per character', async () => {
    const short = await run('for (let i = 0; i < 50; i++) new RegExp(p)\nreturn 1', { p: 'a', n: 0 })
    const long = await run('for (let i = 0; i < 50; i++) new RegExp(p)\nreturn 1', { p: 'a'.repeat(900), n: 0 })
    expect(long.error).toBeUndefined()
    expect(long.fuelUsed - short.fuelUsed).toBeGreaterThan(short.fuelUsed)
  })
})
