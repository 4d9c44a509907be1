/**
 * Attacks on the statics of a Set kept in a variable (src/vm/builtins/set-vars.ts), from AJS source and
 * from ASTs written by hand (which may call `Set.*` with any arguments): the host index never does unpaid
 * or quadratic work, never keys a native Map by a long text, never answers for a wrong member; a huge
 * Set, or a loop that keeps adding to the Set it walks, ends on fuel; a bad array is a guest error.
 */
import { describe, expect, test } from 'bun:test'
import { runBody, watchingMaps } from './helpers.ts'
import { MAX_KEY_CHARS } from '../../src/vm/builtins/sizes.ts'

describe('a text over 16,383 characters never keys a native Map (V8 hashes it by its length alone)', () => {
  // 300 members of 20,000 characters, one length, one start of 19,995: in one native Map V8 would compare each with those before it.
  const SETUP = "const p = 'a'.repeat(19995)\nconst ks = []\nfor (let i = 0; i < 300; i++) ks.push(p + (10000 + i))\n"
  const FORMS: Record<string, unknown> = {
    'const s = new Set(ks.concat(ks))\nreturn [s.size, s.has(p + 10007), s.has(p + 99999), s.has(ks[299])]': [300, true, false, true],
    'const s = new Set()\nfor (const k of ks) s.add(k)\ns.add(ks[3])\nreturn [s.size, s.has(ks[3]), [...s].indexOf(p + 10004)]': [300, true, 4],
    'const s = new Set(ks)\ns.delete(ks[0])\nreturn [s.size, s.has(ks[0]), s.has(ks[1]), s.has(p + 10299)]': [299, false, true, true],
    'const s = new Set(ks)\nlet n = 0\nfor (const k of s) { if (s.has(k)) n++; s.delete(k) }\nreturn [n, s.size]': [300, 0],
    'const s = new Set(ks.slice(0, 200)), t = new Set(ks.slice(100))\nreturn [s.union(t).size, s.intersection(t).size, s.difference(t).has(ks[0]), s.symmetricDifference(t).size, s.isSubsetOf(t), s.isDisjointFrom(new Set([p + 10150]))]': [300, 100, true, 200, false, false],
  }
  for (const [body, result] of Object.entries(FORMS)) {
    test(body.split('\n')[0]!, async () => {
      const r = await watchingMaps(SETUP + body)
      expect(r.out).toEqual(result)
      expect(r.longest).toBeLessThanOrEqual(MAX_KEY_CHARS)
    })
  }

  test('long members are told apart and found as JavaScript\'s Set does', async () => {
    const texts = `const a = 'x'.repeat(${MAX_KEY_CHARS + 1}), b = 'x'.repeat(${MAX_KEY_CHARS}) + 'y', c = 'y' + 'x'.repeat(${MAX_KEY_CHARS + 5}), d = 'x'.repeat(${2 * MAX_KEY_CHARS}) + 'x'.repeat(${MAX_KEY_CHARS})`
    const source = `${texts}
const s = new Set([a, b, c, a, NaN, -0, d])
s.add(b.slice(0, ${MAX_KEY_CHARS}) + 'y')
s.add(c + 'z')
s.delete('x'.repeat(${MAX_KEY_CHARS + 1}))
return [[...s].map((t) => typeof t === 'string' ? t.length : t), s.has(a), s.has(b), s.has(c.slice(1) + 'y'), s.has(d), s.has('x'.repeat(${3 * MAX_KEY_CHARS})), s.has(0), s.has(NaN), s.has(c + 'z'), s.has(a + 'x'), s.size]`
    const native = new Function(source) as () => unknown
    const r = await watchingMaps(source, 100)
    expect(r.out).toEqual(native())
    expect(r.longest).toBeLessThanOrEqual(MAX_KEY_CHARS)
  })

  test('looking up long members the Set never had keeps nothing of them', async () => {
    const setup = `const p = 'q'.repeat(${2 * MAX_KEY_CHARS})\nconst s = new Set([p + 'a'])\n`
    const misses = (n: number) => watchingMaps(`${setup}let n = 0\nfor (let i = 0; i < ${n}; i++) if (s.has('z' + i + p) || s.delete(p + i)) n++\nreturn [n, s.has(p + 'a')]`)
    const [few, many] = [await misses(10), await misses(200)]
    expect([few.out, many.out]).toEqual([[0, true], [0, true]])
    expect(many.sets).toBe(few.sets)
  })
})

