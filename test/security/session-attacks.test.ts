/**
 * Attacks on what the VM changed in one session (array holes in callbacks, sort comparators read
 * with ToNumber, for...in skipping deleted keys, number toLocaleString through Intl, Date.parse's
 * own reader, `in` answering for inherited names, the rethrow memory, Object.is), each written as a
 * hostile tenant would and held to the suite's bounds (bounds.ts: code or result, fuel, deadline
 * plus margin, host unchanged). A case that hangs the host shows as this file's test timeout.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AgentVM, transpile } from '../../src/index.ts'
import { bounded, type BoundedCase } from './bounds.ts'
import { DAG } from './helpers.ts'

/** A sparse array of `n` (one element at the end), paid once (a slot each). */
const SPARSE = (n: number) => `const a = []\na[${n - 1}] = 1\n`

const HOLE_METHODS = ['filter((x) => true)', 'forEach((x) => x)', 'some((x) => false)', 'every((x) => true)', 'reduce((x, y) => y)',
  'reduceRight((x, y) => y)', 'reduce((x, y) => y, 0)', 'flatMap((x) => x)', 'map((x) => x)', 'sort((x, y) => 0)', 'findLast((x) => false)']

/** Skipped holes are work no callback pays for: a million of them a call, in a loop. */
const HOLES: BoundedCase[] = [
  ...HOLE_METHODS.map((m): BoundedCase => ({
    name: `${m} over a million holes, in a loop, runs out of fuel`,
    body: `${SPARSE(1e6)}while (true) { a.${m} }\nreturn 1`, options: { fuel: 300 }, expect: { code: 'FUEL_EXHAUSTED' },
  })),
  ...['filter((x) => true)', 'reduce((x, y) => y)', 'sort((x, y) => 0)'].map((m): BoundedCase => ({
    name: `${m} over four million holes meets the deadline with a huge budget`,
    body: `${SPARSE(4e6)}while (true) { a.${m} }\nreturn 1`, options: { fuel: 1e12, timeoutMs: 300 }, expect: { code: 'TIMEOUT' },
  })),
  {
    name: 'reduce of holes only, without an initial value, caught in a loop',
    body: 'const a = []\na.length = 1e6\nwhile (true) { try { a.reduce((x, y) => y) } catch (e) {} }\nreturn 1', options: { fuel: 300 }, expect: { code: 'FUEL_EXHAUSTED' },
  },
  {
    name: 'a comparator sort of a million undefineds (never compared), in a loop',
    body: 'const a = Array.from({ length: 1e6 })\nwhile (true) { a.sort((x, y) => 0) }\nreturn 1', options: { fuel: 300 }, expect: { code: 'FUEL_EXHAUSTED' },
  },
  {
    name: 'holes are still skipped as in JS',
    body: `${SPARSE(5)}a[1] = 2\nreturn [a.filter(() => true), a.reduce((x, y) => x + y), a.map((x) => x * 2).length, a.some((x) => x === undefined)]`,
    expect: { result: [[2, 1], 3, 5, false] },
  },
]

/** The comparator's result is read with ToNumber: a long text, an array, a deep or shared one. */
const COMPARATORS: BoundedCase[] = [
  {
    name: 'a comparator returning a text of 3M characters, in a loop',
    body: "const s = ' '.repeat(3e6) + '1'\nconst a = Array.from({ length: 100 }, (_, i) => i)\nwhile (true) { a.sort(() => s) }\nreturn 1",
    options: { fuel: 300 }, expect: { code: 'FUEL_EXHAUSTED' },
  },
  {
    name: 'a comparator returning an array holding a text of 3M characters, in a loop',
    body: "const s = [' '.repeat(3e6) + '1']\nconst a = Array.from({ length: 100 }, (_, i) => i)\nwhile (true) { a.sort(() => s) }\nreturn 1",
    options: { fuel: 300 }, expect: { code: 'FUEL_EXHAUSTED' },
  },
  {
    name: 'a comparator returning 2^40 shared paths',
    body: `${DAG(40)}return [3, 1, 2].sort(() => a)`, options: { fuel: 100 }, expect: { code: 'FUEL_EXHAUSTED' },
  },
  {
    name: 'a comparator returning an array nested 12,000 deep',
    body: 'let d = [1]\nfor (let i = 0; i < 12000; i++) d = [d]\nreturn [3, 1, 2].sort(() => d)', options: { fuel: 10_000 }, expect: { code: 'RANGE_ERROR' },
  },
  { name: 'a comparator returning text sorts as JS', body: "return [3, 1, 10, 2].sort((a, b) => String(a - b))", expect: { result: [1, 2, 3, 10] } },
]

