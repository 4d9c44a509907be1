/** The extended profile's host-facing parts: exact JSON text input, print to the run's log, the profile option. */
import { describe, expect, test } from 'bun:test'
import { runPythonBlock, transpilePython } from '../../src/python/index.ts'

describe('input as JSON text is read as json.loads reads it', () => {
  const body = 'return {"s": str(x), "t": type(x).__name__, "b": str(big), "l": [str(v) for v in xs]}'
  test('a whole-number float stays a float; big ints are exact', async () => {
    const r = await runPythonBlock(body, { inputText: '{"x": 2.0, "big": 123456789012345678901234567890, "xs": [1.0, 1e3, -0.0, 2.5, 7]}' })
    expect(r.result).toEqual({ s: '2.0', t: 'float', b: '123456789012345678901234567890', l: ['1.0', '1000.0', '-0.0', '2.5', '7'] })
  })
  test('JS object input cannot tell 2.0 from 2 (documented): a whole number is an int', async () => {
    const r = await runPythonBlock(body, { input: { x: 2.0, big: 1, xs: [] } })
    expect(r.result).toMatchObject({ s: '2', t: 'int' })
  })
  test('the contract profile reads JSON text the same way', async () => {
    const r = await runPythonBlock('return {"s": str(x)}', { inputText: '{"x": 2.0}', profile: 'contract' })
    expect(r.result).toEqual({ s: '2.0' })
  })
})

describe('print goes to the run\'s log', () => {
  test('each print is one log line (sep and end as in CPython)', async () => {
    const lines: string[] = []
    const r = await runPythonBlock('print("a", 1, [2.0])\nprint("x", "y", sep="-")\nreturn {}', { onLog: ({ message }) => { lines.push(message) } })
    expect(r.error).toBeUndefined()
    expect(lines).toEqual(["a 1 [2.0]", 'x-y'])
  })
})

describe('profiles', () => {
  test('transpilePython defaults to extended; contract refuses the same body with a hint naming the profile', () => {
    const body = 'return {"a": any(x > 1 for x in [1, 2])}'
    expect(() => transpilePython(body)).not.toThrow()
    let hint = ''
    try { transpilePython(body, { profile: 'contract' }) } catch (e) { hint = (e as { hint: string }).hint }
    expect(hint).toContain("profile: 'extended'")
  })
})

describe('math.isqrt of big ints', () => {
  test('exact past 2^53 and past the float range (no float first guess)', async () => {
    const r = await runPythonBlock('import math\nreturn {"a": str(math.isqrt(10**40 + 12345)), "b": math.isqrt(10**400) == 10**200, "c": math.isqrt(10**400 - 1) == 10**200 - 1}')
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual({ a: '100000000000000000000', b: true, c: true })
  })
})

describe('bisect argument errors name the Python type', () => {
  test("a str lo is 'str', as CPython says", async () => {
    const r = await runPythonBlock('import bisect\nreturn bisect.bisect_left([1, 2], 1, "a")')
    expect(r.error?.message).toBe("TypeError: 'str' object cannot be interpreted as an integer")
  })
})
