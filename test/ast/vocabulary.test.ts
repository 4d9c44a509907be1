/**
 * The vocabulary is declared once (src/ast/nodes.ts, src/ast/globals.ts);
 * everything else is derived from it. These tests check each derived artefact
 * against the table: the JSON Schema, validateAst, docs/ast.md's generated
 * tables, the TypeScript unions, the VM's and the transpiler's derived sets,
 * and that no other file under src/ lists node kinds, operators or global
 * names of its own.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { AJS_SCHEMA } from '../../src/ast/schema.ts'
import { COMPARISON_OPERATORS, CORE_OPS, DECL_KINDS, EXPR_KINDS, OPERATORS, type ExprSpec, type FieldSpec, type OperatorSet } from '../../src/ast/nodes.ts'
import { GLOBAL_FUNCTION_NAMES, GLOBAL_NAMESPACE_NAMES, GLOBAL_VALUE_NAMES } from '../../src/ast/globals.ts'
import { validateAst } from '../../src/ast/validate.ts'
import type { AssignExpr, BinaryExpr, CoreOp, CoreStep, Expr, ExprKind, ExprOf, StepOf, UpdateExpr } from '../../src/ast/types.ts'
import { AST_DOC_PATH, exprsReference } from '../../scripts/gen-ast-doc.ts'
import { GLOBAL_FUNCTIONS as VM_FUNCTIONS, GLOBAL_VALUES as VM_VALUES, NAMESPACES as VM_NAMESPACES } from '../../src/vm/builtins/globals.ts'
import { GLOBAL_FUNCTIONS, GLOBAL_NAMESPACES, GLOBAL_VALUES } from '../../src/transpiler/globals.ts'
import { LOOP_OPS, SYNC_STRUCTURAL_OPS } from '../../src/vm/compile/sync-ops.ts'
import { BINARY_OPS } from '../../src/vm/compile/operators.ts'

const kinds = Object.entries(EXPR_KINDS as Record<string, ExprSpec>)
const schema = AJS_SCHEMA as any
const prog = (value: unknown) => ({ ajs: 1, op: 'seq', steps: [{ op: 'return', value }] })
const lit = (value: unknown) => ({ $expr: 'literal', value })
const id = (name: string) => ({ $expr: 'ident', name })

/** A valid node of every kind (spread and lambda inside the lists that may hold them). */
const SAMPLES: Record<string, unknown> = {
  literal: lit(1),
  ident: id('x'),
  member: { $expr: 'member', object: id('x'), property: 'y' },
  binary: { $expr: 'binary', op: '+', left: lit(1), right: lit(2) },
  logical: { $expr: 'logical', op: '&&', left: lit(1), right: lit(2) },
  unary: { $expr: 'unary', op: '!', argument: lit(1) },
  conditional: { $expr: 'conditional', test: lit(1), consequent: lit(2), alternate: lit(3) },
  array: { $expr: 'array', elements: [lit(1), { $expr: 'spread', argument: id('x') }] },
  object: { $expr: 'object', properties: [{ key: 'a', value: lit(1) }, { $expr: 'spread', argument: id('x') }] },
  spread: { $expr: 'call', callee: 'f', args: [{ $expr: 'spread', argument: id('x') }] },
  template: { $expr: 'template', quasis: ['a', 'b'], expressions: [id('x')] },
  call: { $expr: 'call', callee: 'f', args: [lit(1)] },
  methodCall: { $expr: 'methodCall', object: id('x'), method: 'map', args: [{ $expr: 'lambda', params: ['v'], body: id('v') }] },
  lambda: { $expr: 'methodCall', object: id('x'), method: 'map', args: [{ $expr: 'lambda', params: ['v'], steps: [{ op: 'return', value: id('v') }] }] },
  assign: { $expr: 'assign', op: '=', target: id('x'), value: lit(1) },
  update: { $expr: 'update', op: '++', prefix: true, argument: id('x') },
  sequence: { $expr: 'sequence', expressions: [lit(1), lit(2)] },
  regex: { $expr: 'regex', pattern: 'a+', flags: 'g' },
}

