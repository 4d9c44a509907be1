/**
 * docs/ast.md is executable: every ```json block that is a whole program runs
 * with the args under it and must give the documented result (or error), and
 * the generated op reference must match src/ast/nodes.ts.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { AgentVM, validateAst } from '../../src/vm/index.ts'
import { CORE_OPS, EXPR_KINDS } from '../../src/ast/nodes.ts'
import { AST_DOC_PATH, renderAstDoc } from '../../scripts/gen-ast-doc.ts'
import { docExamples } from './doc-examples.ts'

const doc = readFileSync(AST_DOC_PATH, 'utf8')
const examples = docExamples()

describe('docs/ast.md examples', () => {
  test('there are several complete example programs, each with an expectation', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6)
    for (const ex of examples) expect({ line: ex.line, expectation: ex.hasResult || ex.error !== undefined }).toEqual({ line: ex.line, expectation: true })
  })
  for (const ex of examples) {
    test(`example at line ${ex.line} runs as documented`, async () => {
      expect(validateAst(ex.ast)).toEqual([])
      const r = await new AgentVM().run(ex.ast, ex.args ?? {}, ex.options as any)
      if (ex.error !== undefined) {
        expect(r.error?.code).toBe(ex.error)
      } else {
        expect(r.error).toBeUndefined()
        expect(r.result).toEqual(ex.result as any)
      }
    })
  }
  test('the uncaught-error example reports the thrown value and location', async () => {
    const ex = examples.find((e) => e.error === 'THROWN')!
    const r = await new AgentVM().run(ex.ast, ex.args)
    expect(r.error?.value).toEqual({ reason: 'too young', age: 12 })
    expect(r.error?.location).toBe('check.ajs:2:17')
  })
})

describe('docs/ast.md reference', () => {
  test('the generated op reference is current (run `npx bun scripts/gen-ast-doc.ts`)', () => {
    expect(doc).toBe(renderAstDoc(doc))
  })
  test('every op and every expression kind is documented', () => {
    for (const op of Object.keys(CORE_OPS)) expect(doc).toContain(`#### \`${op}\``)
    for (const kind of Object.keys(EXPR_KINDS)) expect(doc).toContain(`| \`${kind}\` |`)
  })
})
