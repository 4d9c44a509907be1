/**
 * Functions that make functions (src/transpiler/function-factories.ts): a factory's call where a function
 * goes is the function it makes, written there with the call's arguments. Side by side with JavaScript;
 * the calls that cannot be written out, refused at the call with why (AJS2072), and a call anywhere else
 * (AJS2073).
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { copyBudget } from '../../src/transpiler/copy-budget.ts'
import type { Program } from './differential/harness.ts'
import { refusal, testAsyncSideBySide } from './local-functions-helpers.ts'

const ITEMS = [{ name: 'pear', price: 12.5, cat: 'fruit' }, { name: 'kale', price: 3, cat: 'leaf' }, { name: 'fig', price: 7.25, cat: 'fruit' }]

const PROGRAMS: Program[] = [
  {
    // A module-level arrow, a helper returning an arrow, local ones with an expression or a block body, a shorthand property.
    name: 'comparators-and-mappers',
    source: [
      'const byKey = (k) => (a, b) => a[k] - b[k]',
      'function scaleBy(f) { return (x) => x * f }',
      'function main({ items, rate }) {',
      '  const desc = (k) => (a, b) => b[k] - a[k]',
      '  const label = (prefix) => { return (i) => `${prefix}${i.name}` }',
      '  const pick = (k) => (i) => ({ k, v: i[k] })',
      '  return {',
      "    asc: [...items].sort(byKey('price')).map((i) => i.name),",
      "    desc: items.toSorted(desc('price')).map(label('#')),",
      '    scaled: items.map((i) => i.price).map(scaleBy(rate)),',
      '    negated: items.map((i) => i.price).map(scaleBy(-1)),',
      "    picked: items.map(pick('cat')),",
      '  }',
      '}',
    ].join('\n'),
    args: { items: ITEMS, rate: 2 },
  },
  {
    // Functions' names as arguments (composition), a filter made from a variable never assigned, reduce, find, some.
    name: 'composition-and-predicates',
    source: [
      'function double(x) { return x * 2 }',
      'const compose = (f, g) => (x) => f(g(x))',
      'const above = (min) => (i) => i.price > min',
      'const sumOf = (k) => (s, i) => s + i[k]',
      'function main({ items, min }) {',
      '  const inc = (x) => x + 1',
      '  const named = (n) => function (i) { return i.name === n }',
      '  return {',
      '    composed: items.map((i) => i.price).map(compose(double, inc)),',
      '    above: items.filter(above(min)).length,',
      "    total: items.reduce(sumOf('price'), 0),",
      "    found: items.find(named('fig'))?.price,",
      "    any: items.some(named('plum')),",
      '  }',
      '}',
    ].join('\n'),
    args: { items: ITEMS, min: 5 },
  },
  {
    // A factory's function handed to a helper that calls it (function-arguments.ts copies the helper), awaited.
    name: 'handed-to-a-helper',
    source: [
      'async function withRetry(fn, n) {',
      '  for (let i = 0; ; i++) {',
      '    try { return await fn() } catch (e) { if (i >= n) throw e }',
      '  }',
      '}',
      'function fetcher(id) { return () => `item-${id}` }',
      'async function main({ ids }) {',
      '  const out = []',
      '  for (const id of ids) out.push(await withRetry(fetcher(id), 2))',
      '  return out',
      '}',
    ].join('\n'),
    args: { ids: [1, 2, 3] },
  },
]

describe('function factories', () => {
  testAsyncSideBySide(PROGRAMS)

  test('a factory every use of which is written out is gone from the AST', () => {
    const { ast } = transpile(PROGRAMS[0]!.source)
    expect(Object.keys(ast.functions ?? {})).toEqual([])
    expect(JSON.stringify(ast)).not.toContain('byKey')
  })

  test('an argument the function would read changed: AJS2072 at the call, naming the variable and the fix', () => {
    const e = refusal("function main({ items }) {\n  let k = 'price'\n  const byKey = (key) => (a, b) => a[key] - b[key]\n  k = 'cat'\n  return items.sort(byKey(k))\n}")
    expect([e.code, e.line, e.column]).toEqual(['AJS2072', 5, 20])
    expect(e.message).toBe('`byKey` makes the function passed here, and this call of it cannot be written out: `k` is assigned after it is declared, and the function reads it each time it runs')
    expect(e.hint).toContain('`const kNow = k`')
  })

  test('an expression as argument, a name the function declares, a name it reads that means another variable: AJS2072 with why', () => {
    const expression = refusal("function main({ items }) {\n  const byKey = (k) => (a, b) => a[k] - b[k]\n  return items.sort(byKey('pri' + 'ce'))\n}")
    expect([expression.code, expression.line]).toEqual(['AJS2072', 3])
    expect(expression.message).toContain('an argument is an expression')
    const hidden = refusal("function main({ items }) {\n  const a = 'price'\n  const byKey = (k) => (a, b) => a[k] - b[k]\n  return items.sort(byKey(a))\n}")
    expect(hidden.message).toContain('declares `a`, the name of a variable passed')
    // Declared and never read there: the argument would still be that variable where it is written.
    const unread = refusal("function main({ items }) {\n  const x = 'price'\n  const byKey = (k) => (a, b) => { const x = 0; return a[k] - b[k] }\n  return items.sort(byKey(x))\n}")
    expect([unread.code, unread.message]).toEqual(['AJS2072', '`byKey` makes the function passed here, and this call of it cannot be written out: the function it makes declares `x`, the name of a variable passed'])
    const other = refusal('function main({ items }) {\n  const w = 2\n  const by = (k) => (a, b) => (a[k] - b[k]) * w\n  return items.map((w) => items.sort(by(w)))\n}')
    expect(other.code).toBe('AJS2072')
    expect(other.message).toContain('reads `w`, which is another variable here')
    const count = refusal("function main({ items }) {\n  const byKey = (k) => (a, b) => a[k] - b[k]\n  return items.sort(byKey('price', 1))\n}")
    expect(count.message).toContain('it takes 1 argument and is given 2')
  })

  test('written out more than four times the source: AJS2072 at the call that goes over (was a 280 MB AST from 154 KB)', () => {
    const body = Array.from({ length: 300 }, (_, i) => `  const v${i} = a * ${i} + k`).join('\n')
    const program = (calls: number) => [
      `const scaleBy = (k) => (a) => {\n${body}\n  return v299\n}`,
      'function main({ xs }) {',
      '  let s = 0',
      ...Array.from({ length: calls }, (_, i) => `  s = s + xs.map(scaleBy(${i})).length`),
      '  return { s }',
      '}',
    ].join('\n')
    const text = program(100)
    const made = text.indexOf('\n}\nfunction main') + 2 - text.indexOf('(a) =>')
    const fits = Math.floor(copyBudget(text) / made)
    expect(fits).toBeGreaterThan(4)
    expect(transpile(program(fits)).ast).toBeDefined()
    const e = refusal(text)
    expect(e.code).toBe('AJS2072')
    expect(e.line).toBe(306 + fits) // calls start on line 306: the first that does not fit
    expect(e.message).toContain('written out at each of its calls, would be more than four times the source')
    expect(e.hint).toContain('call it in fewer places')
  })

  test('a factory called where no function goes: AJS2073 at the call, with where to call it', () => {
    const e = refusal("function main({ items }) {\n  const byKey = (k) => (a, b) => a[k] - b[k]\n  const cmp = byKey('price')\n  return items.sort(cmp)\n}")
    expect([e.code, e.line, e.column]).toEqual(['AJS2073', 3, 14])
    expect(e.message).toBe('`byKey(...)` makes a function here, and functions are not values')
    expect(e.hint).toContain('`xs.sort(byKey(...))`')
  })

  test('a source without factories is not looked into (the text test), and a function returning data is no factory', () => {
    const { ast } = transpile('function pair(k) { return [k, k] }\nfunction main({ n }) { return [n].map((x) => pair(x)) }')
    expect(Object.keys(ast.functions ?? {})).toEqual(['pair'])
  })
})