describe('the table', () => {
  test('every expression kind has a sample here, and every sample is valid', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(Object.keys(EXPR_KINDS).sort())
    for (const [kind, node] of Object.entries(SAMPLES)) expect({ kind, problems: validateAst(prog(node)) }).toEqual({ kind, problems: [] })
  })
  test('every op field names an operator set that exists; the comparison operators are binary ones', () => {
    for (const [, spec] of kinds) for (const f of Object.values(spec.fields)) if (f.kind === 'op') expect(Object.keys(OPERATORS)).toContain(f.ops!)
    for (const op of COMPARISON_OPERATORS) expect(OPERATORS.binary).toContain(op)
    for (const [set, ops] of Object.entries(OPERATORS)) expect({ set, unique: new Set(ops).size }).toEqual({ set, unique: ops.length })
  })
})

describe('the JSON Schema is the table', () => {
  test('every expression kind: its fields, its required fields, no others', () => {
    for (const [kind, spec] of kinds) {
      const def = schema.$defs[`expr_${kind}`]
      expect(def.properties.$expr).toEqual({ const: kind })
      expect(Object.keys(def.properties).sort()).toEqual(['$expr', 'loc', ...Object.keys(spec.fields)].sort())
      expect(def.required).toEqual(['$expr', ...Object.entries(spec.fields).filter(([, f]) => !f.optional).map(([k]) => k)])
      expect(def.additionalProperties).toBe(false)
    }
    const standalone = schema.$defs.expr.oneOf.map((r: { $ref: string }) => r.$ref.replace('#/$defs/expr_', '')).sort()
    expect(standalone).toEqual(kinds.filter(([, s]) => !s.only).map(([k]) => k).sort())
  })
  test('every operator set is the enum of the fields that take it', () => {
    let seen = 0
    for (const [kind, spec] of kinds) {
      for (const [field, f] of Object.entries(spec.fields) as Array<[string, FieldSpec]>) {
        if (f.kind !== 'op') continue
        expect(schema.$defs[`expr_${kind}`].properties[field]).toEqual({ enum: [...OPERATORS[f.ops!]] })
        seen++
      }
    }
    expect(seen).toBe(Object.keys(OPERATORS).length)
  })
  test('declaration kinds', () => {
    expect(schema.$defs.step_destructure.properties.kind).toEqual({ enum: [...DECL_KINDS] })
  })
})

describe('validateAst is the table', () => {
  /** The kind and field that take each operator set, with a node to put the operator in. */
  const opNodes: Record<OperatorSet, (op: string) => unknown> = {
    binary: (op) => ({ $expr: 'binary', op, left: lit(1), right: lit(2) }),
    logical: (op) => ({ $expr: 'logical', op, left: lit(1), right: lit(2) }),
    unary: (op) => ({ $expr: 'unary', op, argument: id('x') }),
    assign: (op) => ({ $expr: 'assign', op, target: id('x'), value: lit(1) }),
    update: (op) => ({ $expr: 'update', op, prefix: false, argument: id('x') }),
  }
  test('accepts every operator of every set, and refuses others at the op field', () => {
    expect(Object.keys(opNodes).sort()).toEqual(Object.keys(OPERATORS).sort())
    for (const set of Object.keys(OPERATORS) as OperatorSet[]) {
      for (const op of OPERATORS[set]) expect({ set, op, problems: validateAst(prog(opNodes[set](op))) }).toEqual({ set, op, problems: [] })
      const others = Object.values(OPERATORS).flat().filter((o) => !(OPERATORS[set] as readonly string[]).includes(o))
      for (const op of [...others, '<>', 'instanceof', '']) {
        const problems = validateAst(prog(opNodes[set](op)))
        expect({ set, op, paths: problems.map((p) => p.path) }).toEqual({ set, op, paths: ['/steps/0/value/op'] })
        expect(problems[0]!.message).toContain('operator')
      }
    }
  })
  test('refuses unknown kinds and, for every kind, a missing required field', () => {
    expect(validateAst(prog({ $expr: 'lambada' }))[0]).toMatchObject({ path: '/steps/0/value/$expr', message: 'Unknown expression kind "lambada"' })
    for (const [kind, spec] of kinds) {
      if (spec.only) continue
      const sample = SAMPLES[kind] as Record<string, unknown>
      for (const [field, f] of Object.entries(spec.fields)) {
        if (f.optional) continue
        const { [field]: _dropped, ...rest } = sample
        expect({ kind, field, invalid: validateAst(prog(rest)).length > 0 }).toEqual({ kind, field, invalid: true })
      }
    }
  })
  test('spread and lambda only where the table allows them', () => {
    expect(validateAst(prog({ $expr: 'spread', argument: id('x') }))[0]!.message).toContain('only valid inside')
    expect(validateAst(prog({ $expr: 'lambda', params: [], body: lit(1) }))[0]!.message).toContain('callback')
    expect(validateAst(prog({ $expr: 'call', callee: 'f', args: [{ $expr: 'lambda', params: [], body: lit(1) }] }))[0]!.message).toContain('callback')
  })
})

