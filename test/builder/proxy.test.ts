/** The Proxy surface, immutability, errors, and argument resolution rules. */
import { describe, expect, test } from 'bun:test'
import { inspect } from 'node:util'
import { s } from 'tosijs-schema'
import { Agent, BuilderError, e, isBuilder } from '../../src/builder/index.ts'
import { AgentVM } from '../../src/full-vm.ts'

const any = Agent as any

function thrown(fn: () => unknown): BuilderError {
  try { fn() } catch (err) { if (err instanceof BuilderError) return err; throw err }
  throw new Error('expected a BuilderError')
}

describe('probe keys', () => {
  test('then is undefined, so await gives the builder back', async () => {
    const b = Agent.return(1)
    expect((b as any).then).toBeUndefined()
    expect(await b).toBe(b)
  })
  test('symbols and library probes are not atom names', () => {
    for (const k of ['asymmetricMatch', '$$typeof', 'nodeType', 'constructor', 'catch', 'finally']) expect(any[k]).toBeUndefined()
    expect(any[Symbol.iterator]).toBeUndefined()
    expect(any[Symbol.toPrimitive]).toBeUndefined()
    expect(inspect(Agent.let('x', 1))).toBe('AgentBuilder(1 step)')
    expect(String(Agent.let('x', 1).let('y', 2))).toBe('AgentBuilder(2 steps)')
  })
  test('toJSON is the serializer', () => {
    const b = Agent.return('x')
    expect(JSON.parse(JSON.stringify(b))).toEqual({ ajs: 1, op: 'seq', steps: [{ op: 'return', value: 'x' }] })
  })
  test('unknown keys throw a did-you-mean error', () => {
    const err = thrown(() => any.httpFetc)
    expect(err.code).toBe('BUILDER_UNKNOWN_METHOD')
    expect(err.message).toContain('did you mean `httpFetch`')
    expect(thrown(() => any.retrun).message).toContain('`return`')
  })
  test('has/ownKeys', () => {
    expect('httpFetch' in Agent).toBe(true)
    expect('then' in Agent).toBe(false)
    expect(Object.keys(Agent)).toEqual([])
    expect(isBuilder(Agent)).toBe(true)
    expect(isBuilder({})).toBe(false)
  })
})

describe('immutability', () => {
  test('every call returns a new builder; the original is unchanged', () => {
    const base = Agent.let('x', 1)
    const a = base.return(e.ident('x'))
    const b = base.return(2)
    expect(base.toJSON().steps).toHaveLength(1)
    expect(a.toJSON().steps[1]).toEqual({ op: 'return', value: { $expr: 'ident', name: 'x' } })
    expect(b.toJSON().steps[1]).toEqual({ op: 'return', value: 2 })
  })
  test('assignment is refused, and the AST is frozen', () => {
    expect(thrown(() => { any.foo = 1 }).code).toBe('BUILDER_IMMUTABLE')
    const ast = Agent.return(1).toJSON()
    expect(Object.isFrozen(ast) && Object.isFrozen(ast.steps[0])).toBe(true)
  })
})

describe('errors name the step', () => {
  test('invalid chains fail at toJSON with the step index and op', () => {
    const err = thrown(() => Agent.let('x', 1).step({ op: 'len', valu: 1 } as any).toJSON())
    expect(err.code).toBe('BUILDER_INVALID_AST')
    expect(err.step).toBe(1)
    expect(err.op).toBe('len')
    expect(err.message).toMatch(/^step 1 \(len\)/)
  })
  test('nested errors carry the full path', () => {
    const err = thrown(() => Agent.let('x', 1).if('x > 0', (b) => b.let('y', 2).if('y > nope', (c) => c)))
    expect(err.code).toBe('BUILDER_PARSE')
    expect(err.path).toBe('/steps/1/then/1')
    expect(err.step).toBe(1)
    expect(err.message).toContain('`nope` is not declared')
  })
  test('atom inputs are checked at the call', () => {
    expect(thrown(() => any.len({ valeu: 1 })).message).toContain('did you mean `value`')
    expect(thrown(() => any.split({ value: 'a' })).message).toContain('needs the field `separator`')
    expect(thrown(() => any.len(1, 2)).code).toBe('BUILDER_ARGS')
  })
  test('argument mistakes', () => {
    expect(thrown(() => any.as('x')).message).toContain('no')
    expect(thrown(() => Agent.let('x', 1).as('1bad')).code).toBe('BUILDER_ARGS')
    expect(thrown(() => Agent.let('constructor', 1)).code).toBe('BUILDER_ARGS')
    expect(thrown(() => Agent.if('true', (() => 42) as any)).message).toContain('must be a callback returning a builder')
    expect(thrown(() => Agent.try({ try: (b: any) => b } as any)).message).toContain('needs `catch` or `finally`')
    expect(thrown(() => Agent.scope((b) => (b as any).take(s.object({})))).message).toContain('only available on the program root')
    expect(thrown(() => Agent.take(s.string as any)).message).toContain('object schema')
    expect(thrown(() => (Agent.let('x', 1) as any).ref('y')).message).toContain('no variable')
    expect(thrown(() => Agent.forOf('x', '[1]', (b) => b, { knd: 'let' } as any)).message).toContain('unknown option `knd`')
  })
})

