/**
 * Fuel: exact, integer-accounted, deterministic. Every expected figure below
 * is derived by hand from the rules in src/vm/fuel.ts:
 *   0.01 per expression node evaluated, 0.01 per language step, 0.01 per loop
 *   iteration, atom costs from ATOM_COSTS, 0.00001 per string character and
 *   0.0001 per array element / object property allocated.
 */
import { describe, expect, test } from 'bun:test'
import {
  AgentVM, ATOM_COSTS, FUEL_UNIT, NODE_COST, coreAtoms, defineAtom,
} from '../../src/vm/index.ts'
import { s } from '../../src/vm/parts/schema.ts'
import { CORE_OPS } from '../../src/ast/nodes.ts'
import { arr, bin, call, cond, ex, id, let_, lit, logic, obj, prog, progArgs, ret, run, tpl, upd, while_ } from './ast.ts'

const fuelOf = async (ast: unknown, args: unknown = {}, options: any = {}, machine?: AgentVM) => {
  const r = await run(ast, args, options, machine)
  if (r.error) throw new Error(`${r.error.code}: ${r.error.message}`)
  return r.fuelUsed
}
const ab = (steps: any[]) => progArgs(['a', 'b', 'c'], steps)
const args = { a: 1, b: 2, c: 3 }

describe('expression nodes cost 0.01 each', () => {
  test('`a + b` costs exactly 0.03 (an expr step: 0.01 for the step + 0.03)', async () => {
    expect(await fuelOf(ab([ex(bin('+', id('a'), id('b')))]), args)).toBe(0.04)
    expect(await fuelOf(ab([ex(id('a'))]), args)).toBe(0.02)
    expect(await fuelOf(ab([]), args)).toBe(0)
  })
  test('nested: (a + b) * c is 5 nodes', async () => {
    expect(await fuelOf(ab([ex(bin('*', bin('+', id('a'), id('b')), id('c')))]), args)).toBe(0.06)
  })
  test('short-circuit: the right side is charged only when evaluated', async () => {
    const sum = bin('+', id('a'), id('b'))
    expect(await fuelOf(ab([ex(logic('&&', lit(false), sum))]), args)).toBe(0.03)
    expect(await fuelOf(ab([ex(logic('&&', lit(true), sum))]), args)).toBe(0.06)
    expect(await fuelOf(ab([ex(logic('??', lit(0), sum))]), args)).toBe(0.03)
  })
  test('conditional: test + node + the branch taken', async () => {
    const e = (t: boolean) => cond(lit(t), bin('+', id('a'), id('b')), id('c'))
    expect(await fuelOf(ab([ex(e(true))]), args)).toBe(0.01 + 0.02 + 0.03)
    expect(await fuelOf(ab([ex(e(false))]), args)).toBe(0.01 + 0.02 + 0.01)
  })
  test('a return step: 0.01 + its value', async () => {
    expect(await fuelOf(ab([ret(bin('+', id('a'), id('b')))]), args)).toBe(0.04)
    expect(await fuelOf(ab([ret()]), args)).toBe(0.01)
  })
  test('allocation: an array literal of 3 adds 3 × 0.0001', async () => {
    // expr step 0.01 + array node 0.01 + 3 elements 0.03 + 3 slots 0.0003
    expect(await fuelOf(ab([ex(arr(id('a'), id('b'), id('c')))]), args)).toBe(0.0503)
  })
  test('allocation: a built string adds 0.00001 per character', async () => {
    // step 0.01 + template 0.01 + ident 0.01 + "x=1" (3 chars) 0.00003
    expect(await fuelOf(ab([ex(tpl(['x=', ''], id('a')))]), args)).toBe(0.03003)
  })
  test('NODE_COST and FUEL_UNIT constants', () => {
    expect(NODE_COST / FUEL_UNIT).toBe(0.01)
    expect(FUEL_UNIT).toBe(1_000_000)
  })
})

