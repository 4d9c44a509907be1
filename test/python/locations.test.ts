/**
 * Errors inside fused arithmetic (one py$ex call for a tree of operations) point at the
 * operation that raised, not at the start of the expression: the fusion keeps each inner
 * operation's own location.
 */
import { expect, test } from 'bun:test'
import { runPythonBlock } from '../../src/python/index.ts'

test('a KeyError inside a fused expression points at the subscript that raised', async () => {
  const r = await runPythonBlock('x = 1\ny = {"a": 1}\nz = 2 + y["b"] * 3\nreturn {"v": z}', {})
  expect(r.error).toMatchObject({ code: 'PY_EXCEPTION', pythonType: 'KeyError', line: 3, column: 9 })
  const aug = await runPythonBlock('total = 0\nfor k in ks:\n    total += d[k] // 2\nreturn {"total": total}', { input: { ks: ['a', 'b'], d: { a: 4 } }, params: ['initial', 'ks', 'd'] })
  expect(aug.error).toMatchObject({ pythonType: 'KeyError', line: 3, column: 14 })
})

test('a ZeroDivisionError deep in a fused expression points at the division', async () => {
  const r = await runPythonBlock('a = 3\nb = 0\nc = a * 2 + (a // b) - 1\nreturn {"c": c}', {})
  expect(r.error).toMatchObject({ pythonType: 'ZeroDivisionError', line: 3, column: 14 })
})