/** for...in lists an object's keys before its first turn. */
const FOR_IN: BoundedCase[] = [
  {
    // Index keys: the engine makes a string of each every time (60 ms a loop here; the object cost 21 fuel).
    name: 'for...in over 100,000 keys that breaks at once, in a loop',
    body: "const o = Object.assign({}, Array.from({ length: 1e5 }))\nwhile (true) { for (const k in o) break }\nreturn 1",
    options: { fuel: 300 }, expect: { code: 'FUEL_EXHAUSTED' },
  },
  {
    name: 'for...in deleting every key on its first turn visits one',
    body: "const o = { a: 1, b: 2, c: 3 }\nconst seen = []\nfor (const k in o) { seen.push(k); for (const j of Object.keys(o)) delete o[j] }\nreturn seen",
    expect: { result: ['a'] },
  },
]

/** Number and array toLocaleString through Intl.NumberFormat: option sets, locale lists, the cache. */
const INTL: BoundedCase[] = [
  {
    name: 'locales given as an object of 100,000 keys, in a loop',
    body: "const o = Object.assign({}, Array.from({ length: 1e5 }))\nwhile (true) { try { (1).toLocaleString(o) } catch (e) {} }\nreturn 1",
    options: { fuel: 300 }, expect: { code: 'FUEL_EXHAUSTED' },
  },
  {
    name: 'locales given as an array of four million, in a loop',
    body: "const l = Array.from({ length: 4e6 })\nwhile (true) { try { 'a'.localeCompare('b', l) } catch (e) {} }\nreturn 1",
    options: { fuel: 600 }, expect: { code: 'FUEL_EXHAUSTED' },
  },
  { name: 'locales given as an array of a million', body: 'return (1).toLocaleString(Array.from({ length: 1e6 }))', options: { fuel: 300 }, expect: { code: 'RANGE_ERROR' }, maxFuel: 101 },
  {
    name: 'a new option set each call is paid each time',
    body: "let n = 0\nfor (let i = 0; ; i++) n += (1234.5).toLocaleString('en', { minimumFractionDigits: i % 100, notation: i % 2 ? 'compact' : 'engineering' }).length\nreturn n",
    options: { fuel: 30 }, expect: { code: 'FUEL_EXHAUSTED' },
  },
  {
    name: 'the longest output an option set allows is small and paid',
    body: "return [(1e308).toLocaleString('en', { minimumFractionDigits: 100 }).length, (-5e-324).toLocaleString('en', { maximumFractionDigits: 100, minimumIntegerDigits: 21 }).length]",
    expect: { result: [(1e308).toLocaleString('en', { minimumFractionDigits: 100 }).length, (-5e-324).toLocaleString('en', { maximumFractionDigits: 100, minimumIntegerDigits: 21 }).length] },
  },
  { name: 'an option past Intl\'s range is JS\'s RangeError', body: "return (1).toLocaleString('en', { maximumFractionDigits: 101 })", expect: { code: 'RANGE_ERROR' } },
  { name: 'a rounding increment', body: "return (1234.56).toLocaleString('en', { roundingIncrement: 5000, maximumFractionDigits: 4, minimumFractionDigits: 4 })", expect: { result: (1234.56).toLocaleString('en', { roundingIncrement: 5000, maximumFractionDigits: 4, minimumFractionDigits: 4 } as Intl.NumberFormatOptions) } },
  {
    name: 'an array of 2^40 shared paths formatted in a locale',
    body: `${DAG(40)}return a.toLocaleString('de')`, options: { fuel: 100 }, expect: { code: 'FUEL_EXHAUSTED' },
  },
  {
    name: 'a sparse array of a million formatted, in a loop',
    body: `${SPARSE(1e6)}while (true) { a.toLocaleString('en', { style: 'percent' }) }\nreturn 1`, options: { fuel: 300 }, expect: { code: 'FUEL_EXHAUSTED' },
  },
  {
    name: 'a numbering system from a locale extension',
    body: "return (1234.5).toLocaleString('ar-u-nu-arab')", expect: { result: (1234.5).toLocaleString('ar-u-nu-arab') },
  },
]

/** Date.parse reads guest text with two anchored expressions: linear, and paid before. */
const DATE_PARSE: BoundedCase[] = [
  ...["'A' + 'a'.repeat(1e6)", "'2026-01-01T10:00:00.' + '1'.repeat(1e6) + 'x'", "'Nov 27, 2026 (' + 'a'.repeat(1e6)", "'1'.repeat(1e6)", "'Nov 27, 2026 ' + ' '.repeat(1e6)"].map((t): BoundedCase => ({
    name: `Date.parse(${t}) in a loop`, body: `const s = ${t}\nwhile (true) { Date.parse(s) }\nreturn 1`, options: { fuel: 300 }, expect: { code: 'FUEL_EXHAUSTED' },
  })),
  { name: 'Date.parse of 2^40 shared paths', body: `${DAG(40)}return Date.parse(a)`, options: { fuel: 100 }, expect: { code: 'FUEL_EXHAUSTED' } },
]

