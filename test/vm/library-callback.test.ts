/**
 * A library function may call a helper of the running program back (`Run.callHelper`), at once,
 * metered and depth-counted like any call; a helper that may wait for an atom is refused
 * (`HELPER_WAITS`). A library value with a `[PULL]` method is iterated lazily by `forOf`: one item
 * per iteration, so a loop left by `break` reads no further (how Python generators work).
 */
import { expect, test } from 'bun:test'
import { AgentVM, defineAtom, type AjsProgram } from '../../src/vm/index.ts'
import { PULL, PULL_DONE, type Run } from '../../src/vm/runtime.ts'

const id = (name: string) => ({ $expr: 'ident', name })
const lit = (value: unknown) => ({ $expr: 'literal', value })
const call = (callee: string, args: unknown[]) => ({ $expr: 'call', callee, args })

const functions = {
  /** twice$apply(name, x): the program's helper `name` applied to x, twice. */
  twice$apply: (rt: Run, [name, x]: unknown[]) => rt.callHelper(name as string, [rt.callHelper(name as string, [x])]),
  /** counter$from(n): n, n+1, ... without end, each pulled by the loop that reads it (and counted). */
  counter$from: (_rt: Run, [n]: unknown[]) => {
    let next = n as number
    const source = { pulled: 0, [PULL]: () => { source.pulled++; return next > 1e9 ? PULL_DONE : next++ } }
    return source
  },
  pulled$of: (_rt: Run, [s]: unknown[]) => (s as { pulled: number }).pulled,
  waits$of: (rt: Run, [name]: unknown[]) => rt.helperWaits(name as string),
}

const program = (steps: unknown[], fns: Record<string, unknown> = {}): AjsProgram => ({ ajs: 1, op: 'seq', functions: fns, steps } as unknown as AjsProgram)
const inc = { params: ['x'], steps: [{ op: 'return', value: { $expr: 'binary', op: '+', left: id('x'), right: lit(1) } }] }

test('a library function calls a helper of the program back, synchronously; the calls cost fuel', async () => {
  const vm = new AgentVM({}, { functions })
  const r = await vm.run(program([{ op: 'return', value: call('twice$apply', [lit('inc'), lit(5)]) }], { inc }), {})
  expect(r.result).toBe(7)
  const plain = await vm.run(program([{ op: 'return', value: lit(7) }], { inc }), {})
  expect(r.fuelUsed).toBeGreaterThan(plain.fuelUsed)
  const unknown = await vm.run(program([{ op: 'return', value: call('twice$apply', [lit('nope'), lit(5)]) }], { inc }), {})
  expect(unknown.error?.code).toBe('UNKNOWN_FUNCTION')
})

test('a helper that may wait for an atom is refused with HELPER_WAITS (and helperWaits says so first)', async () => {
  const slow = defineAtom('slow', { type: 'object' }, undefined, async () => 1)
  const vm = new AgentVM({ slow }, { functions })
  const waiting = { params: ['x'], steps: [{ op: 'return', value: call('slow', [{ $expr: 'object', properties: [] }]) }] }
  const fns = { inc, waiting }
  const told = await vm.run(program([{ op: 'return', value: { $expr: 'array', elements: [call('waits$of', [lit('waiting')]), call('waits$of', [lit('inc')])] } }], fns), {})
  expect(told.result).toEqual([true, false])
  const r = await vm.run(program([{ op: 'return', value: call('twice$apply', [lit('waiting'), lit(1)]) }], fns), {})
  expect(r.error?.code).toBe('HELPER_WAITS')
})

test('forOf pulls a lazy source one item per iteration: break leaves the rest unread', async () => {
  const vm = new AgentVM({}, { functions })
  const r = await vm.run(program([
    { op: 'varsLet', vars: { src: call('counter$from', [lit(10)]), total: lit(0), x: lit(null) } },
    { op: 'forOf', target: 'x', iterable: id('src'), body: [
      { op: 'if', condition: { $expr: 'binary', op: '>=', left: id('x'), right: lit(13) }, then: [{ op: 'break' }] },
      { op: 'varSet', key: 'total', value: { $expr: 'binary', op: '+', left: id('total'), right: id('x') } },
    ] },
    { op: 'return', value: { $expr: 'array', elements: [id('total'), call('pulled$of', [id('src')])] } },
  ]), {})
  expect(r.result).toEqual([10 + 11 + 12, 4])
})
