/** `copy.copy` / `copy.deepcopy` pay for what they build, and deep nesting is a Python error, not a host one. */
import { describe, expect, test } from 'bun:test'
import { runPythonBlock } from '../../src/python/index.ts'

const fuelOf = async (body: string): Promise<number> => {
  const r = await runPythonBlock(body, { fuel: 1e6 })
  expect(r.error).toBeUndefined()
  return r.fuelUsed
}

describe('copy charges the run per item copied', () => {
  const data = 'data = [[i, [i]] for i in range(20000)]\n'
  test('deepcopy of 60,000 containers and items costs fuel in proportion; copy only the outer list', async () => {
    const base = await fuelOf(`${data}return {"n": len(data)}`)
    const shallow = await fuelOf(`import copy\n${data}c = copy.copy(data)\nreturn {"n": len(c)}`)
    const deep = await fuelOf(`import copy\n${data}c = copy.deepcopy(data)\nreturn {"n": len(c)}`)
    // 0.0001 fuel per slot: 20,001 for the shallow copy; the deep copy visits 40,001 containers holding 80,000 items.
    expect(shallow - base).toBeGreaterThan(1.5)
    expect(deep - base).toBeGreaterThan(8)
    expect(deep - base).toBeGreaterThan(3 * (shallow - base))
  })
  test('a small fuel budget stops repeated deep copies (and only them)', async () => {
    const body = (step: string) => `import copy\ndata = [[0] * 1000 for _ in range(100)]\nfor _ in range(30):\n    ${step}\nreturn {"n": len(data)}`
    const without = await runPythonBlock(body('len(data)'), { fuel: 100 })
    expect(without.error).toBeUndefined()
    const r = await runPythonBlock(body('copy.deepcopy(data)'), { fuel: 100 })
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
  })
})

describe('deep structures', () => {
  test('100,000 levels of nesting: RecursionError from the copy, the host stack untouched', async () => {
    const r = await runPythonBlock('import copy\nx = []\nfor i in range(100000):\n    x = [x]\ntry:\n    copy.deepcopy(x)\nexcept RecursionError as e:\n    return {"e": str(e)}\nreturn {"e": None}', { fuel: 1e6 })
    expect(r.result).toEqual({ e: 'maximum recursion depth exceeded while calling a Python object' })
  })
})
