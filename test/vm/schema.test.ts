/** schema/ajs-1.json: generated from the vocabulary, committed, and agreeing with validateAst. */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { AJS_SCHEMA, buildAjsSchema } from '../../src/ast/schema.ts'
import { CORE_OPS, EXPR_KINDS } from '../../src/ast/nodes.ts'
import { validateAst } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'
import { SCHEMA_PATH, schemaText } from '../../scripts/gen-schema.ts'
import { CORPUS } from '../transpiler/differential/corpus.ts'
import { checkSchema } from './schema-check.ts'
import { docExamples } from './doc-examples.ts'
import { arr, bin, id, lit, prog, ret } from './ast.ts'

describe('schema/ajs-1.json', () => {
  test('the committed file equals the generated one (run `npx bun scripts/gen-schema.ts`)', () => {
    expect(readFileSync(SCHEMA_PATH, 'utf8')).toBe(schemaText())
  })
  test('AJS_SCHEMA is the same object as a fresh build', () => {
    expect(AJS_SCHEMA).toEqual(buildAjsSchema())
    expect(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8'))).toEqual(AJS_SCHEMA as any)
  })
  test('shape: draft 2020-12, $defs for step/expr/pattern, oneOf on op and $expr', () => {
    const s = AJS_SCHEMA as any
    expect(s.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
    expect(s.required).toEqual(['ajs', 'op', 'steps'])
    expect(s.properties.ajs).toEqual({ const: 1 })
    for (const d of ['step', 'steps', 'expr', 'pattern', 'patternNode', 'value', 'name']) expect(s.$defs[d]).toBeDefined()
    expect(s.$defs.step.oneOf.length).toBe(Object.keys(CORE_OPS).length + 1)
    for (const op of Object.keys(CORE_OPS)) {
      expect(s.$defs[`step_${op}`].properties.op).toEqual({ const: op })
      for (const field of Object.keys(CORE_OPS[op]!.fields)) expect(s.$defs[`step_${op}`].properties[field]).toBeDefined()
      const required = Object.entries(CORE_OPS[op]!.fields).filter(([, f]) => !f.optional).map(([k]) => k)
      expect(s.$defs[`step_${op}`].required).toEqual(['op', ...required])
    }
    for (const kind of Object.keys(EXPR_KINDS)) expect(s.$defs[`expr_${kind}`].properties.$expr).toEqual({ const: kind })
    // spread and lambda are not expressions on their own
    expect(s.$defs.expr.oneOf.map((r: any) => r.$ref)).not.toContain('#/$defs/expr_spread')
    expect(s.$defs.expr.oneOf.map((r: any) => r.$ref)).not.toContain('#/$defs/expr_lambda')
  })
})

describe('ASTs validate against the schema', () => {
  test('every docs/ast.md example program', () => {
    const examples = docExamples()
    expect(examples.length).toBeGreaterThanOrEqual(5)
    for (const ex of examples) expect(checkSchema(AJS_SCHEMA as any, ex.ast)).toBe(null)
  })
  test('every program of the transpiler corpus (real transpiler output)', () => {
    let n = 0
    for (const p of CORPUS) {
      const { ast } = transpile(p.source)
      expect(validateAst(ast)).toEqual([])
      expect({ name: p.name, at: checkSchema(AJS_SCHEMA as any, ast) }).toEqual({ name: p.name, at: null })
      n++
    }
    expect(n).toBeGreaterThan(50)
  })
  test('custom atom steps', () => {
    expect(checkSchema(AJS_SCHEMA as any, prog([{ op: 'myAtom', anything: { nested: [id('x')] }, result: 'r' }]))).toBe(null)
  })
})

describe('the schema refuses what validateAst refuses', () => {
  const bad: Array<[string, any]> = [
    ['missing version', { op: 'seq', steps: [] }],
    ['wrong version', { ajs: 2, op: 'seq', steps: [] }],
    ['unknown root field', { ajs: 1, op: 'seq', steps: [], x: 1 }],
    ['missing required field', prog([{ op: 'if', then: [] }])],
    ['unknown field of a core op', prog([{ op: 'return', valu: 1 }])],
    ['expr field given a literal', prog([{ op: 'if', condition: true, then: [] }])],
    ['unknown expression kind', prog([ret({ $expr: 'lambada' })])],
    ['unknown operator', prog([ret(bin('<>', lit(1), lit(2)))])],
    ['forbidden identifier', prog([ret(id('constructor'))])],
    ['forbidden key in a value template', prog([{ op: 'expr', value: { __proto__x: 1, constructor: 1 } }])],
    ['spread on its own', prog([ret({ $expr: 'spread', argument: arr() })])],
    ['lambda outside a method call', prog([ret({ $expr: 'lambda', params: [], body: lit(1) })])],
    ['bad pattern kind', prog([{ op: 'destructure', kind: 'let', pattern: { $pattern: 'tuple' }, value: 1 }])],
    ['bad loc', prog([{ op: 'expr', value: 1, loc: [1] }])],
    ['bad result name', prog([{ op: 'expr', value: 1, result: '1x' }])],
    ['custom op with a bad name', prog([{ op: 'not-an-op' }])],
  ]
  for (const [name, ast] of bad) {
    test(name, () => {
      expect(validateAst(ast).length).toBeGreaterThan(0)
      expect(checkSchema(AJS_SCHEMA as any, ast)).not.toBe(null)
    })
  }
})

describe('descriptions of the vocabulary', () => {
  test('every op has exactly one description: inline for atoms, in docs.ts for language ops', async () => {
    const { LANGUAGE_OP_DOCS, EXPR_DOCS, opDoc } = await import('../../src/ast/docs.ts')
    const { coreAtoms } = await import('../../src/vm/index.ts')
    const atomOps = new Set(Object.values(coreAtoms as Record<string, { op: string }>).map((a) => a.op))
    for (const [op, spec] of Object.entries(CORE_OPS)) {
      const inline = spec.doc !== undefined
      const separate = Object.prototype.hasOwnProperty.call(LANGUAGE_OP_DOCS, op)
      expect({ op, described: inline !== separate }).toEqual({ op, described: true })
      // Atoms need theirs at run time (tool definitions); language ops keep theirs out of the VM bundle.
      expect({ op, inline }).toEqual({ op, inline: atomOps.has(op) })
      expect(opDoc(op)!.length).toBeGreaterThan(10)
    }
    expect(Object.keys(LANGUAGE_OP_DOCS).filter((op) => !(op in CORE_OPS))).toEqual([])
    expect(Object.keys(EXPR_DOCS).sort()).toEqual(Object.keys(EXPR_KINDS).sort())
  })
})
