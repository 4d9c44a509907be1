/**
 * The runtime's fast paths give what the general paths give (outputs checked against CPython 3.11
 * when written): the counting idiom `d[k] = d.get(k, c) + v` on plain dicts, dict subclasses, keys
 * equal across types, unhashable keys and counts that are not numbers; int modulo and floor
 * division beyond 2^31 and near 2^53; true division of ints and floats.
 */
import { expect, test } from 'bun:test'
import { runPythonBlock } from '../../src/python/index.ts'

const value = async (body: string): Promise<unknown> => {
  const r = await runPythonBlock(body, {})
  if (r.error) return `${r.error.message} @${r.error.location?.replace(/^<\w+>/, '')}`
  return (r.result as { r: unknown }).r
}

test('the counting idiom: plain dicts, keys equal across types, Counter and defaultdict', async () => {
  expect(await value('d = {}\nfor w in ["a", "b", "a", 1, 1.0, True]:\n    d[w] = d.get(w, 0) + 1\nreturn {"r": str(d)}')).toBe("{'a': 2, 'b': 1, 1: 3}")
  expect(await value('from collections import Counter, defaultdict\nd = Counter()\nfor w in "abca":\n    d[w] = d.get(w, 0) + 1\ne = defaultdict(int)\nfor w in "abca":\n    e[w] = e.get(w, 5) + 2\nreturn {"r": str(d) + str(dict(e))}'))
    .toBe("Counter({'a': 2, 'b': 1, 'c': 1}){'a': 9, 'b': 7, 'c': 7}")
  expect(await value('d = {}\nfor w in range(5):\n    d[w % 2] = d.get(w % 2, 0.5) + 1\nk = 3\nd[k] = d.get(k, 2**60) + 2**60\nreturn {"r": str(d)}')).toBe('{0: 3.5, 1: 2.5, 3: 2305843009213693952}')
})

test('the counting idiom fails like the general path, at the same place', async () => {
  expect(await value('d = {"a": "x"}\nfor w in ["a"]:\n    d[w] = d.get(w, 0) + 1\nreturn {"r": d}')).toBe('TypeError: can only concatenate str (not "int") to str @:3:12')
  expect(await value('d = {}\nw = [1]\nd[w] = d.get(w, 0) + 1\nreturn {"r": d}')).toBe("TypeError: unhashable type: 'list' @:3:8")
})

test('int modulo and floor division beyond 2^31 and near 2^53, true division', async () => {
  const body = [
    'out = []',
    'for a in [2**31 + 5, -(2**31) - 5, 2**52 - 1, -(2**52) + 3, 2**53 - 1, -(2**53) + 1, 90000000000, 12345678901234]:',
    '    for b in [7, -7, 3, -1000003, 2**40 + 1, -(2**45) - 3]:',
    '        out.append((a % b, a // b))',
    'return {"r": [sum(x for x, _ in out), sum(y for _, y in out), out[:3], out[-3:], 7 / 2, 6 / 3, -9 / 4, 1 / 3, 2.5 / 0.5, 10**15 / 7]}',
  ].join('\n')
  expect(await value(body)).toEqual(EXPECTED_DIVISIONS)
})

// python3 -c '...' of the body above (CPython 3.11).
const EXPECTED_DIVISIONS = JSON.parse('[-159846599069624, 4145213864762, [[0, 306783379], [0, -306783379], [1, 715827884]], [[-135692, -12345642], [251050995687, 11], [-22838693187601, -1]], 3.5, 2.0, -2.25, 0.3333333333333333, 5.0, 142857142857142.84]')

test('fused arithmetic on numbers first: the general path for bools, big ints, float // and %, errors', async () => {
  const body = [
    'out = []',
    'for a, b in [(3, 4), (True, 2), (2**26 + 1, 2**27), (0.5, -0.5), (-7.5, 2), (0, -3), (1e100, 3)]:',
    '    out.append(a * a + b * b - (a - b) ** 2)',
    '    out.append((a * b) % 7 + (a + b) // 3)',
    '    out.append(-(a - a) + a / b)',
    'pts = [(0.5, 1.0), (2, 3.5), (True, False)]',
    'for p in pts:',
    '    for q in pts:',
    '        out.append((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2)',
    'return {"r": [str(x) for x in out]}',
  ].join('\n')
  expect(await value(body)).toEqual(JSON.parse(EXPECTED_NUMERIC))
  expect(await value('a, b = 1e200, 2.0\nx = (a * b) ** 2 + 1\nreturn {"r": x}')).toBe("OverflowError: (34, 'Numerical result out of range') @:2:5")
  expect(await value('t = (1, 2)\ni = 2\nx = (t[0] - t[i]) ** 2\nreturn {"r": x}')).toBe('IndexError: tuple index out of range @:3:13')
  expect(await value('a, b = 3, 0\nx = a * 2 + a // b\nreturn {"r": x}')).toBe('ZeroDivisionError: integer division or modulo by zero @:2:13')
})

// python3 of the first body above (CPython 3.11).
const EXPECTED_NUMERIC = '["24", "7", "0.75", "4", "3", "0.5", "18014398777917440", "67108869", "0.5000000074505806", "-0.5", "6.75", "-1.0", "-30.0", "4.0", "-3.75", "0", "-1", "0.0", "0.0", "3.333333333333333e+99", "3.333333333333333e+99", "0.0", "8.5", "1.25", "8.5", "0.0", "13.25", "1.25", "13.25", "0"]'
