/**
 * The benchmark workloads (bench/workloads, vendored: see its PROVENANCE.md) as a conformance
 * and fuel test: each one, transpiled and run on the VM, must give native
 * JavaScript's result, and its fuel is pinned to the last digit (fuel is
 * deterministic; a change here is a change of the cost model and must be
 * deliberate). Timing lives in bench/, never here.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { AgentVM, transpile } from '../../src/index.ts'

const INDEX = resolve(import.meta.dir, '../../bench/workloads/index.mjs')
const FUEL: Record<string, number> = {
  'arith-loop': 2200.1102,
  'arith-loop-idiomatic': 2000.1102,
  primes: 1180.0971,
  'string-build': 393.67818,
  'array-pipeline': 185.48781,
  records: 416.88213,
  rules: 615.8706,
  'agent-typical': 1.71866,
  'helper-fib': 374.9502,
  'large-source': 209.3441,
}

type Workload = { id: string; source: string; entry: string; args: Record<string, unknown> }
const workloads: Workload[] = existsSync(INDEX) ? (await import(pathToFileURL(INDEX).href)).workloads : []

describe.skipIf(workloads.length === 0)('shared workloads', () => {
  const vm = new AgentVM()
  test('all ten are present', () => {
    expect(workloads.map((w) => w.id).sort()).toEqual(Object.keys(FUEL).sort())
  })
  for (const w of workloads) {
    test(`${w.id}: same result as native JS, fuel pinned`, async () => {
      // eslint-disable-next-line no-new-func -- tests may build the native reference
      const native = new Function(`${w.source}\nreturn ${w.entry}`)()(structuredClone(w.args))
      const { ast } = transpile(w.source, { filename: join('workloads', `${w.id}.ajs`) })
      const first = await vm.run(ast, w.args, { fuel: 1e9 })
      expect(first.error).toBeUndefined()
      expect(first.result).toEqual(JSON.parse(JSON.stringify(native)))
      expect(first.fuelUsed).toBe(FUEL[w.id]!)
      const again = await vm.run(ast, w.args, { fuel: 1e9 })
      expect(again.fuelUsed).toBe(first.fuelUsed)
    }, 30_000)
  }
})
