/**
 * A walk over a Map (`for...of`, `m.forEach`, `m.keys()`, `m.values()`, `m.entries()`; `Map.walk` in
 * src/vm/builtins/maps.ts) reads the entries live, as JavaScript's iterator does, so a loop that keeps
 * setting new keys never ends by itself, in JavaScript either: it must end at the run's fuel or time limit,
 * never hang the host (as any loop that keeps growing an array; maxHeapBytes bounds one value's size, which
 * each new entry is not). Each entry visited is paid, and so is each tombstone skipped. An AST written
 * by hand may call `Map.walk` on any array, change it during the walk or keep the walk as a value: the
 * guest's own data, still bounded and never the host's.
 */
import { describe, expect, test } from 'bun:test'
import { runBody } from './helpers.ts'

/** Loops that set a new key for each entry they visit, so the Map grows as fast as the walk goes. */
const GROWING: Record<string, string> = {
  'for...of': 'for (const [k] of m) m.set(k + 1, k)',
  'forEach': 'm.forEach((v, k) => { m.set(k + 1, v) })',
  'forEach with a return': 'm.forEach((v, k) => { m.set(k + 1, v); if (k < 0) return })',
  'keys()': 'for (const k of m.keys()) m.set(k + 1, k)',
}
/** Loops that delete each entry and set it again: the Map keeps its size, the walk never ends. */
const CYCLING: Record<string, string> = {
  'for...of': 'for (const [k, v] of m) { m.delete(k); m.set(k, v) }',
  'forEach': 'm.forEach((v, k) => { m.delete(k); m.set(k, v) })',
}

describe('a walk that never ends stops at the run\'s limits', () => {
  for (const [name, loop] of Object.entries(GROWING)) {
    test(`growing, ${name}: at its fuel`, async () => {
      const r = await runBody(`const m = new Map([[0, 0]])\n${loop}\nreturn m.size`, { fuel: 50 })
      expect(r.error?.code).toBe('FUEL_EXHAUSTED')
      expect(r.fuelUsed).toBeLessThanOrEqual(50)
    })
    test(`growing, ${name}: at its time limit`, async () => {
      const r = await runBody(`const m = new Map([[0, 0]])\n${loop}\nreturn m.size`, { fuel: 1e9, timeoutMs: 150 })
      expect(r.error?.code).toBe('TIMEOUT')
    })
  }
  for (const [name, loop] of Object.entries(CYCLING)) {
    test(`the same entries again and again, ${name}: at its time limit`, async () => {
      const r = await runBody(`const m = new Map([[0, 0], [1, 1]])\n${loop}\nreturn m.size`, { fuel: 1e9, timeoutMs: 150 })
      expect(r.error?.code).toBe('TIMEOUT')
      // It got far: tens of thousands of turns (each a delete, a set and a visit), in a Map of two entries.
      expect(r.fuelUsed).toBeGreaterThan(1_000)
    })
  }
})

describe('a walk pays for what it visits and what it skips', () => {
  const fuel = async (body: string) => {
    const r = await runBody(body, { fuel: 100_000 })
    expect(r.error).toBeUndefined()
    return r.fuelUsed
  }
  const build = (n: number) => `const m = new Map()\nfor (let i = 0; i < ${n}; i++) m.set(i, i)\n`
  for (const loop of ['for (const [k, v] of m) t += v', 'm.forEach((v) => { t += v })', 'for (const v of m.values()) t += v']) {
    test(`each entry visited: ${loop}`, async () => {
      const walked = async (n: number) => await fuel(`${build(n)}let t = 0\n${loop}\nreturn t`) - await fuel(`${build(n)}let t = 0\nreturn t`)
      const [small, large] = [await walked(1_000), await walked(4_000)]
      expect(large / small).toBeGreaterThan(3.9)
      expect(large / small).toBeLessThan(4.1)
    })
  }

  test('the tombstones before the first entry left: a loop of walks that each stop at once pays for them each time', async () => {
    // 10,000 entries, the first 4,999 deleted (under half: not compacted); each walk skips them all, then stops.
    const perWalk = async (deleted: number) => {
      const walks = (n: number) => fuel(`${build(10_000)}for (let i = 0; i < ${deleted}; i++) m.delete(i)\nlet t = 0\nfor (let i = 0; i < ${n}; i++) for (const [k] of m) { t += k; break }\nreturn t`)
      return (await walks(200) - await walks(100)) / 100
    }
    // 4,999 tombstones skipped at SCAN_COST (0.00001) each.
    expect(await perWalk(4_999) - await perWalk(0)).toBeCloseTo(4_999 * 0.00001, 6)
  })
})

