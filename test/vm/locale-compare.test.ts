/**
 * `localeCompare` (and `toLocaleLowerCase` / `toLocaleUpperCase`) is JavaScript's (Intl.Collator with the given locales and options), with "en" as
 * the default locale on every host. Before, it compared UTF-16 code units: 'a'.localeCompare('B')
 * was 1, so `names.sort((a, b) => a.localeCompare(b))` put every capitalised name first.
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'

const vm = new AgentVM()
async function run(body: string, args: Record<string, unknown> = {}, fuel = 100_000) {
  const { ast } = transpile(`function f({ a = '', b = '', names = [] }) { ${body} }`)
  return vm.run(ast, args, { fuel })
}

describe('localeCompare', () => {
  test('the same answers as JavaScript in the "en" locale', async () => {
    const words = ['apple', 'Banana', 'banana', 'Apple', 'éclair', 'eclair', 'zebra', 'Zebra', 'a10', 'a9', '', 'ß', 'ss', 'ä', 'z', '😀', 'A-B', 'AB']
    const r = await run('return names.map((x) => names.map((y) => x.localeCompare(y)))', { names: words })
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual(words.map((x) => words.map((y) => x.localeCompare(y, 'en'))))
    expect((r.result as number[][])[0]![1]).toBe(-1) // 'apple' before 'Banana' (code units put 'B' first)
  })

  test('sorting names with it, as models write it', async () => {
    const names = ['bob', 'Alice', 'carol', 'Dave', 'alice']
    const r = await run('return names.sort((x, y) => x.localeCompare(y))', { names })
    expect(r.result).toEqual(['alice', 'Alice', 'bob', 'carol', 'Dave'])
  })

  test('locales and options are honoured', async () => {
    const r = await run(`return [
      a.localeCompare(b, undefined, { sensitivity: 'base' }),
      '10'.localeCompare('9', undefined, { numeric: true }),
      '10'.localeCompare('9'),
      'ä'.localeCompare('z', 'sv'),
      'ä'.localeCompare('z', ['de', 'en']),
      'a'.localeCompare('A', 'en', { caseFirst: 'upper' }),
    ]`, { a: 'abc', b: 'ABC' })
    expect(r.result).toEqual([0, 1, -1, 1, -1, 1])
  })

  test('bad locales and options are the guest\'s RangeError, never a host error', async () => {
    expect((await run(`return 'a'.localeCompare('b', 'not a locale!')`)).error?.code).toBe('RANGE_ERROR')
    expect((await run(`return 'a'.localeCompare('b', 'en', { sensitivity: 'loud' })`)).error?.code).toBe('RANGE_ERROR')
    expect((await run(`return 'a'.localeCompare('b', 'en', { sensitivity: a })`, { a: 'x'.repeat(300) })).error?.message).toContain('at most 64 characters')
    expect((await run(`return 'a'.localeCompare('b', names)`, { names: Array.from({ length: 9 }, () => 'en') })).error?.code).toBe('RANGE_ERROR')
    expect((await run(`return 'a'.localeCompare('b', 'en', { sensitivity: ['base'] })`)).error?.code).toBe('RANGE_ERROR')
    const caught = await run(`try { return 'a'.localeCompare('b', 'xx-!!') } catch (e) { return e.name }`)
    expect(caught.result).toBe('RangeError')
    // As in JavaScript: a number is no locale list, so the default locale compares.
    expect((await run(`return 'a'.localeCompare('b', 5)`)).result).toBe(-1)
  })

  test('fuel covers both strings and the collator named, the same whether it was cached or not', async () => {
    const fuelOf = async (body: string, args: Record<string, unknown>) => (await run(body, args)).fuelUsed
    const short = await fuelOf('return a.localeCompare(b)', { a: 'x', b: 'y' })
    const longB = await fuelOf('return a.localeCompare(b)', { a: 'x', b: 'y'.repeat(50_000) })
    expect(longB).toBeGreaterThan(short)
    const newCollator = await fuelOf(`return a.localeCompare(b, 'en', { numeric: true })`, { a: 'x', b: 'y' })
    expect(newCollator).toBeGreaterThan(short)
    // The same program, the same fuel, though the collator is now cached by the earlier run.
    expect(await fuelOf(`return a.localeCompare(b, 'en', { numeric: true })`, { a: 'x', b: 'y' })).toBe(newCollator)
  })

  test('toLocaleLowerCase and toLocaleUpperCase use the locales given (before, they were ignored)', async () => {
    const r = await run(`return [
      'I'.toLocaleLowerCase('tr'), 'i'.toLocaleUpperCase('tr'), 'I'.toLocaleLowerCase(['tr', 'en']),
      'I'.toLocaleLowerCase(), 'i'.toLocaleUpperCase('en'), 'ΣΑΣ'.toLocaleLowerCase('el'),
    ]`)
    expect(r.result).toEqual(['I'.toLocaleLowerCase('tr'), 'i'.toLocaleUpperCase('tr'), 'ı', 'i', 'I', 'ΣΑΣ'.toLocaleLowerCase('el')])
    expect((r.result as string[])[0]).toBe('ı')
    expect((await run(`return 'a'.toLocaleUpperCase('xx-!!')`)).error?.code).toBe('RANGE_ERROR')
    expect((await run(`return 'a'.toLocaleUpperCase(a)`, { a: 'x'.repeat(100) })).error?.code).toBe('RANGE_ERROR')
  })
})
