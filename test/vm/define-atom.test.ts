/** defineAtom with tosijs-schema, custom atoms, validation, timeouts, and the atom context. */
import { describe, expect, test } from 'bun:test'
import { AgentVM, defineAtom } from '../../src/vm/index.ts'
import { s } from '../../src/vm/parts/schema.ts'
import { call, code, id, lit, obj, prog, ret, run, value } from './ast.ts'

describe('defineAtom', () => {
  test('input is validated before fn runs; fn gets the decoded input', async () => {
    const calls: unknown[] = []
    const greet = defineAtom('greet', s.object({ name: s.string, times: s.number }), s.string, (input) => {
      calls.push(input)
      return `hi ${input.name}`.repeat(input.times)
    })
    const machine = new AgentVM({ greet })
    const ast = (fields: any) => prog([{ op: 'greet', ...fields, result: 'g' }, ret(id('g'))])
    expect(await value(ast({ name: 'Ada', times: 2 }), {}, undefined, machine)).toBe('hi Adahi Ada')
    const r = await run(ast({ name: 5, times: 1 }), {}, undefined, machine)
    expect(r.error?.code).toBe('ATOM_INPUT_INVALID')
    expect(r.error?.op).toBe('greet')
    expect(calls).toEqual([{ name: 'Ada', times: 2 }])
  })
  test('output is validated', async () => {
    const liar = defineAtom('liar', s.object({}), s.number, () => 'text' as unknown as number)
    expect(await code(prog([{ op: 'liar' }]), {}, undefined, new AgentVM({ liar }))).toBe('ATOM_OUTPUT_INVALID')
  })
  test('fields come from the input schema: unknown fields and missing required fields are refused', async () => {
    const a = defineAtom('pair', s.object({ x: s.number, y: s.number }), s.number, ({ x, y }) => x + y)
    const machine = new AgentVM({ a })
    expect(a.fields).toEqual({ x: { kind: 'value', optional: false }, y: { kind: 'value', optional: false } })
    expect(await code(prog([{ op: 'pair', x: 1 }]), {}, undefined, machine)).not.toBe('OK')
    expect(await value(prog([{ op: 'pair', x: 1, y: bin2(2, 3), result: 'r' }, ret(id('r'))]), {}, undefined, machine)).toBe(6)
  })
  test('plain JSON Schema objects are accepted too', async () => {
    const j = defineAtom('jsonSchema', { type: 'object', properties: { v: { type: 'string' } }, required: ['v'] }, { type: 'string' }, ({ v }: any) => v.toUpperCase())
    expect(await value(prog([ret(call('jsonSchema', obj({ v: lit('x') })))]), {}, undefined, new AgentVM({ j }))).toBe('X')
  })
  test('options: cost, timeoutMs, docs, sync', () => {
    const a = defineAtom('opt', s.object({}), s.any, () => 1, { cost: 2, timeoutMs: 50, docs: 'Does a thing.', sync: true })
    expect(a).toMatchObject({ op: 'opt', cost: 2, timeoutMs: 50, docs: 'Does a thing.', sync: true })
    const d = defineAtom('dflt', s.object({}), s.any, () => 1)
    expect(d.cost).toBe(1)
    expect(d.timeoutMs).toBe(1000)
  })
  test('invalid op names are refused', () => {
    expect(() => defineAtom('bad name', s.object({}), s.any, () => 1)).toThrow(TypeError)
    expect(() => defineAtom('constructor', s.object({}), s.any, () => 1)).toThrow(TypeError)
    expect(() => defineAtom('x', s.object({}), s.any, 5 as any)).toThrow(TypeError)
  })
  test('language ops cannot be replaced; non-defineAtom objects are refused', () => {
    const fake = defineAtom('if', s.object({}), s.any, () => 1)
    expect(() => new AgentVM({ fake })).toThrow(/language op/)
    expect(() => new AgentVM({ x: { op: 'x' } as any })).toThrow(TypeError)
  })
  test('a custom atom may replace a core library atom', async () => {
    const len = defineAtom('len', s.object({ value: s.any }), s.number, () => 42)
    expect(await value(prog([ret(call('len', obj({ value: lit('abc') })))]), {}, undefined, new AgentVM([len]))).toBe(42)
  })
  test('per-call timeout: ATOM_TIMEOUT (catchable), and the atom\'s signal is aborted', async () => {
    let sig: AbortSignal | undefined
    const slow = defineAtom('slow', s.object({}), s.any, (_i, ctx) => { sig = ctx.signal; return new Promise(() => {}) }, { timeoutMs: 10 })
    const machine = new AgentVM({ slow })
    const r = await run(prog([{ op: 'slow' }]), {}, undefined, machine)
    expect(r.error?.code).toBe('ATOM_TIMEOUT')
    expect(sig?.aborted).toBe(true)
    const caught = prog([{ op: 'try', try: [{ op: 'slow' }], catchParam: 'e', catch: [ret({ $expr: 'member', object: id('e'), property: 'code' })] }])
    expect(await value(caught, {}, undefined, machine)).toBe('ATOM_TIMEOUT')
  })
  test('atom context: op, capabilities, fuelLeft, warn, random/now/uuid through the run', async () => {
    let seen: any
    const probe = defineAtom('probe', s.object({}), s.any, (_i, ctx) => {
      ctx.warn('careful')
      seen = { op: ctx.op, caps: Object.keys(ctx.capabilities), fuelLeft: ctx.fuelLeft, r: ctx.random(), n: ctx.now(), u: ctx.uuid() }
      return null
    }, { cost: 1 })
    const r = await run(prog([{ op: 'probe' }]), {}, { fuel: 10, capabilities: { thing: {} }, random: () => 0.25, now: () => 99, uuid: () => 'id' }, new AgentVM({ probe }))
    expect(seen).toEqual({ op: 'probe', caps: ['thing'], fuelLeft: 8.99, r: 0.25, n: 99, u: 'id' })
    expect(r.warnings).toEqual(['careful'])
  })
  test('a custom atom callable from expressions, with its output crossing the membrane', async () => {
    const hostObj = { list: [1] }
    const give = defineAtom('give', s.object({}), s.any, () => hostObj)
    const ast = prog([{ op: 'varsLet', vars: { g: call('give', obj({})) } }, { op: 'push', list: { $expr: 'member', object: id('g'), property: 'list' }, item: 2 }, ret(id('g'))])
    expect(await value(ast, {}, undefined, new AgentVM({ give }))).toEqual({ list: [1, 2] })
    expect(hostObj).toEqual({ list: [1] })
  })
  test('a host atom gets a plain-data copy of its input: it cannot hold or mutate guest objects', async () => {
    let held: any
    const mutate = defineAtom('mutate', s.object({ o: s.any }), s.any, ({ o }: any) => { held = o; o.x = 'changed'; return null })
    const ast = prog([{ op: 'varsLet', vars: { o: obj({ x: lit(1) }) } }, { op: 'mutate', o: id('o') }, ret(id('o'))])
    expect(await value(ast, {}, undefined, new AgentVM({ mutate }))).toEqual({ x: 1 })
    expect(held).toEqual({ x: 'changed' })
  })
})

const bin2 = (a: number, b: number) => ({ $expr: 'binary', op: '+', left: lit(a), right: lit(b) })
