/**
 * The compiler trusts what validateAst checked (issue 28, the VM bundle's size): the structural checks
 * it repeated (a callee, a method or a key that is no string, a list that is no array, a declaration
 * kind, a parallel form, a template's quasis, a node or step list that is none, an assignment target that
 * is no ident or member, an unknown pattern kind, an unknown operator) are gone from src/vm/compile. Every AST reaches the
 * compiler through AgentVM.compile, which validates first (per limit set, cached); this shows that each
 * shape those checks refused is refused by the validator, with its JSON pointer, before compiling,
 * traced or not. Forbidden names stay checked by both (docs/security.md).
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM } from '../../src/vm/index.ts'

const ident = (name: string) => ({ $expr: 'ident', name })
const lit = (value: unknown) => ({ $expr: 'literal', value })
const expr = (value: unknown) => ({ op: 'expr', value })
const callback = (lambda: Record<string, unknown>) => ({ $expr: 'methodCall', object: { $expr: 'array', elements: [] }, method: 'map', args: [{ $expr: 'lambda', ...lambda }] })

/** Each shape a removed compiler check refused, with the pointer the validator reports. */
const SHAPES: Array<[string, unknown[], string]> = [
  ['call.callee not a name', [expr({ $expr: 'call', callee: 5 })], '/steps/0/value/callee'],
  ['methodCall.method not a string', [expr({ $expr: 'methodCall', object: lit('a'), method: 5 })], '/steps/0/value/method'],
  ['lambda.params not an array', [expr(callback({ params: 'x', body: lit(1) }))], '/steps/0/value/args/0/params'],
  ['lambda with body and steps', [expr(callback({ params: [], body: lit(1), steps: [] }))], '/steps/0/value/args/0/steps'],
  ['parallel.branches not a list', [{ op: 'parallel', branches: 'x' }], '/steps/0/branches'],
  ['parallel.steps not a list', [{ op: 'parallel', items: lit([1]), as: 'x', steps: 'y' }], '/steps/0/steps'],
  ['member.property not a string', [expr({ $expr: 'member', object: lit('a'), property: 1 })], '/steps/0/value/property'],
  ['object.properties not an array', [expr({ $expr: 'object', properties: {} })], '/steps/0/value/properties'],
  ['object property key not a string', [expr({ $expr: 'object', properties: [{ key: 1, value: lit(1) }] })], '/steps/0/value/properties/0/key'],
  ['template quasis one short', [expr({ $expr: 'template', quasis: ['a'], expressions: [lit(1)] })], '/steps/0/value'],
  ['template quasis not an array', [expr({ $expr: 'template', quasis: 'a', expressions: [] })], '/steps/0/value/quasis'],
  ['array elements not an array', [expr({ $expr: 'array', elements: 'a' })], '/steps/0/value/elements'],
  ['call args not an array', [expr({ $expr: 'call', callee: 'parseInt', args: 'a' })], '/steps/0/value/args'],
  ['method args not an array', [expr({ $expr: 'methodCall', object: lit('a'), method: 'trim', args: 'a' })], '/steps/0/value/args'],
  ['assignment to a member with a number key', [{ op: 'varsLet', vars: { o: { $expr: 'object', properties: [] } } }, expr({ $expr: 'assign', op: '=', target: { $expr: 'member', object: ident('o'), property: 1 }, value: lit(1) })], '/steps/1/value/target/property'],
  ['varsLet.vars an array', [{ op: 'varsLet', vars: [] }], '/steps/0/vars'],
  ['destructure.kind unknown', [{ op: 'destructure', kind: 'var', pattern: 'x', value: 1 }], '/steps/0/kind'],
  ['switch.cases not an array', [{ op: 'switch', discriminant: lit(1), cases: {} }], '/steps/0/cases'],
  ['varsImport.keys not an array', [{ op: 'varsImport', keys: 'x' }], '/steps/0/keys'],
  ['varsExport.keys not an array', [{ op: 'varsExport', keys: 'x' }], '/steps/0/keys'],
  ['pattern neither a name nor a node', [{ op: 'destructure', kind: 'let', pattern: 5, value: 1 }], '/steps/0/pattern'],
  ['expression that is no node', [expr({ $expr: 5 })], '/steps/0/value'],
  ['unknown expression kind', [expr({ $expr: 'constructor' })], '/steps/0/value/$expr'],
  ['step list that is no list', [{ op: 'if', condition: lit(true), then: 'x' }], '/steps/0/then'],
  ['step that is no object', [5], '/steps/0'],
  ['assignment to a literal', [expr({ $expr: 'assign', op: '=', target: lit(1), value: lit(1) })], '/steps/0/value/target'],
  ['update of a call', [expr({ $expr: 'update', op: '++', argument: { $expr: 'call', callee: 'parseInt' } })], '/steps/0/value/argument'],
  ['target pattern of a literal', [{ op: 'destructure', kind: 'assign', pattern: { $pattern: 'array', elements: [{ $pattern: 'target', target: lit(1) }] }, value: [1] }], '/steps/0/pattern/elements/0/target'],
  ['unknown pattern kind', [{ op: 'destructure', kind: 'let', pattern: { $pattern: 'rest' }, value: 1 }], '/steps/0/pattern/$pattern'],
  ['unknown binary operator', [expr({ $expr: 'binary', op: '<>', left: lit(1), right: lit(2) })], '/steps/0/value/op'],
  ['unknown logical operator', [expr({ $expr: 'logical', op: 'and', left: lit(1), right: lit(2) })], '/steps/0/value/op'],
  ['unknown unary operator', [expr({ $expr: 'unary', op: 'not', argument: lit(1) })], '/steps/0/value/op'],
  ['unknown assignment operator', [{ op: 'varsLet', vars: { x: 1 } }, expr({ $expr: 'assign', op: ':=', target: ident('x'), value: lit(1) })], '/steps/1/value/op'],
  ['unknown update operator', [{ op: 'varsLet', vars: { x: 1 } }, expr({ $expr: 'update', op: '+++', argument: ident('x') })], '/steps/1/value/op'],
  ['pattern key not a string', [{ op: 'destructure', kind: 'let', pattern: { $pattern: 'object', properties: [{ key: 1, value: 'x' }] }, value: {} }], '/steps/0/pattern/properties/0/key'],
]

describe('shapes the compiler no longer checks are refused by the validator first', () => {
  for (const [name, steps, path] of SHAPES) {
    test(name, async () => {
      const vm = new AgentVM()
      const ast = { ajs: 1, op: 'seq', steps } as never
      for (const options of [{}, { trace: true }, { limits: { maxAstNodes: 500 } }]) {
        const r = await vm.run(ast, {}, options)
        expect(r.error).toMatchObject({ code: 'AST_INVALID', path })
      }
    })
  }
})