describe('a Set lookup pays for hashing its member, as a property key does', () => {
  for (const form of ['s.has(k)', 's.delete(k)', 's.add(k)']) {
    test(form, async () => {
      const fuel = async (len: number) => {
        const r = await runBody(`const k = 'k'.padStart(${len}, '0')\nconst s = new Set(['a'])\nfor (let i = 0; i < 100; i++) ${form}\nreturn s.size`, { fuel: 1_000 })
        expect(r.error).toBeUndefined()
        return r.fuelUsed
      }
      // 100 lookups of a member of 65 characters at 0.00001 each, plus the one character more built by padStart.
      expect(await fuel(65) - await fuel(64)).toBeCloseTo(100 * 65 * 0.00001 + 0.00001, 6)
    })
  }
})

describe('a huge Set is bounded by fuel', () => {
  test('adding without end', async () => {
    const r = await runBody('const s = new Set()\nlet i = 0\nwhile (true) s.add(i++)\nreturn s.size', { fuel: 50 })
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
  })

  test('a for...of that keeps adding to the Set it walks (JavaScript would never end)', async () => {
    const r = await runBody('const s = new Set([0])\nfor (const x of s) s.add(x + 1)\nreturn s.size', { fuel: 50 })
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
  })

  test('a forEach that keeps adding', async () => {
    const r = await runBody("const s = new Set(['a'])\ns.forEach((x) => { s.add(x + 'a') })\nreturn s.size", { fuel: 50 })
    expect(['FUEL_EXHAUSTED', 'HEAP_LIMIT']).toContain(r.error?.code ?? '')
  })

  test('new Set of a million items is paid per item, and its copies too', async () => {
    const fuel = async (body: string) => {
      const r = await runBody(`const xs = [...Array(1000000).keys()]\n${body}`, { fuel: 1e5 })
      expect(r.error).toBeUndefined()
      return r.fuelUsed
    }
    const base = await fuel('return 0')
    const made = await fuel('const s = new Set(xs)\nreturn s.size')
    const copied = await fuel('const s = new Set(xs)\nconst a = [...s], b = [...s]\nreturn a.length + b.length')
    expect(made - base).toBeGreaterThan(1e6 * 0.00001)
    expect(copied - made).toBeGreaterThan(0)
  })

  test('the union of two Sets of half a million members each is paid per member', async () => {
    const fuel = async (body: string) => {
      const r = await runBody(`const a = new Set([...Array(500000).keys()]), b = new Set(a)\n${body}`, { fuel: 1e5 })
      expect(r.error).toBeUndefined()
      return r.fuelUsed
    }
    expect(await fuel('return a.union(b).size') - await fuel('return a.size')).toBeGreaterThan(1e6 * 0.00001)
  })

  test('deleting all but the last of many members and walking is linear (the tombstones are compacted)', async () => {
    const fuel = async (n: number) => (await runBody(`const s = new Set()\nfor (let i = 0; i < ${n}; i++) s.add(i)\nfor (let i = 0; i < ${n} - 1; i++) { s.delete(i); s.has(i + 1) }\nlet t = 0\nfor (const x of s) t += x\nreturn t`, { fuel: 1e4 })).fuelUsed
    const [small, large] = [await fuel(200), await fuel(20_000)]
    expect(large / small).toBeLessThan(130)
  })
})

describe('an array that is not a Set, handed to the statics by an AST written by hand, is the guest\'s error', () => {
  test('not an array', async () => {
    for (const call of ['Set.contains(1, 1)', 'Set.insert("ab", 1)', 'Set.remove(null, 1)', 'Set.count({})', 'Set.values(undefined)', 'Set.clear(3)']) {
      const r = await runBody(`return ${call}`)
      expect({ call, code: r.error?.code, message: r.error?.message }).toEqual({ call, code: 'TYPE_ERROR', message: 'A Set method was called on something that is not a Set' })
    }
  })

  test('a frozen array is not changed', async () => {
    for (const call of ['Set.insert(a, 9)', 'Set.remove(a, 1)', 'Set.clear(a)']) {
      const r = await runBody(`const a = Object.freeze([1, 2])\nconst r = ${call}\nreturn a`)
      expect({ call, code: r.error?.code }).toEqual({ call, code: 'TYPE_ERROR' })
    }
  })

  test('an array changed under its index is read as it is now', async () => {
    const r = await runBody('const a = [1, 2, 3]\nSet.contains(a, 1)\na[0] = 7\na.push(8)\nreturn [Set.contains(a, 1), Set.contains(a, 7), Set.contains(a, 8), Set.count(a), Set.values(a)]')
    expect(r.result).toEqual([false, true, true, 4, [7, 2, 3, 8]])
  })
})
