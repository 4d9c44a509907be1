/** The public API of ajs-lang/python: transpile, run, errors, VM options. */
import { expect, test } from 'bun:test'
import { AgentVM } from '../../src/vm/index.ts'
import { createPythonVM, pythonError, pythonVmOptions, runPythonBlock, transpilePython } from '../../src/python/index.ts'
import { validateAst } from '../../src/ast/validate.ts'

test('a block body returning a dict runs with initial and the input fields', async () => {
  const body = 'full = first_name + " " + last_name\nreturn {"full_name": full, "is_adult": age >= 18}'
  const r = await runPythonBlock(body, { initial: { source: 'x' }, input: { first_name: 'Ada', last_name: 'Lovelace', age: 36 } })
  expect(r.error).toBeUndefined()
  expect(r.result).toEqual({ full_name: 'Ada Lovelace', is_adult: true })
  expect(r.fuelUsed).toBeGreaterThan(0)
})

test('transpilePython emits a valid ajs/1 program that declares the Python library; any VM with the library runs it', async () => {
  const { ast, params } = transpilePython('return {"n": len(items) * 2}', { params: ['initial', 'items'] })
  expect(params).toEqual(['initial', 'items'])
  expect(validateAst(ast)).toEqual([])
  expect(ast.libraries).toEqual({ python: 1 })
  const vm = new AgentVM({}, pythonVmOptions())
  const r = await vm.run(ast, { initial: {}, items: [1, 2, 3] })
  expect(r.result).toEqual({ n: 6 })
  // Importing ajs-lang/python registered the library for every VM of the process.
  const plain = await new AgentVM().run(ast, { initial: {}, items: [] })
  expect(plain.result).toEqual({ n: 0 })
})

test('an uncaught exception reports its Python class, message and line', async () => {
  const r = await runPythonBlock('x = 1\ny = {"a": 1}\nreturn {"v": y["b"]}', {})
  expect(r.error?.code).toBe('PY_EXCEPTION')
  expect(r.error?.pythonType).toBe('KeyError')
  expect(r.error?.message).toBe("KeyError: 'b'")
  expect(r.error?.line).toBe(3)
})

test('the wrapper binds arguments like _block(initial=..., **pipeline_input)', async () => {
  const vm = createPythonVM()
  const { ast } = transpilePython('return {"a": a}', { params: ['initial', 'a'] })
  const missing = pythonError((await vm.run(ast, { initial: {} })).error)
  expect(missing?.pythonType).toBe('TypeError')
  const extra = pythonError((await vm.run(ast, { initial: {}, a: 1, b: 2 })).error)
  expect(extra?.message).toContain("unexpected keyword argument 'b'")
})

test('a whole def is accepted; its parameters and defaults are the block\'s', async () => {
  const src = 'def _block(initial, n=3):\n    return {"n": n * 2}\n'
  const { params, warnings } = transpilePython(src)
  expect(params).toEqual(['initial', 'n'])
  expect(warnings.length).toBe(1)
  expect((await runPythonBlock(src, { params: ['initial', 'n'], input: {} })).result).toEqual({ n: 6 })
  expect((await runPythonBlock(src, { input: { n: 5 } })).result).toEqual({ n: 10 })
})

test('a body that does not return a dict is a TypeError, like the contract\'s runner', async () => {
  const r = await runPythonBlock('x = 1', {})
  expect(r.error?.pythonType).toBe('TypeError')
})

test('jsonText returns json.dumps(result, sort_keys=True) exactly', async () => {
  const r = await runPythonBlock('return {"b": 3.0, "a": 2**70, "c": (1, "é")}', { jsonText: true })
  expect(r.result as unknown).toBe('{"a": 1180591620717411303424, "b": 3.0, "c": [1, "\\u00e9"]}')
})

test('fuel and time limits apply to Python loops', async () => {
  const r = await runPythonBlock('n = 0\nwhile True:\n    n += 1\nreturn {}', { fuel: 50 })
  expect(r.error?.code).toBe('FUEL_EXHAUSTED')
})

test('fuel is deterministic and grows with the work done', async () => {
  const body = 'xs = list(range(n))\nys = sorted(xs, reverse=True)\nreturn {"s": sum(ys)}'
  const small = await runPythonBlock(body, { input: { n: 100 } })
  const again = await runPythonBlock(body, { input: { n: 100 } })
  const large = await runPythonBlock(body, { input: { n: 10_000 } })
  expect(again.fuelUsed).toBe(small.fuelUsed)
  expect(large.fuelUsed).toBeGreaterThan(small.fuelUsed * 20)
  const huge = await runPythonBlock('return {"n": len([0] * (10 ** 9))}', {})
  expect(huge.error?.code).toBe('HEAP_LIMIT')
  const power = await runPythonBlock('return {"n": len(str(10 ** (10 ** 9)))}', {})
  expect(power.error?.pythonType).toBe('MemoryError')
})

test('uncaught deep recursion is STACK_OVERFLOW with the Python class RecursionError', async () => {
  const r = await runPythonBlock('def f(n):\n    return f(n + 1)\nreturn {"v": f(0)}', {})
  expect(r.error).toMatchObject({ code: 'STACK_OVERFLOW', pythonType: 'RecursionError' })
})

test('guest dicts hold any key as data; the host objects are never reached or mutated', async () => {
  const input = { rows: [{ a: 1 }], meta: { k: 'v' } }
  const r = await runPythonBlock('d = {}\nd["__proto__"] = 1\nd["constructor"] = 2\nrows[0]["a"] = 99\nmeta.clear()\nreturn {"d": d, "rows": rows, "n": len(meta)}', { input })
  expect(r.error).toBeUndefined()
  expect(Object.keys((r.result as any).d)).toEqual(['__proto__', 'constructor'])
  expect(Object.getPrototypeOf((r.result as any).d)).toBe(Object.prototype)
  expect(input).toEqual({ rows: [{ a: 1 }], meta: { k: 'v' } })
  expect(({} as any).polluted).toBeUndefined()
})

test('traces and locations point at lines of the body', async () => {
  const r = await runPythonBlock('x = 1\ny = 2\nreturn {"z": x + y}', { trace: true, filename: 'calc.py' })
  const located = (r.trace ?? []).map((t) => t.location).filter(Boolean)
  expect(located).toEqual(['calc.py:1:1', 'calc.py:2:1', 'calc.py:3:1'])
  const bad = await runPythonBlock('x = [1, 2]\n\ny = x[0]\nz = x[5]\nreturn {}', {})
  expect(bad.error).toMatchObject({ pythonType: 'IndexError', line: 4, message: 'IndexError: list index out of range' })
})
