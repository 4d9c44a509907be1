/**
 * An `else if` is lowered in the scope around it (no block scope of its own,
 * which would stay empty): a long chain lowers to the same nested steps, its
 * names resolve as before, and collecting refusals (maxErrors) still records
 * one per refused branch and goes on with the next.
 */
import { describe, expect, test } from 'bun:test'
import { transpile, TranspileError } from '../../src/transpiler/index.ts'

function chain(k: number, branch: (i: number) => string): string {
  const arms = Array.from({ length: k }, (_, i) => `  } else if (n === ${i}) {\n${branch(i)}`)
  return `function main({ n }) {\n  let acc = 0\n  const fixed = 1\n  if (n < 0) {\n    acc = 1\n${arms.join('\n')}\n  } else {\n    let acc2 = acc\n    acc = acc2\n  }\n  return acc\n}\n`
}

describe('else if chains', () => {
  test('a chain of 2,000 branches lowers to 2,000 nested if steps, the last with the final else', () => {
    const { ast } = transpile(chain(2000, (i) => `    let acc = Math.max(n, ${i})\n    fixed + acc`))
    let step = ast.steps[2] as { op: string; else?: Array<{ op: string }>; condition: unknown; loc: unknown }
    for (let i = 0; i < 2000; i++) {
      expect(step.else).toHaveLength(1)
      step = step.else![0] as typeof step
      expect(step.op).toBe('if')
      expect(step.condition).toEqual({ $expr: 'binary', op: '===', left: { $expr: 'ident', name: 'n' }, right: { $expr: 'literal', value: i } })
      expect(step.loc).toEqual([6 + 3 * i, 9])
    }
    expect(step.else!.map((s) => s.op)).toEqual(['varsLet', 'varSet'])
  })

  test('a chain of 12,000 branches lowers link after link, or meets the parser\'s guard: never a RangeError (10,000 overflowed the host stack in lowering)', () => {
    const links = (n: number): number | string => {
      let ast
      try {
        ast = transpile(chain(n, (i) => `    acc = ${i}`)).ast
      } catch (e) {
        // acorn parses an else-if chain recursively and refuses it when its own stack runs out.
        return e instanceof TranspileError ? e.code : String(e)
      }
      let step = ast.steps[2] as { op: string; else?: Array<{ op: string }> }
      let count = 0
      while (step.else?.[0]?.op === 'if') {
        step = step.else[0] as typeof step
        count++
      }
      expect(step.else!.map((s) => s.op)).toEqual(['varsLet', 'varSet'])
      return count
    }
    expect(links(5_000)).toBe(5_000)
    expect([12_000, 'AJS1020']).toContain(links(12_000))
  })

  test('names declared in one branch are not seen in the next', () => {
    const source = chain(3, (i) => (i === 1 ? '    let later = 1' : i === 2 ? '    acc = later' : '    acc = 2'))
    expect(() => transpile(source)).toThrow(expect.objectContaining({ code: 'AJS3001', line: 11 }))
  })

  test('collecting refusals records one per refused branch, in source order', () => {
    const source = chain(12, (i) => (i % 4 === 1 ? `    fixed = ${i}` : i % 4 === 2 ? '    acc = accc' : '    acc = acc + 1'))
    let thrown: TranspileError | undefined
    try {
      transpile(source, { maxErrors: 20 })
    } catch (e) {
      thrown = e as TranspileError
    }
    expect(thrown?.errors?.map((e) => [e.code, e.line])).toEqual([
      ['AJS3003', 9], ['AJS3001', 11], ['AJS3003', 17], ['AJS3001', 19], ['AJS3003', 25], ['AJS3001', 27],
    ])
  })
})
