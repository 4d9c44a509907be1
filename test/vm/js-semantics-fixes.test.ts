/**
 * Regressions for differences from JavaScript found by the value and
 * control-flow differential generator (test/transpiler/differential/
 * generate-values.ts). Each program states JavaScript's answer, and is also
 * run natively to keep that answer honest.
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'
import { runNative } from '../transpiler/differential/harness.ts'

async function both(body: string, expected: unknown): Promise<void> {
  const source = `function main() {\n${body}\n}\n`
  const native = runNative({ name: 'fix', source, args: {} })
  expect(native).toEqual({ ok: true, value: expected })
  const r = await new AgentVM().run(transpile(source).ast, {}, { fuel: 1e6 })
  expect(r.error).toBeUndefined()
  expect(r.result).toEqual(expected)
}

describe('array holes (a[i] = v past the end, a longer length, delete a[i])', () => {
  test('map, forEach, filter, some, every, flatMap skip holes; find visits them', async () => {
    await both(`const a = [1]
a[3] = 4
const seen = []
a.forEach((x, i) => { seen.push(i) })
const m = a.map((x) => 7)
return { seen, m: Object.keys(m), f: a.filter(() => true), s: a.some((x) => x === undefined),
  e: a.every((x) => x !== undefined), fm: a.flatMap((x) => [x]), fi: a.findIndex((x) => x === undefined) }`,
    { seen: [0, 3], m: ['0', '3'], f: [1, 4], s: false, e: true, fm: [1, 4], fi: 1 })
  })
  test('reduce and reduceRight skip holes, also for the first accumulator', async () => {
    await both(`const a = []
a[2] = 5
a[4] = 1
const b = [1, 2, 3]
delete b[1]
let err = ''
try { [].reduce((x, y) => x) } catch (e) { err = e.name }
const c = []
c.length = 3
try { c.reduce((x, y) => x) } catch (e) { err += e.name }
return { r: a.reduce((x, y) => x - y), rr: a.reduceRight((x, y) => x - y), sum: b.reduce((x, y) => x + y, 0), err }`,
    { r: 4, rr: -4, sum: 4, err: 'TypeErrorTypeError' })
  })
  test('a callback with a block body skips holes too', async () => {
    await both(`const a = [1, 2, 3]
delete a[1]
let n = 0
a.forEach((x) => { n += x })
return { n, m: a.map((x) => { return x * 2 }).length }`, { n: 4, m: 3 })
  })
  test('flat drops holes', async () => {
    await both(`const a = [1]
a[3] = 4
return { a: a.flat(), b: [[1], a].flat(), c: [a, [a]].flat(Infinity) }`, { a: [1, 4], b: [1, 1, 4], c: [1, 4, 1, 4] })
  })
})

describe('`in`', () => {
  test('sees what an object or an array inherits, as JS does', async () => {
    await both(`const o = { a: 1 }
return { own: 'a' in o, inherited: 'toString' in o, valueOf: 'valueOf' in o, map: 'map' in [], length: 'length' in [], none: 'x' in o, idx: 5 in [1] }`,
    { own: true, inherited: true, valueOf: true, map: true, length: true, none: false, idx: false })
  })
  test("the names are this host's Object.prototype and Array.prototype methods", async () => {
    const names = (proto: object) => Object.getOwnPropertyNames(proto).filter((k) => !['constructor', '__proto__', 'length'].includes(k))
    const objectNames = names(Object.prototype), arrayNames = names(Array.prototype)
    const src = `function main({ os, as }) { return { o: os.map((k) => k in {}), a: as.map((k) => k in []), none: 'flat' in {} } }`
    const r = await new AgentVM().run(transpile(src).ast, { os: objectNames, as: arrayNames })
    expect(r.result).toEqual({ o: objectNames.map(() => true), a: arrayNames.map(() => true), none: false })
  })
  test('does not consult the host: a name a host library adds to Object.prototype is not seen', async () => {
    Object.defineProperty(Object.prototype, 'hostOnlyName', { value: 1, configurable: true })
    try {
      const src = "function main() { return { a: 'hostOnlyName' in {}, b: 'hostOnlyName' in [] } }"
      expect((await new AgentVM().run(transpile(src).ast, {})).result).toEqual({ a: false, b: false })
    } finally {
      delete (Object.prototype as Record<string, unknown>).hostOnlyName
    }
  })
})

describe('for...in', () => {
  test('skips a key deleted before its turn; an added key is not visited', async () => {
    await both(`const o = { a: 1, b: 2, c: 3 }
const r = []
for (const k in o) {
  delete o.b
  o.z = 0
  r.push(k)
}
const xs = [1, 2, 3, 4]
for (const k in xs) {
  xs.pop()
  r.push(k)
}
return { r }`, { r: ['a', 'c', '0', '1'] })
  })
})

describe('sort comparators', () => {
  test('the result is read with ToNumber: a string, an array, null and undefined count', async () => {
    await both(`const xs = [3, 1, 10, 2]
return {
  s: xs.toSorted((a, b) => String(a - b)),
  a: xs.toSorted((a, b) => [b - a]),
  t: xs.toSorted((a, b) => (a < b ? '-1' : a > b ? '1' : null)),
  u: xs.toSorted((a, b) => (a === b ? undefined : a - b)),
}`, { s: [1, 2, 3, 10], a: [10, 3, 2, 1], t: [1, 2, 3, 10], u: [1, 2, 3, 10] })
  })
})

describe('Object.is', () => {
  test('tells -0 from 0 and finds NaN equal to itself', async () => {
    await both(`const z = -0
const o = {}
return { a: Object.is(z, 0), b: Object.is(NaN, 0 / 0), c: Object.is(o, o), d: Object.is({}, {}), e: Object.is('a', 'a'), f: Object.is(0 * -1, z) }`,
    { a: false, b: true, c: true, d: false, e: true, f: true })
  })
})
