/** docs/errors.md lists every code of every registry and is regenerated, never hand-edited. */
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { ERRORS_DOC_PATH, renderErrorsDoc } from '../scripts/gen-errors-doc.ts'
import { CODES } from '../src/diagnostics/codes.ts'
import { RUNTIME_CODES } from '../src/diagnostics/runtime-codes.ts'

test('docs/errors.md is current (run npx bun scripts/gen-errors-doc.ts)', () => {
  expect(readFileSync(ERRORS_DOC_PATH, 'utf8')).toBe(renderErrorsDoc())
})

test('codes are unique across the transpiler registry', () => {
  const codes = Object.values(CODES).map((c) => c.code)
  expect(new Set(codes).size).toBe(codes.length)
})

test('every code has a message and a hint', () => {
  for (const spec of Object.values(CODES)) expect(spec.message.length * spec.hint.length).toBeGreaterThan(0)
  for (const spec of Object.values(RUNTIME_CODES)) expect(spec.message.length * spec.hint.length).toBeGreaterThan(0)
})
