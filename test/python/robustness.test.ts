/**
 * Bad input gets a clear error, never a crash: 400 mutated corpus bodies (characters dropped,
 * duplicated or swapped, with a fixed seed) either compile and run to a result or an error record,
 * or are refused with a TranspileError. Nothing else may escape.
 */
import { expect, test } from 'bun:test'
import { allCases } from './corpus/cases.ts'
import { createPythonVM, transpilePython } from '../../src/python/index.ts'
import { TranspileError } from '../../src/diagnostics/index.ts'

function mutate(src: string, seed: number): string {
  let s = seed >>> 0
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296)
  const chars = [...src]
  const edits = 1 + Math.floor(next() * 3)
  for (let i = 0; i < edits && chars.length > 1; i++) {
    const at = Math.floor(next() * chars.length)
    const op = next()
    if (op < 0.4) chars.splice(at, 1)
    else if (op < 0.7) chars.splice(at, 0, chars[Math.floor(next() * chars.length)]!)
    else { const j = Math.floor(next() * chars.length); [chars[at], chars[j]] = [chars[j]!, chars[at]!] }
  }
  return chars.join('')
}

test('400 mutated bodies: a result, an error record or a TranspileError, nothing else', async () => {
  const vm = createPythonVM()
  const cases = allCases()
  let refused = 0, ran = 0
  for (let i = 0; i < 400; i++) {
    const c = cases[i % cases.length]!
    const body = mutate(c.body, i + 1)
    let ast
    try {
      ast = transpilePython(body, { params: c.params }).ast
    } catch (e) {
      if (!(e instanceof TranspileError)) throw new Error(`crash on ${JSON.stringify(body)}: ${(e as Error)?.stack ?? e}`)
      expect(e.line).toBeGreaterThanOrEqual(1)
      refused++
      continue
    }
    const r = await vm.run(ast, { initial: c.initial, ...c.input }, { fuel: 2_000 })
    if (r.error) expect(r.error.code).not.toBe('INTERNAL')
    ran++
  }
  expect(refused).toBeGreaterThan(50)
  expect(ran).toBeGreaterThan(50)
}, 60_000)
