/**
 * A host function with a `compile` hook (GuestFunction.compile) is built once per call site from
 * its arguments' closures, constants readable: no argument array per call. Its `cost` is charged
 * per call, its errors are read by shape and located at the call like a plain host function's; a
 * spread argument, or a hook that declines, gets the plain call with an argument array.
 */
import { expect, test } from 'bun:test'
import { AgentVM, type AjsProgram } from '../../src/vm/index.ts'
import type { GuestArg, GuestFunction } from '../../src/vm/compile/compiler.ts'

const id = (name: string) => ({ $expr: 'ident', name })
const lit = (value: unknown) => ({ $expr: 'literal', value })
const call = (callee: string, args: unknown[]) => ({ $expr: 'call', callee, args })
const program = (steps: unknown[]): AjsProgram => ({ ajs: 1, op: 'seq', steps } as unknown as AjsProgram)

let compiled = 0
let plainCalls = 0
/** scale$by(k, x): k * x; compiled when k is a constant (charging `cost` per call), the plain call otherwise. */
const scaleBy = (cost: number): GuestFunction => Object.assign((_rt: unknown, [k, x]: unknown[]) => { plainCalls++; return (k as number) * (x as number) }, {
  compile: (args: readonly GuestArg[]) => {
    const k = args[0]?.constant?.value
    if (typeof k !== 'number') return undefined
    compiled++
    const x = args[1]!.fn
    return { fn: (f: Parameters<GuestArg['fn']>[0]) => k * (x(f) as number), cost }
  },
})
const fail: GuestFunction = Object.assign(() => 0, {
  compile: () => ({ fn: () => { throw { code: 'TYPE_ERROR', message: 'no such thing' } } }),
})
const vm = new AgentVM({}, { functions: { scale$by: scaleBy(50_000), free$by: scaleBy(0), fail$now: fail } })

test('a call site is compiled once and runs without the plain call', async () => {
  compiled = plainCalls = 0
  const steps = [
    { op: 'varsLet', vars: { t: lit(0), i: lit(0) } },
    { op: 'while', condition: { $expr: 'binary', op: '<', left: id('i'), right: lit(5) }, body: [
      { op: 'varSet', key: 't', value: { $expr: 'binary', op: '+', left: id('t'), right: call('scale$by', [lit(3), id('i')]) } },
      { op: 'varSet', key: 'i', value: { $expr: 'binary', op: '+', left: id('i'), right: lit(1) } },
    ] },
    { op: 'return', value: id('t') },
  ]
  const r = await vm.run(program(steps), {})
  expect(r.result).toBe(30)
  expect(compiled).toBe(1)
  expect(plainCalls).toBe(0)
})

test('the hook declines (a variable where it wants a constant) or an argument is spread: the plain call', async () => {
  plainCalls = 0
  const r = await vm.run(program([{ op: 'varsLet', vars: { k: lit(4) } }, { op: 'return', value: call('scale$by', [id('k'), lit(5)]) }]), {})
  expect(r.result).toBe(20)
  const s = await vm.run(program([{ op: 'return', value: call('scale$by', [{ $expr: 'spread', argument: lit([2, 6]) }]) }]), {})
  expect(s.result).toBe(12)
  expect(plainCalls).toBe(2)
})

test("the hook's cost is charged per call", async () => {
  const paid = await vm.run(program([{ op: 'return', value: call('scale$by', [lit(2), lit(1)]) }]), {})
  const free = await vm.run(program([{ op: 'return', value: call('free$by', [lit(2), lit(1)]) }]), {})
  expect(paid.result).toBe(2)
  expect(paid.fuelUsed - free.fuelUsed).toBeCloseTo(0.05, 9)
})

test('an error thrown by a compiled call is read by shape and located at the call', async () => {
  const r = await vm.run(program([{ op: 'return', value: { ...call('fail$now', []), loc: [3, 7] } }]), {})
  expect(r.error?.code).toBe('TYPE_ERROR')
  expect(r.error?.message).toContain('no such thing')
  expect(r.error?.location).toBe('<ajs>:3:8')
})