describe('argument resolution', () => {
  test('strings in value fields are strings; expressions are explicit', () => {
    const ast = Agent.let('x', 'y').let('z', e.ident('x')).toJSON()
    expect(ast.steps).toEqual([{ op: 'varsLet', vars: { x: 'y' } }, { op: 'varsLet', vars: { z: { $expr: 'ident', name: 'x' } } }])
  })
  test('objects and arrays are templates with expressions inside', async () => {
    const ast = Agent.let('n', 2).return({ n: e.ident('n'), list: [e.parse('n + 1')], s: 'n' }).toJSON()
    expect((await new AgentVM().run(ast)).result).toEqual({ n: 2, list: [3], s: 'n' })
  })
  test('a builder used as a value is embedded as literal AST data', () => {
    const inner = Agent.return(e.parse('1 + 1'))
    const step = Agent.storeProcedure({ ast: inner }).toJSON().steps[0] as any
    expect(step.ast).toEqual({ $expr: 'literal', value: inner.toJSON() })
  })
  test('vars mapping: paths, values and expressions; lambda parameters shadow', () => {
    const b = Agent.take(s.object({ err: s.object({ message: s.string }), xs: s.array(s.number) }))
    const cond = (src: string, vars: Record<string, unknown>) => (b.if(src, vars, (x) => x).toJSON().steps[0] as any).condition
    expect(cond('m', { m: 'err.message' })).toEqual({ $expr: 'member', object: { $expr: 'ident', name: 'err' }, property: 'message' })
    expect(cond('k > 1', { k: 5 })).toEqual({ $expr: 'binary', op: '>', left: { $expr: 'literal', value: 5 }, right: { $expr: 'literal', value: 1 } })
    expect(cond('k', { k: e.lit('text') })).toEqual({ $expr: 'literal', value: 'text' })
    const shadow = cond('xs.some(m => m > lim)', { m: 'err.message', lim: 3 })
    expect(JSON.stringify(shadow)).not.toContain('"message"')
    expect(JSON.stringify(shadow)).toContain('"value":3')
  })
  test('conditions carry no positions from the condition string', () => {
    const c = (Agent.let('s', 'x').if('parseInt(s) > 1', (b) => b).toJSON().steps[1] as any).condition
    expect(JSON.stringify(c)).not.toContain('"loc"')
  })
  test('a vars mapping needs source text', () => {
    expect(thrown(() => Agent.if(e.lit(true), { a: 1 }, (b) => b)).message).toContain('source text')
  })
  test('take() with defaults makes default patterns and keeps the schema', async () => {
    const b = Agent.take({ type: 'object', properties: { n: { type: 'number', default: 2 }, tags: { type: 'array', default: ['a'] } } })
      .return(e.parse('[n, tags]'))
    const ast = b.toJSON()
    expect(ast.params).toEqual({ $pattern: 'object', properties: [
      { key: 'n', value: { $pattern: 'default', target: 'n', default: { $expr: 'literal', value: 2 } } },
      { key: 'tags', value: { $pattern: 'default', target: 'tags', default: { $expr: 'array', elements: [{ $expr: 'literal', value: 'a' }] } } },
    ] })
    expect((await new AgentVM().run(ast, {})).result).toEqual([2, ['a']])
  })
  test('names assigned inside bodies stay visible after them (function scope), lets do not', () => {
    expect(() => Agent.if('true', (b) => b.set('found', 1)).return(e.parse('found'))).not.toThrow()
    expect(thrown(() => Agent.if('true', (b) => b.let('inner', 1)).return(e.parse('inner'))).message).toContain('`inner` is not declared')
  })
})