describe('a walk driven by an AST written by hand is the guest\'s own data', () => {
  test('Map.walk of an array that is not a Map is the guest\'s TYPE_ERROR at the first turn', async () => {
    for (const a of ['[null]', '[[1, 2], 7]', "['ab']"]) {
      const r = await runBody(`const m = ${a}\nconst out = []\nfor (const e of Map.walk(m)) out.push(e)\nreturn out`)
      expect({ a, code: r.error?.code, message: r.error?.message }).toEqual({ a, code: 'TYPE_ERROR', message: 'A Map method was called on something that is not a Map' })
    }
    const r = await runBody('const out = []\nfor (const e of Map.walk("ab")) out.push(e)\nreturn out')
    expect(r.error?.code).toBe('TYPE_ERROR')
  })

  test('an entry replaced in place by one that is no pair (the length the same, so the index is not rebuilt): the reads that meet it are the TYPE_ERROR', async () => {
    const walked = '[0].map(() => { const out = []; for (const e of Map.walk(m)) out.push(e); return out })[0]'
    for (const read of ['Map.entries(m)', 'Map.keys(m)', 'Map.values(m)', walked]) {
      const r = await runBody(`const m = Map.from([[1, 2], [3, 4]])\nMap.get(m, 1)\nm[1] = null\nreturn ${read}`)
      expect({ read, code: r.error?.code, message: r.error?.message }).toEqual({ read, code: 'TYPE_ERROR', message: 'A Map method was called on something that is not a Map' })
    }
  })

  test('entries changed by hand during the walk: it goes on, bounded, and ends', async () => {
    // Pushed, replaced, cut short, a tombstone's place written: each turn finds its place by number, or starts again.
    const r = await runBody(`const m = Map.from([['a', 1], ['b', 2], ['c', 3]])
const out = []
let n = 0
for (const [k, v] of Map.walk(m)) {
  out.push(k)
  if (++n === 1) m.push(['d', 4])
  if (n === 2) m[2] = ['C', 30]
  if (n === 3) Map.delete(m, 'a')
  if (n === 4) m.length = 1
  if (n > 20) break
}
return [out, Map.size(m)]`)
    expect(r.error).toBeUndefined()
    expect((r.result as unknown[][])[0]!.length).toBeLessThanOrEqual(21)
  })

  test('a walk kept as a value is a read-only empty object to the guest, and an empty object to the host', async () => {
    const r = await runBody(`const m = Map.from([[1, 2]])
const w = Map.walk(m)
const seen = [JSON.stringify(w), Object.keys(w), typeof w, [w].length]
try { w.x = 1 } catch (e) { seen.push(e.message) }
for (const e of w) seen.push(e)
for (const e of w) seen.push('again')
return { w, seen, inArray: [w] }`)
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual({ w: {}, seen: ['{}', [], 'object', 1, 'Cannot set property "x" of a read-only object', [1, 2]], inArray: [{}] })
    const out = r.result as { w: object; inArray: object[] }
    // Nothing of the walk (its function, under a symbol) reaches the host.
    expect([Reflect.ownKeys(out.w), Reflect.ownKeys(out.inArray[0]!)]).toEqual([[], []])
  })
})