describe('docs/ast.md', () => {
  test('every kind and operator set is described (src/ast/docs.ts)', async () => {
    const { EXPR_DOCS, EXPR_EXAMPLES, OPERATOR_DOCS } = await import('../../src/ast/docs.ts')
    expect(Object.keys(EXPR_DOCS).sort()).toEqual(Object.keys(EXPR_KINDS).sort())
    expect(Object.keys(EXPR_EXAMPLES).sort()).toEqual(Object.keys(EXPR_KINDS).sort())
    expect(Object.keys(OPERATOR_DOCS).sort()).toEqual(Object.keys(OPERATORS).sort())
  })
  test('its expression and operator tables are the generated ones (run `npx bun scripts/gen-ast-doc.ts`)', () => {
    const doc = readFileSync(AST_DOC_PATH, 'utf8')
    expect(doc).toContain(exprsReference())
    for (const kind of Object.keys(EXPR_KINDS)) expect(doc).toContain(`| \`${kind}\` |`)
  })
})

describe('the VM and the transpiler derive their sets from the table', () => {
  test('async scan: loops and structural ops that never wait', () => {
    expect([...LOOP_OPS].sort()).toEqual(Object.keys(CORE_OPS).filter((op) => CORE_OPS[op]!.loops).sort())
    expect(LOOP_OPS.size).toBe(5)
    for (const op of ['parallel', 'cache', 'httpFetch', 'push']) expect(SYNC_STRUCTURAL_OPS.has(op)).toBe(false)
    for (const op of ['seq', 'if', 'while', 'map', 'memoize', 'varSet']) expect(SYNC_STRUCTURAL_OPS.has(op)).toBe(true)
  })
  test('the VM implements every binary operator and no other', () => {
    expect(Object.keys(BINARY_OPS).sort()).toEqual([...OPERATORS.binary].sort())
  })
  test('global names: one list, the transpiler and the VM agree', () => {
    expect([...GLOBAL_VALUES].sort()).toEqual([...GLOBAL_VALUE_NAMES].sort())
    expect([...GLOBAL_NAMESPACES].sort()).toEqual([...GLOBAL_NAMESPACE_NAMES].sort())
    expect([...GLOBAL_FUNCTIONS].sort()).toEqual([...GLOBAL_FUNCTION_NAMES].sort())
    expect(Object.keys(VM_FUNCTIONS).sort()).toEqual([...GLOBAL_FUNCTION_NAMES].sort())
    expect(Object.keys(VM_NAMESPACES).sort()).toEqual([...GLOBAL_NAMESPACE_NAMES].sort())
    expect(Object.keys(VM_VALUES).sort()).toEqual([...GLOBAL_VALUE_NAMES, ...GLOBAL_NAMESPACE_NAMES].sort())
  })
})

