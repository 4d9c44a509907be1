/**
 * statistics and fractions stay inside the run's limits: their exact sums are paid per item (and
 * per bit of the big ints they hold), so the fuel grows with the data and a huge input ends the run
 * with FUEL_EXHAUSTED. Their results against CPython are in the corpus (hand_extended.txt
 * statistics-* and fractions-*, hand_model.txt).
 */
import { expect, test } from 'bun:test'
import { runPythonBlock } from '../../src/python/index.ts'

const DATA = 'import statistics\nfrom fractions import Fraction\nxs = [i / 7 for i in range(N)]\n'

async function fuel(n: number, tail: string): Promise<number> {
  const r = await runPythonBlock(DATA.replace('N', String(n)) + tail, { fuel: 1e7 })
  expect(r.error).toBeUndefined()
  return r.fuelUsed
}

test.each(['statistics.mean(xs)', 'statistics.fmean(xs)', 'statistics.stdev(xs)', 'statistics.median(xs)', 'statistics.multimode(xs)', 'statistics.correlation(xs, xs)', 'sum(Fraction(x) for x in xs)'])(
  '%s: the fuel grows with the data',
  async (call) => {
    const tail = `v = ${call}\nreturn {}`
    const base1 = await fuel(2000, 'return {}'), base2 = await fuel(4000, 'return {}')
    const small = (await fuel(2000, tail)) - base1, large = (await fuel(4000, tail)) - base2
    expect(small).toBeGreaterThan(0.1)
    expect(large).toBeGreaterThan(small * 1.5)
  },
)

test('statistics over an endless generator ends with FUEL_EXHAUSTED', async () => {
  const r = await runPythonBlock('import statistics\ndef naturals():\n    i = 0\n    while True:\n        yield i\n        i += 1\nreturn {"m": statistics.mean(naturals())}', { fuel: 200 })
  expect(r.error?.code).toBe('FUEL_EXHAUSTED')
})
