/** A call of the entry function is AJS3002 with a hint that says why once, naming the function. */
import { expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'

test('calling the entry: AJS3002, the hint names it and says each thing once', () => {
  let err: unknown
  try { transpile('function r({ n }) { return r({ n: n + 1 }) }') } catch (e) { err = e }
  expect(err).toBeInstanceOf(TranspileError)
  const e = err as TranspileError
  expect(e.code).toBe('AJS3002')
  expect(e.hint).toContain('`r` is the entry')
  expect(e.hint).toContain('export default function')
  expect(e.hint.match(/cannot be called/g)?.length).toBe(1)
})
