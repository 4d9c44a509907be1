/**
 * A program with more `let` statements than vars-object.ts keeps as plain
 * `{}` (1,024) gets its later `varsLet` objects in dictionary mode: they must
 * still be ordinary objects (Object.prototype, own keys in declaration order),
 * so the AST equals its own JSON round trip and the steps past the limit look
 * like the ones before it.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'

const LETS = 1500

function manyLets(tail: string): string {
  const lines = Array.from({ length: LETS }, (_, i) => `  let v${i} = n + ${i}, w${i} = v${i} * 2`)
  return `function main({ n }) {\n${lines.join('\n')}\n${tail}\n}\n`
}

describe('varsLet objects of a program with many lets', () => {
  test('every one is a plain object with its names in order, before and past the limit', () => {
    const { ast } = transpile(manyLets('  return { v0, w1499 }'))
    const lets = ast.steps.filter((s) => s.op === 'varsLet') as unknown as Array<{ op: string; vars: Record<string, unknown>; loc: unknown }>
    expect(lets.length).toBe(LETS)
    lets.forEach((s, i) => {
      expect(Object.getPrototypeOf(s.vars)).toBe(Object.prototype)
      expect(Object.keys(s.vars)).toEqual([`v${i}`, `w${i}`])
      expect(s.vars[`v${i}`]).toEqual({ $expr: 'binary', op: '+', left: { $expr: 'ident', name: 'n' }, right: { $expr: 'literal', value: i } })
    })
    expect(lets[LETS - 1]).toEqual({ op: 'varsLet', vars: lets[LETS - 1]!.vars, loc: [LETS + 1, 2] })
    expect(JSON.parse(JSON.stringify(ast))).toStrictEqual(ast)
  })

  test('a refusal past the limit is located as before', () => {
    expect(() => transpile(manyLets('  return nope'))).toThrow(expect.objectContaining({ code: 'AJS3001', line: LETS + 2 }))
  })
})