describe('steps and loops', () => {
  test('while loop: step + per iteration (0.01 + test) + body', async () => {
    const ast = prog([
      let_({ i: lit(0) }), // 0.01 + 0.01
      while_(bin('<', id('i'), lit(3)), [ex(upd('++', id('i')))]), // 0.01 + 4 × (0.01 + 0.03) + 3 × (0.01 + 0.02)
    ])
    expect(await fuelOf(ast)).toBe(0.28)
  })
  test('a loop of n iterations costs linearly in n', async () => {
    const loop = (n: number) => prog([let_({ i: lit(0) }), while_(bin('<', id('i'), lit(n)), [ex(upd('++', id('i')))])])
    const f10 = await fuelOf(loop(10))
    const f20 = await fuelOf(loop(20))
    const f30 = await fuelOf(loop(30))
    expect(Math.round((f20 - f10) * 1e6)).toBe(Math.round((f30 - f20) * 1e6))
    expect(Math.round((f20 - f10) * 1e6)).toBe(10 * (10_000 + 30_000 + 30_000))
  })
  test('if: step + condition + the branch taken', async () => {
    const ast = (t: boolean) => prog([{ op: 'if', condition: lit(t), then: [ex(lit(1))], else: [ex(bin('+', lit(1), lit(2)))] }])
    expect(await fuelOf(ast(true))).toBe(0.01 + 0.01 + 0.02)
    expect(await fuelOf(ast(false))).toBe(0.01 + 0.01 + 0.04)
  })
})

describe('atom costs', () => {
  test('ATOM_COSTS covers every core op, and core atoms use it', () => {
    for (const op of Object.keys(CORE_OPS)) expect(typeof ATOM_COSTS[op]).toBe('number')
    for (const [op, def] of Object.entries(coreAtoms)) expect(def.cost).toBe(ATOM_COSTS[op]!)
  })
  test('documented figures', () => {
    expect(ATOM_COSTS).toMatchObject({
      httpFetch: 10, llmPredict: 100, storeGet: 1, storeSet: 2, agentRun: 10, storeProcedure: 1,
      releaseProcedure: 0.5, clearExpiredProcedures: 0.5, uuid: 0.1, len: 0.01, map: 0.1, parallel: 0.1,
    })
  })
  test('uuid step: 0.01 step + 0.1 atom', async () => {
    expect(await fuelOf(prog([{ op: 'uuid' }]), {}, { uuid: () => 'u' })).toBe(0.11)
  })
  test('len step with a 2-element literal: 0.01 + 2 slots + 0.01', async () => {
    expect(await fuelOf(prog([{ op: 'len', value: [1, 2] }]))).toBe(0.0202)
  })
  test('capability atoms: httpFetch costs 10', async () => {
    expect(await fuelOf(prog([{ op: 'httpFetch', url: 'u' }]), {}, { capabilities: { fetch: async () => ({}) } })).toBe(10.01)
  })
  test('custom atoms: default cost 1, fixed cost, cost from input', async () => {
    const a = defineAtom('plain', s.object({}), s.any, () => null)
    const b = defineAtom('fixed', s.object({}), s.any, () => null, { cost: 2.5 })
    const c = defineAtom('perItem', s.object({ items: s.array(s.number) }), s.any, () => null, { cost: (input) => input.items.length * 0.5 })
    const machine = new AgentVM({ a, b, c })
    expect(await fuelOf(prog([{ op: 'plain' }]), {}, {}, machine)).toBe(1.01)
    expect(await fuelOf(prog([{ op: 'fixed' }]), {}, {}, machine)).toBe(2.51)
    expect(await fuelOf(prog([{ op: 'perItem', items: [1, 2, 3, 4] }]), {}, {}, machine)).toBe(0.01 + 0.0004 + 2)
  })
  test('ctx.charge adds fuel from inside an atom', async () => {
    const work = defineAtom('work', s.object({}), s.any, (_i, ctx) => { ctx.charge(0.25); return null }, { cost: 0 })
    expect(await fuelOf(prog([{ op: 'work' }]), {}, {}, new AgentVM({ work }))).toBe(0.26)
  })
})

