/**
 * Shared helpers of the adversarial suite: a snapshot of the host realm
 * (prototypes and globals) to prove a run changed nothing, and a runner for
 * AJS source bodies.
 */
import { expect } from 'bun:test'
import { AgentVM } from '../../src/index.ts'
import type { RunOptions, RunResult } from '../../src/index.ts'

const WATCHED: Array<[string, object]> = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
  ['Number.prototype', Number.prototype],
  ['RegExp.prototype', RegExp.prototype],
  ['JSON', JSON],
  ['Math', Math],
]

export interface HostSnapshot {
  protos: Map<string, Map<string | symbol, PropertyDescriptor>>
  globals: Map<string, unknown>
}

/** Property names and descriptors of the watched prototypes, and every global binding. */
export function snapshotHost(): HostSnapshot {
  const protos = new Map<string, Map<string | symbol, PropertyDescriptor>>()
  for (const [name, o] of WATCHED) {
    const m = new Map<string | symbol, PropertyDescriptor>()
    for (const k of Reflect.ownKeys(o)) m.set(k, Object.getOwnPropertyDescriptor(o, k)!)
    protos.set(name, m)
  }
  const globals = new Map<string, unknown>()
  for (const k of Object.getOwnPropertyNames(globalThis)) {
    const d = Object.getOwnPropertyDescriptor(globalThis, k)!
    if ('value' in d) globals.set(k, d.value)
  }
  return { protos, globals }
}

const sameDescriptor = (a: PropertyDescriptor, b: PropertyDescriptor) =>
  a.value === b.value && a.get === b.get && a.set === b.set && a.writable === b.writable
  && a.enumerable === b.enumerable && a.configurable === b.configurable

/** Differences between two snapshots (empty when the host is unaffected). */
export function diffHost(before: HostSnapshot, after: HostSnapshot): string[] {
  const out: string[] = []
  for (const [name, m] of before.protos) {
    const n = after.protos.get(name)!
    for (const [k, d] of m) if (!n.has(k) || !sameDescriptor(d, n.get(k)!)) out.push(`${name}.${String(k)} changed`)
    for (const k of n.keys()) if (!m.has(k)) out.push(`${name}.${String(k)} added`)
  }
  for (const [k, v] of before.globals) if (after.globals.get(k) !== v && !(Number.isNaN(v) && Number.isNaN(after.globals.get(k)))) out.push(`global ${k} changed`)
  for (const k of after.globals.keys()) if (!before.globals.has(k)) out.push(`global ${k} added`)
  return out
}

/** The host must look the same as at `before` (and no plain object gained a polluted key). */
export function expectHostUnchanged(before: HostSnapshot): void {
  expect(diffHost(before, snapshotHost())).toEqual([])
  const probe: Record<string, unknown> = {}
  for (const k of ['polluted', 'isAdmin', 'x', 'toString2']) expect(probe[k]).toBeUndefined()
}

export const vm = new AgentVM()

/** Helper functions every guest body may call. */
const GUEST_HELPERS = `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
function down(n) { return down(n + 1) }`

/** Run the body of `function main() { ... }` on the shared VM. */
export function runBody(body: string, options: RunOptions = {}, args: Record<string, unknown> = {}): Promise<RunResult> {
  return vm.run(`${GUEST_HELPERS}\nfunction main() {\n${body}\n}`, args, { fuel: 10_000, timeoutMs: 5_000, ...options })
}

/** A shared nested array of 2^depth paths, built by the guest. */
export const DAG = (depth = 40) => `let a = [1]\nfor (let i = 0; i < ${depth}; i++) { a = [a, a] }\n`

/** A string of 2^n characters, built by the guest by doubling. */
export const BIG = (n = 24) => `let s = 'x'\nfor (let i = 0; i < ${n}; i++) { s = s + s }\n`

export type Expectation = { code: string } | { result: unknown }

export interface Case {
  name: string
  body: string
  expect: Expectation
  options?: RunOptions
  args?: Record<string, unknown>
}

/** Assert one case: the exact error code or result, then the host is unchanged. */
export async function check(c: Case): Promise<void> {
  const before = snapshotHost()
  const r = await runBody(c.body, c.options, c.args)
  if ('code' in c.expect) {
    expect({ code: r.error?.code, message: r.error?.message }).toMatchObject({ code: c.expect.code })
    expect(r.result).toBeNull()
  } else {
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual(c.expect.result)
  }
  expectHostUnchanged(before)
}

/** Run `body` with every native Map the host makes watched: the longest text used as a key of one, and how many keys were set. */
export async function watchingMaps(body: string, fuel = 2_000) {
  const NativeMap = globalThis.Map
  const seen = { longest: 0, sets: 0 }
  globalThis.Map = class extends NativeMap<unknown, unknown> {
    override set(k: unknown, v: unknown) {
      seen.sets++
      if (typeof k === 'string') seen.longest = Math.max(seen.longest, k.length)
      return super.set(k, v)
    }
  } as MapConstructor
  try {
    const r = await runBody(body, { fuel })
    return { ...seen, out: r.error?.code ?? r.result, fuelUsed: r.fuelUsed }
  } finally {
    globalThis.Map = NativeMap
  }
}
