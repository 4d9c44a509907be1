/**
 * Test helper: an expression over `x`, `y`, `z` as a VM program and as the same source run by
 * JavaScript (the reference semantics), for property tests of the VM's fused and in-place paths.
 */
import fc from 'fast-check'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'

export interface Reference {
  ast: object
  native: (a: unknown) => unknown
}

const cache = new Map<string, Reference>()

/** `function f({ x, y, z }) { return { r: <expr> } }`, compiled once per expression. */
export function program(expr: string): Reference {
  let p = cache.get(expr)
  if (!p) {
    const source = `function f({ x, y, z }) { return { r: ${expr} } }`
    // eslint-disable-next-line no-new-func -- the reference semantics, test only
    p = { ast: transpile(source).ast, native: new Function(`return (${source.replace('function f', 'function')})`)() as (a: unknown) => unknown }
    cache.set(expr, p)
  }
  return p
}

/** Same value, with -0 and NaN told apart as Object.is does. */
export function same(a: unknown, b: unknown): boolean {
  return typeof a === 'number' && typeof b === 'number' ? Object.is(a, b) : JSON.stringify(a) === JSON.stringify(b)
}

const vm = new AgentVM()

/** Run `expr` on the VM and in JavaScript with the same arguments; throws with both values when they differ. */
export async function agrees(expr: string, args: { x: unknown; y: unknown; z: unknown }): Promise<void> {
  const p = program(expr)
  const expected = (p.native(structuredClone(args)) as { r: unknown }).r
  const run = await vm.run(p.ast, args)
  if (run.error) throw new Error(`${expr} with ${JSON.stringify(args)}: ${run.error.code} ${run.error.message}`)
  const got = (run.result as { r: unknown }).r
  if (!same(got, expected)) throw new Error(`${expr} with ${JSON.stringify(args)}: VM ${JSON.stringify(got)}, JS ${JSON.stringify(expected)}`)
}

/** Operand values: numbers of every kind the fused paths take, and every other kind they must pass on. */
export function operand(ints: number, doubles: number): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.integer({ min: -ints, max: ints }),
    fc.double({ noNaN: false, min: -doubles, max: doubles }),
    fc.constantFrom(0, -0, 1, -1, 0.5, 2, 3, Number.MAX_SAFE_INTEGER),
    fc.constantFrom('3', 'ab', '', null, true, false),
    fc.constantFrom([2], [], { a: 1 }),
  )
}
