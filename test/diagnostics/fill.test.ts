/**
 * fill() writes a code's message and hint with their `{param}` placeholders filled: it splits each
 * template once and joins the pieces. Held here to what a regex replace of the placeholders gives
 * (`${x}` kept as the JavaScript it is, unknown params empty, a param's `$&` kept literally).
 */
import { describe, expect, test } from 'bun:test'
import { CODES, fill } from '../../src/diagnostics/codes.ts'

const byRegex = (t: string, p: Record<string, string | undefined>) => t.replace(/(?<!\$)\{(\w+)\}/g, (_m, k: string) => p[k] ?? '')

describe('fill', () => {
  test("every code's message and hint, with params and without, as a regex replace gives", () => {
    const params = { name: 'total', op: '==', strict: '===', entry: 'main', detail: 'd$1{x}', target: '$&', code: '{name}' }
    const templates = Object.values(CODES).flatMap((c) => [c.message, c.hint])
    expect(templates.length).toBeGreaterThan(200)
    for (const t of templates) {
      for (const p of [params, {}]) expect(fill(t, p)).toBe(byRegex(t, p))
    }
  })

  test('placeholders at the edges, next to each other, after $, unclosed, twice', () => {
    const p = { a: '1', b: '2', c: '$' }
    for (const t of ['', '{a}', '{a}{b}', 'x {a} y ${b} z {c}', '{', '}', '{a', '${a}', '{{a}}', '{a-b}', '{a} and {a}']) {
      expect(fill(t, p)).toBe(byRegex(t, p))
    }
    expect(fill('`{name}` is {kind}', { name: 'x' })).toBe('`x` is ')
  })
})
