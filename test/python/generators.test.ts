/**
 * Lazy generators stay inside the run's limits: an endless generator read to its end exhausts the
 * fuel (each item is paid as it is made), a slow one meets the time limit, deep `yield from`
 * recursion meets the call depth (RecursionError inside `except`), and a run's fuel is the same every
 * time. Their results against CPython are in the corpus (hand_extended.txt, generator-*).
 */
import { expect, test } from 'bun:test'
import { pythonError, pythonVmOptions, runPythonBlock, transpilePython } from '../../src/python/index.ts'
import { AgentVM, defineAtom } from '../../src/index.ts'

const COUNT = 'def count(n=0):\n    while True:\n        yield n\n        n += 1\n'

test('an endless generator read to its end: FUEL_EXHAUSTED, not a hang', async () => {
  const r = await runPythonBlock(`${COUNT}return {"all": list(count())}`, { fuel: 50 })
  expect(r.error?.code).toBe('FUEL_EXHAUSTED')
  const s = await runPythonBlock(`${COUNT}return {"n": sum(1 for _ in count())}`, { fuel: 50 })
  expect(s.error?.code).toBe('FUEL_EXHAUSTED')
})

test('an endless generator meets the time limit when the fuel is ample', async () => {
  const r = await runPythonBlock(`${COUNT}for x in count():\n    pass\nreturn {}`, { fuel: 1e9, timeoutMs: 200 })
  expect(r.error?.code).toBe('TIMEOUT')
})

test('deep yield-from recursion meets the call depth: RecursionError inside except, STACK_OVERFLOW uncaught', async () => {
  const deep = 'def deep(n):\n    if n > 0:\n        yield from deep(n - 1)\n    yield n\n'
  const caught = await runPythonBlock(`${deep}try:\n    total = sum(deep(400))\nexcept RecursionError:\n    total = -1\nreturn {"total": total, "ok": sum(deep(50))}`, { fuel: 1e6 })
  expect(caught.result).toEqual({ total: -1, ok: 1275 })
  const uncaught = await runPythonBlock(`${deep}return {"total": sum(deep(400))}`, { fuel: 1e6 })
  expect(uncaught.error?.code).toBe('STACK_OVERFLOW')
})

test('a run with generators uses the same fuel every time', async () => {
  const body = `${COUNT}from itertools import islice\nevens = (x for x in count() if x % 2 == 0)\nreturn {"e": list(islice(evens, 50)), "z": list(zip(count(), "abc"))}`
  const a = await runPythonBlock(body, { fuel: 1e6 })
  const b = await runPythonBlock(body, { fuel: 1e6 })
  expect(a.error).toBeUndefined()
  expect(a.fuelUsed).toBe(b.fuelUsed)
  expect(a.fuelUsed).toBeGreaterThan(0)
})

test('send and throw resume the generator through the same metered helper: bounded fuel, the same every run', async () => {
  const coro = 'def acc():\n    total = 0\n    while True:\n        try:\n            total += yield total\n        except ValueError:\n            total = 0\n'
  const forever = await runPythonBlock(`${coro}g = acc()\nnext(g)\nwhile True:\n    g.send(1)\n    g.throw(ValueError)\nreturn {}`, { fuel: 50 })
  expect(forever.error?.code).toBe('FUEL_EXHAUSTED')
  const body = `${coro}g = acc()\nnext(g)\nsums = [g.send(i) for i in range(50)]\nreset = g.throw(ValueError)\nreturn {"last": sums[-1], "reset": reset, "after": g.send(5)}`
  const a = await runPythonBlock(body, { fuel: 1e6 })
  const b = await runPythonBlock(body, { fuel: 1e6 })
  expect(a.result).toEqual({ last: 1225, reset: 0, after: 5 })
  expect(a.fuelUsed).toBe(b.fuelUsed)
})

test('a generator that may wait for an atom runs eagerly: x = yield is None, x = yield from g is g\'s return value', async () => {
  const body = 'def pages(n):\n    got = yield lookup(n)\n    yield got\n    total = yield from sub()\n    yield total\n    more = yield from [7, 8]\n    yield more\n' +
    'def sub():\n    yield 1\n    return 5\nreturn {"items": list(pages(3))}'
  const { ast } = transpilePython(body, { params: ['initial'], externals: { lookup: { fields: ['id'] } } })
  const lookup = defineAtom('lookup', { type: 'object', properties: { id: { type: 'number' } } }, undefined, async (x: { id: number }) => ({ found: x.id }))
  const r = await new AgentVM({ lookup }, pythonVmOptions()).run(ast, { initial: {} })
  expect(r.error).toBeUndefined()
  // CPython: [{'found': 3}, None, 1, 5, 7, 8, None]
  expect(r.result).toEqual({ items: [{ found: 3 }, null, 1, 5, 7, 8, null] })
})

test('an exception that goes on after a finally block that yielded is located at the statement that raised it (CPython traceback line in the generator), lazily and eagerly', async () => {
  const loop = 'out = []\nfor v in gen():\n    out.append(v)\nreturn {"out": out}'
  // Each line checked against the generator's frame in CPython 3.11's traceback.
  const cases: Array<[string, string, number]> = [
    ['def gen():\n    try:\n        yield 1\n        x = 1 / 0\n    finally:\n        yield 2\n', 'ZeroDivisionError', 4],
    ['def gen():\n    try:\n        for i in range(3):\n            yield i\n            if i == 1:\n                d = {}\n                v = d["k"]\n    finally:\n        yield 9\n', 'KeyError', 7],
    ['def gen():\n    try:\n        yield 1\n        x = [][1]\n    except IndexError:\n        y = 2\n        raise ValueError("from handler")\n    finally:\n        yield 2\n', 'ValueError', 7],
    // Two yielding finally blocks, one inside the other: the inner one raises it again at its line too.
    ['def gen():\n    try:\n        try:\n            yield 1\n            x = 1 / 0\n        finally:\n            yield 2\n    finally:\n        yield 3\n', 'ZeroDivisionError', 5],
    // An exception from a called function: CPython's innermost line, in bad (as everywhere else; the VM keeps
    // the first error's place when the lowering's catch raises it again after the finally).
    ['def bad(n):\n    return n / 0\ndef gen():\n    try:\n        yield 1\n        x = bad(3)\n    finally:\n        yield 2\n', 'ZeroDivisionError', 2],
  ]
  for (const [gen, type, line] of cases) {
    const r = await runPythonBlock(`${gen}${loop}`)
    expect([gen, r.error?.message.split(':')[0], r.error?.line, r.error?.file]).toEqual([gen, type, line, '<block>'])
  }
  // The eager twin (the body may wait for an atom) splits its finally blocks the same way.
  const { ast } = transpilePython(`def gen():\n    try:\n        yield lookup(1)\n        x = 1 / 0\n    finally:\n        yield 2\n${loop}`, { params: ['initial'], externals: { lookup: { fields: ['id'] } } })
  const lookup = defineAtom('lookup', { type: 'object', properties: { id: { type: 'number' } } }, undefined, async (x: { id: number }) => x.id)
  const r = await new AgentVM({ lookup }, pythonVmOptions()).run(ast, { initial: {} })
  expect([pythonError(r.error)?.message, r.error?.line]).toEqual(['ZeroDivisionError: division by zero', 4])
})
