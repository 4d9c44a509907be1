/**
 * functools.cmp_to_key: sorting calls the program's mycmp once per comparison (the runtime calls
 * mycmp itself for two keys of one cmp_to_key, and sorts keys that are the program's objects with a
 * merge sort that asks one question per step). Results against CPython are in the corpus
 * (hand_extended.txt, functools-cmp-to-key-*).
 */
import { expect, test } from 'bun:test'
import { runPythonBlock } from '../../src/python/index.ts'

const body = (n: number, key: string) => `from functools import cmp_to_key
calls = [0]
def cmp(a, b):
    calls[0] += 1
    return a - b
xs = [(i * 7919) % ${n} for i in range(${n})]
ys = sorted(xs, key=${key})
return {"ok": ys == sorted(xs), "calls": calls[0]}`

test('sorting n items calls mycmp at most a merge sort\'s comparisons (n⌈lg n⌉ - 2^⌈lg n⌉ + 1), once each', async () => {
  for (const n of [2, 10, 100, 1000]) {
    const r = await runPythonBlock(body(n, 'cmp_to_key(cmp)'), { profile: 'extended', fuel: 1e7 })
    const lg = Math.ceil(Math.log2(n))
    const { ok, calls } = r.result as { ok: boolean; calls: number }
    expect([n, ok]).toEqual([n, true])
    expect(calls).toBeLessThanOrEqual(n * lg - 2 ** lg + 1)
    expect(calls).toBeGreaterThanOrEqual(n - 1)
  }
})

test('its fuel is that of the calls: within 150x a key function\'s sort of 2,000 ints (97x; 335x with two calls per comparison)', async () => {
  // A mycmp that only compares (no counting): what the sort itself costs.
  const plain = (key: string) => body(2000, key).replace('    calls[0] += 1\n', '')
  const viaCmp = await runPythonBlock(plain('cmp_to_key(cmp)'), { profile: 'extended', fuel: 1e7 })
  const viaKey = await runPythonBlock(plain('lambda v: v'), { profile: 'extended', fuel: 1e7 })
  expect(viaCmp.result).toMatchObject({ ok: true })
  expect(viaCmp.fuelUsed! / viaKey.fuelUsed!).toBeLessThan(150)
})
