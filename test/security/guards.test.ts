/**
 * Hardening round 3, class 8 (issue 23): guards with an unhandled case, each
 * now one entry every path goes through.
 *
 * - flow_repair's immutable options: one rule over the normalized graphs
 *   (src/flowlang/repair.ts immutableProblems), for every block, every way a
 *   patch can name a node;
 * - runtime objects of a library (the Python runtime's range, dict, float,
 *   iterator): read-only to guest code through the VM's one write rule
 *   (src/vm/guards.ts isGuestData), whichever write path a program takes;
 * - the per-worker heap limit: decided in src/server/pool/heap.ts and applied
 *   on every runtime (Bun ignores worker resourceLimits: the pool watches the
 *   process's memory there and stops the longest run).
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { AgentVM } from '../../src/index.ts'
import '../../src/python/library.ts'
import { applyFlowRepair } from '../../src/flowlang/index.ts'
import { RUNTIME_APPLIES_WORKER_HEAP_LIMIT, runMaxHeapBytes } from '../../src/server/pool/heap.ts'

describe('class 8: flow_repair immutables, one rule over normalized graphs', () => {
  const kernel = (protocols: Array<{ id: string; type?: string; options?: Record<string, unknown> }>) => ({
    version: 1,
    name: 'g',
    nodes: [
      ...protocols.map((p) => ({ id: p.id, type: p.type ?? 'protocol.openai', options: p.options ?? { baseUrl: 'http://127.0.0.1:1/v1' } })),
      { id: 'x', type: 'codec.mcp_over_functions', options: {} },
      { id: 'r', type: 'router.mcp', options: {} },
    ],
    edges: [
      { from: [protocols[0]?.id ?? 'p', 'stream.delta'], to: ['x', 'stream.delta'] },
      { from: ['x', 'tool_use.neutral'], to: ['r', 'tool_use.neutral'] },
      { from: ['r', 'tool_result.neutral'], to: ['x', 'tool_result.neutral'] },
    ],
  })
  const names = (r: ReturnType<typeof applyFlowRepair>) => r.problems.map((p) => p.name)

  test('a new protocol id beside two current protocols (was: no counterpart, not checked, adopted)', () => {
    const current = kernel([{ id: 'p1' }, { id: 'p2' }])
    const patch = { nodes: kernel([{ id: 'evil', options: { baseUrl: 'http://evil.example/v1' } }]).nodes, edges: kernel([{ id: 'evil' }]).edges }
    const r = applyFlowRepair(current, patch)
    expect(r.adopted).toBe(false)
    expect(names(r)).toEqual(['REPAIR_IMMUTABLE'])
    // Keeping the values of one of the current protocols under a new id is fine.
    const kept = applyFlowRepair(current, { nodes: kernel([{ id: 'p3' }]).nodes, edges: kernel([{ id: 'p3' }]).edges })
    expect(kept.adopted).toBe(true)
  })

  test('adding a protocol to a flow that names none keeps the baseline it runs (was: any base URL)', () => {
    const current = { ...kernel([]), nodes: kernel([]).nodes, edges: [] }
    const evil = applyFlowRepair(current, { nodes: kernel([{ id: 'p', options: { baseUrl: 'http://evil.example/v1' } }]).nodes, edges: kernel([{ id: 'p' }]).edges })
    expect(names(evil)).toEqual(['REPAIR_IMMUTABLE'])
    // The session's baseline: the configured endpoint is what may be written down.
    const baseline = { type: 'protocol.openai', options: { baseUrl: 'http://127.0.0.1:1/v1' } }
    const ok = applyFlowRepair(current, { nodes: kernel([{ id: 'p' }]).nodes, edges: kernel([{ id: 'p' }]).edges }, { baseline })
    expect(ok.adopted).toBe(true)
    // Without a baseline, the block's defaults are the baseline.
    const defaults = applyFlowRepair(current, { nodes: kernel([{ id: 'p', options: {} }]).nodes, edges: kernel([{ id: 'p' }]).edges })
    expect(defaults.adopted).toBe(true)
  })

  test('an alias beside the canonical name: the value the runtime uses is compared', () => {
    const current = kernel([{ id: 'p' }])
    // Canonical name wins in normalization: the alias is ignored, nothing changes.
    const same = applyFlowRepair(current, { nodes: kernel([{ id: 'p', options: { baseUrl: 'http://127.0.0.1:1/v1', base: 'http://evil.example/v1' } }]).nodes })
    expect(same.adopted).toBe(true)
    if (same.adopted) expect(same.graph.nodes[0]!.options!['baseUrl']).toBe('http://127.0.0.1:1/v1')
    const alias = applyFlowRepair(current, { nodes: kernel([{ id: 'p', options: { base: 'http://evil.example/v1' } }]).nodes })
    expect(names(alias)).toEqual(['REPAIR_IMMUTABLE'])
    expect(alias.problems[0]!.path).toBe('/patch/nodes/0/options/baseUrl')
  })

  test('switching the protocol type cannot drop or add credentials', () => {
    const current = kernel([{ id: 'p', options: { baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' } }])
    const r = applyFlowRepair(current, { nodes: kernel([{ id: 'p', type: 'protocol.ollama', options: { baseUrl: 'http://127.0.0.1:1/v1' } }]).nodes })
    expect(names(r)).toEqual(['REPAIR_IMMUTABLE'])
    const key = applyFlowRepair(kernel([{ id: 'p' }]), { nodes: kernel([{ id: 'p', options: { baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'stolen' } }]).nodes })
    expect(names(key)).toEqual(['REPAIR_IMMUTABLE'])
  })
})

describe('class 8: runtime library objects are read-only to guest code (one write rule in the VM)', () => {
  const vm = new AgentVM()
  const lit = (value: unknown) => ({ $expr: 'literal', value })
  const id = (name: string) => ({ $expr: 'ident', name })
  const call = (callee: string, ...args: unknown[]) => ({ $expr: 'call', callee, args })
  const member = (prop: string) => ({ $expr: 'member', object: id('x'), property: prop })
  const step = (value: unknown) => ({ op: 'expr', value })
  const prog = (init: unknown, mutate: unknown) => ({
    ajs: 1, op: 'seq', libraries: { python: 1 },
    steps: [{ op: 'varsLet', vars: { x: id('undefined') } }, { op: 'varSet', key: 'x', value: init }, step(mutate), { op: 'return', value: call('py$len', id('x')) }],
  })
  const assign = (prop: string, v: unknown) => ({ $expr: 'assign', op: '=', target: member(prop), value: v })
  const CASES: Array<[string, unknown, unknown]> = [
    ['range.step = 1e-300 (len() then looped on a non-integer step)', call('py$range', lit(0), lit(1e15)), assign('step', lit(1e-300))],
    ['range.stop = 1e300', call('py$range', lit(0), lit(10)), assign('stop', lit(1e300))],
    ['range.start += 1 (compound)', call('py$range', lit(0), lit(10)), { $expr: 'assign', op: '+=', target: member('start'), value: lit(1) }],
    ['dict.map = 5 (a host TypeError inside the runtime)', call('py$dict', lit([])), assign('map', lit(5))],
    ['delete dict.map', call('py$dict', lit([])), { $expr: 'unary', op: 'delete', argument: member('map') }],
    ['Object.assign(dict, { map: 1 })', call('py$dict', lit([])), { $expr: 'methodCall', object: id('Object'), method: 'assign', args: [id('x'), { $expr: 'object', properties: [{ key: 'map', value: lit(1) }] }] }],
    ['Object.freeze(range) (the runtime could not update it any more)', call('py$range', lit(0), lit(10)), { $expr: 'methodCall', object: id('Object'), method: 'freeze', args: [id('x')] }],
  ]
  for (const [name, init, mutate] of CASES) {
    test(name, async () => {
      const r = await vm.run(prog(init, mutate), {}, { fuel: 100, timeoutMs: 2000 })
      expect(r.error?.code).toBe('TYPE_ERROR')
      expect(r.error?.message).toMatch(/read-only object/)
    })
  }

  test('plain guest objects and arrays stay writable', async () => {
    const r = await vm.run('function main() { const o = { a: 1 }\n o.b = 2\n delete o.a\n const xs = [1]\n xs[1] = 2\n Object.assign(o, { c: 3 })\n Object.freeze(xs)\n return [o, xs] }')
    expect(r.result).toEqual([{ b: 2, c: 3 }, [1, 2]])
  })
})

describe('class 8: the per-worker heap limit holds on every runtime', () => {
  test('runs get a maxHeapBytes from the worker heap (a quarter, at most 64 MiB)', () => {
    expect(runMaxHeapBytes(512)).toBe(64 * 1024 * 1024)
    expect(runMaxHeapBytes(64)).toBe(16 * 1024 * 1024)
  })

  test('a run holding many medium values in a 64 MiB worker is stopped, and the server still answers', () => {
    // In a process of its own (heap-limit-server-child.ts says why), as a server runs.
    const out = spawnSync(process.execPath, [join(import.meta.dir, 'heap-limit-server-child.ts')], { encoding: 'utf8', timeout: 60_000 })
    const line = out.stdout.trim().split('\n').pop() ?? ''
    if (!line.startsWith('{')) throw new Error(`child failed (status ${out.status}, ${out.error ?? ''}): ${out.stderr.slice(-2000)}`)
    const r = JSON.parse(line) as { code: string | null; body: string; ms: number; heapStops: number; health: number; afterResult: unknown }
    if (r.code !== 'HEAP_LIMIT') console.log(r.body)
    expect(r.code).toBe('HEAP_LIMIT')
    expect(r.ms).toBeLessThan(15_000)
    if (!RUNTIME_APPLIES_WORKER_HEAP_LIMIT) expect(r.heapStops).toBeGreaterThanOrEqual(1)
    expect(r.health).toBe(200)
    expect(r.afterResult).toBe(1)
  }, 70_000)
})