describe('the TypeScript types are the table', () => {
  // Checked by `tsc` (test/ is type-checked): these lines stop compiling when the types drift.
  type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
  const kindsMatch: Equal<Expr['$expr'], ExprKind> = true
  const binaryOps: Equal<BinaryExpr['op'], (typeof OPERATORS.binary)[number]> = true
  const assignOps: Equal<AssignExpr['op'], (typeof OPERATORS.assign)[number]> = true
  const updateOps: Equal<UpdateExpr['op'], '++' | '--'> = true
  const binaryShape: Equal<keyof ExprOf<'binary'>, '$expr' | 'loc' | 'op' | 'left' | 'right'> = true
  const ifShape: Equal<keyof StepOf<'if'>, 'op' | 'result' | 'loc' | 'condition' | 'then' | 'else'> = true
  const stepsCovered: Equal<CoreStep['op'], CoreOp> = true
  test('the unions cover the table (compile-time checks above; here their values)', () => {
    expect([kindsMatch, binaryOps, assignOps, updateOps, binaryShape, ifShape, stepsCovered]).toEqual([true, true, true, true, true, true, true])
    // @ts-expect-error an operator outside the binary set is a type error
    const bad: BinaryExpr = { $expr: 'binary', op: '<>', left: { $expr: 'literal', value: 1 }, right: { $expr: 'literal', value: 2 } }
    // @ts-expect-error a required field of StepOf<'if'> is missing
    const noCondition: StepOf<'if'> = { op: 'if', then: [] }
    expect([bad, noCondition].length).toBe(2)
  })
})

describe('no other file under src/ lists node kinds, operators or global names', () => {
  const SRC = resolve(import.meta.dir, '../../src')
  const files = (dir: string): string[] => readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : []
  })
  const ajsOps = new Set<string>(Object.values(OPERATORS).flat())
  const symbolOps = [...ajsOps].filter((o) => !/^[a-z]+$/.test(o))
  const distinctive = ['binary', 'logical', 'unary', 'conditional', 'methodCall', 'lambda', 'assign', 'update', 'sequence', 'spread', 'regex']
  const globals: string[] = [...GLOBAL_FUNCTION_NAMES, ...GLOBAL_NAMESPACE_NAMES].filter((n) => !['String', 'Number', 'Error', 'Array', 'Object', 'Set', 'Date', 'Math', 'JSON'].includes(n))
  /**
   * Quoted strings in list position (after `[`, `(` or `,` and before `,`, `]` or `)`): not object
   * keys (`'x':`), cases, or index accesses (`table['x']`).
   */
  const listed = (line: string) => [...line.matchAll(/(?:(?<![\w\])])\[|,|\()\s*'([^'\s]{1,20})'\s*(?=[,\])])/g)].map((m) => m[1]!)

  /** The offending lines of a file's text (exported for the negative test below). */
  function offences(text: string): string[] {
    const out: string[] = []
    for (const line of text.split('\n')) {
      const items = listed(line)
      // A list holding a token AJS does not have (Python's '//', 'not in', 'is') is another language's vocabulary.
      const foreign = items.some((q) => /^[^\w\s$]+$|^(not in|is|is not)$/.test(q) && !ajsOps.has(q))
      const ops = new Set(items.filter((q) => symbolOps.includes(q)))
      const kinds = new Set(items.filter((q) => distinctive.includes(q)))
      const names = new Set(items.filter((q) => globals.includes(q)))
      if ((ops.size >= 4 && !foreign) || kinds.size >= 3 || names.size >= 3) out.push(line.trim())
    }
    return out
  }

  test('the check finds the lists it is meant to find', () => {
    expect(offences(`const BINARY = new Set(['+', '-', '*', '/'])`)).toHaveLength(1)
    expect(offences(`const K = ['binary', 'logical', 'unary']`)).toHaveLength(1)
    expect(offences(`const F = new Set(['parseInt', 'parseFloat', 'encodeURI'])`)).toHaveLength(1)
    expect(offences(`const PY = new Set(['<', '>', '==', '<>', 'not in'])`)).toHaveLength(0)
    expect(offences(`const ARITH = { '+': 0, '-': 1, '*': 2, '/': 3 }`)).toHaveLength(0)
    expect(offences(`const F = { add: T['+']!, sub: T['-']!, mul: T['*']!, div: T['/']! }`)).toHaveLength(0)
  })
  test('src/ outside src/ast', () => {
    const found: string[] = []
    for (const file of files(SRC)) {
      if (file.startsWith(join(SRC, 'ast') + '/')) continue
      for (const line of offences(readFileSync(file, 'utf8'))) found.push(`${relative(SRC, file)}: ${line}`)
    }
    expect(found).toEqual([])
  })
})
