/**
 * math.fsum and the statistics functions built on it share one fsum (runtime/fsum.ts) with
 * CPython's errors: infinities of both signs, a partial sum that overflows, an int past the float
 * range. Expected lines are CPython 3.11's (python3 on the same body).
 */
import { expect, test } from 'bun:test'
import { runPythonBlock } from '../../src/python/index.ts'

const BODY = `import math, statistics
out = []
for xs in ([float('inf'), float('-inf')], [1e308, 1e308, -1e308], [float('nan'), 1.0], [float('inf'), 1.0], [0.1]*10, [1e100, 1.0, -1e100], [2**1100]):
    try:
        out.append(repr(math.fsum(xs)))
    except Exception as e:
        out.append(type(e).__name__ + ' ' + str(e))
for xs in ([1e308, 1e308, -1e308], [float('inf'), float('-inf')], [0.1, 0.2, 0.3]):
    try:
        out.append(repr(statistics.fmean(xs)))
    except Exception as e:
        out.append(type(e).__name__ + ' ' + str(e))
return {"out": out}`

test('math.fsum and statistics.fmean: CPython results and errors', async () => {
  const r = await runPythonBlock(BODY)
  expect(r.error).toBeUndefined()
  expect((r.result as { out: string[] }).out).toEqual([
    'ValueError -inf + inf in fsum',
    'OverflowError intermediate overflow in fsum',
    'nan',
    'inf',
    '1.0',
    '1.0',
    'OverflowError int too large to convert to float',
    'OverflowError intermediate overflow in fsum',
    'ValueError -inf + inf in fsum',
    '0.19999999999999998',
  ])
})