describe('costOverrides', () => {
  test('a number override changes fuelUsed by exactly the expected amount', async () => {
    const ast = prog([{ op: 'uuid' }, { op: 'uuid' }])
    const base = await fuelOf(ast)
    const over = await fuelOf(ast, {}, { costOverrides: { uuid: 5 } })
    expect(base).toBe(0.22)
    expect(over).toBe(10.02)
    expect(Math.round((over - base) * FUEL_UNIT)).toBe(2 * (5 - 0.1) * FUEL_UNIT)
  })
  test('a function override receives the input and the atom context', async () => {
    const seen: any[] = []
    const ast = prog([{ op: 'storeSet', key: 'k', value: 'abcdefghij' }])
    const store = { set: async () => {} }
    const base = await fuelOf(ast, {}, { capabilities: { store } })
    const over = await fuelOf(ast, {}, {
      capabilities: { store },
      costOverrides: { storeSet: (input: any, ctx: any) => { seen.push([input, ctx.op]); return input.value.length * 0.1 } },
    })
    expect(base).toBe(2.01)
    expect(over).toBe(1.01)
    expect(seen).toEqual([[{ key: 'k', value: 'abcdefghij' }, 'storeSet']])
  })
  test('overriding to 0 makes an atom free', async () => {
    expect(await fuelOf(prog([{ op: 'uuid' }]), {}, { costOverrides: { uuid: 0 } })).toBe(0.01)
  })
  test('overrides of custom atoms', async () => {
    const a = defineAtom('thing', s.object({}), s.any, () => null, { cost: 3 })
    expect(await fuelOf(prog([{ op: 'thing' }]), {}, { costOverrides: { thing: 0.5 } }, new AgentVM({ a }))).toBe(0.51)
  })
  test('an override function returning garbage is OPTIONS_INVALID', async () => {
    const r = await run(prog([{ op: 'uuid' }]), {}, { costOverrides: { uuid: () => NaN } })
    expect(r.error?.code).toBe('OPTIONS_INVALID')
    const r2 = await run(prog([{ op: 'uuid' }]), {}, { costOverrides: { uuid: () => { throw new Error('x') } } })
    expect(r2.error?.code).toBe('OPTIONS_INVALID')
  })
})

describe('running out', () => {
  test('an infinite loop ends with a FUEL_EXHAUSTED error result; fuelUsed is the budget', async () => {
    const r = await run(prog([while_(lit(true), [])]), {}, { fuel: 3 })
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
    expect(r.error?.name).toBe('AgentError')
    expect(r.result).toBe(null)
    expect(r.fuelUsed).toBe(3)
  })
  test('an atom that costs more than what is left', async () => {
    const r = await run(prog([{ op: 'httpFetch', url: 'u' }]), {}, { fuel: 5, capabilities: { fetch: async () => ({}) } })
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
    expect(r.fuelUsed).toBe(5)
  })
  test('a budget just large enough succeeds', async () => {
    expect((await run(ab([ex(bin('+', id('a'), id('b')))]), args, { fuel: 0.04 })).error).toBeUndefined()
    expect((await run(ab([ex(bin('+', id('a'), id('b')))]), args, { fuel: 0.03 })).error?.code).toBe('FUEL_EXHAUSTED')
  })
  test('a tight loop with huge fuel stops at timeoutMs with TIMEOUT', async () => {
    const r = await run(prog([while_(lit(true), [])]), {}, { fuel: 1e12, timeoutMs: 30 })
    expect(r.error?.code).toBe('TIMEOUT')
    expect(r.fuelUsed).toBeGreaterThan(0)
  })
  test('helper recursion is metered (an expensive helper runs out)', async () => {
    const functions = { spin: { params: [], steps: [while_(lit(true), [])] } }
    expect((await run(prog([ex(call('spin'))], { functions }), {}, { fuel: 2 })).error?.code).toBe('FUEL_EXHAUSTED')
  })
})

describe('determinism', () => {
  test('same program + args → identical fuelUsed across runs and VMs', async () => {
    const ast = progArgs(['xs'], [
      { op: 'map', items: id('xs'), as: 'x', steps: [ret(tpl(['<', '>'], bin('*', id('x'), id('x'))))], result: 'm' },
      { op: 'join', items: id('m'), separator: ',', result: 'j' },
      ret(obj({ j: id('j'), n: { $expr: 'member', object: id('j'), property: 'length' } })),
    ])
    const input = { xs: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }
    const results = await Promise.all([1, 2, 3, 4].map((i) => run(ast, input, {}, i % 2 ? new AgentVM() : undefined)))
    const fuels = new Set(results.map((r) => r.fuelUsed))
    expect(fuels.size).toBe(1)
    expect(results[0]!.result).toEqual({ j: '<1>,<4>,<9>,<16>,<25>,<36>,<49>,<64>,<81>,<100>', n: 47 })
  })
  test('fuelUsed has no float drift over many small charges', async () => {
    const loop = prog([let_({ i: lit(0) }), while_(bin('<', id('i'), lit(1000)), [ex(upd('++', id('i')))])])
    // 0.02 + 0.01 + 1001 × 0.04 + 1000 × 0.03
    expect(await fuelOf(loop)).toBe(70.07)
  })
})