/** `in`, Object.is and the rethrow memory give the guest nothing of the host. */
const OTHERS: BoundedCase[] = [
  {
    name: '`in` answers true for an inherited name, and the member stays unreadable',
    body: "const o = {}\nreturn ['toString' in o, o.toString, o['valueOf'], 'polluted' in o, 'map' in [], [].map, 'hasOwnProperty' in o]",
    expect: { result: [true, undefined, undefined, false, true, undefined, true] },
  },
  {
    name: '`in` with a forbidden name is refused, as reading it',
    body: "const o = {}\nconst k = 'constructor'\nreturn k in o", expect: { code: 'FORBIDDEN_NAME' },
  },
  { name: 'Object.is of 2^40 shared paths converts nothing', body: `${DAG(40)}return [Object.is(a, a), Object.is(a, [a]), Object.is(-0, 0), Object.is(NaN, 0 / 0)]`, options: { fuel: 10 }, expect: { result: [true, false, false, true] } },
]

for (const [family, cases] of [['holes', HOLES], ['sort comparators', COMPARATORS], ['for...in', FOR_IN], ['toLocaleString', INTL], ['Date.parse', DATE_PARSE], ['in, Object.is', OTHERS]] as const) {
  describe(family, () => {
    for (const c of cases) test(c.name ?? '', async () => { await bounded(c) }, 30_000)
  })
}

describe('the rethrow memory', () => {
  test('a shared namespace value cannot carry one run\'s error place into another run (hand-built AST)', async () => {
    // The transpiler refuses `Math` as a value; an AST may name it. It is frozen data shared by every run.
    const ast = (src: string) => {
      const j = JSON.parse(JSON.stringify(transpile(src).ast).replaceAll('"M__"', '"Math"'))
      j.steps = j.steps.filter((s: { op: string }) => s.op !== 'varsLet')
      return j
    }
    const first = await new AgentVM().run(ast('function main() { let M__ = 0\n\n\n  try { throw M__ } catch (e) { throw e } }'), {}, { fuel: 10 })
    const second = await new AgentVM().run(ast('function main() { let M__ = 0; throw M__ }'), {}, { fuel: 10 })
    expect([first.error?.code, first.error?.line]).toEqual(['TYPE_ERROR', 4])
    expect([second.error?.code, second.error?.line]).toEqual(['TYPE_ERROR', 1])
  })

  test('a value rethrown after its run ended keeps nothing: a new run throwing an equal value is located at its own throw', async () => {
    const vm = new AgentVM()
    await vm.run('function main() {\n\n\n  try { null.x } catch (e) { throw e } }', {}, { fuel: 10 })
    const r = await vm.run("function main() { throw { name: 'TypeError', message: 'x', code: 'TYPE_ERROR' } }", {}, { fuel: 10 })
    expect(r.error?.code).toBe('THROWN')
    expect(r.error?.line).toBe(1)
  })
})

/**
 * Intl falls back to the host's default locale for an empty list or an unsupported tag; the VM
 * appends "en". Bun reads no locale from the environment, so node (which does) runs the VM, bundled.
 */
const hostLocale = (lang: string) => spawnSync('node', ['-e', 'console.log(new Intl.NumberFormat().resolvedOptions().locale)'],
  { env: { ...process.env, LANG: lang, LC_ALL: lang }, encoding: 'utf8' }).stdout?.trim()

describe.skipIf(hostLocale('de_DE.UTF-8') !== 'de-DE')('the host\'s default locale', () => {
  test('is never what a guest\'s locales fall back to', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ajs-locale-'))
    try {
      const built = await Bun.build({ entrypoints: [join(import.meta.dir, '../../src/vm/index.ts')], target: 'node', format: 'esm', outdir: dir })
      expect(built.success).toBe(true)
      const body = "return [(1234.5).toLocaleString([]), (1234.5).toLocaleString({}), (1234.5).toLocaleString('zz'), [1234.5].toLocaleString([]), 'i'.toLocaleUpperCase([]), 'I'.toLocaleLowerCase([]), ['b', 'a'].sort((x, y) => x.localeCompare(y, []))]"
      const { ast } = transpile(`function main() {\n${body}\n}`)
      writeFileSync(join(dir, 'run.mjs'), `import { AgentVM } from './index.js'\nconst r = await new AgentVM().run(${JSON.stringify(ast)}, {}, { fuel: 10 })\nconsole.log(JSON.stringify(r.result ?? r.error))`)
      for (const lang of ['de_DE.UTF-8', 'tr_TR.UTF-8']) {
        const r = spawnSync('node', [join(dir, 'run.mjs')], { env: { ...process.env, LANG: lang, LC_ALL: lang }, encoding: 'utf8', timeout: 20_000 })
        expect(JSON.parse(r.stdout)).toEqual(['1,234.5', '1,234.5', '1,234.5', '1,234.5', 'I', 'i', ['a', 'b']])
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
