/** Runs every example in examples/ and checks what it prints/returns. */
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ajsc } from '../cli/run-cli.ts'

const EXAMPLES = resolve(import.meta.dir, '../../examples')

describe('examples', () => {
  test('there are at least 8, each with a README section', () => {
    const dirs = readdirSync(EXAMPLES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)
    const readme = readFileSync(join(EXAMPLES, 'README.md'), 'utf8')
    expect(dirs.length + 1).toBeGreaterThanOrEqual(8)
    for (const d of [...dirs, 'hello']) expect(readme).toContain(`## ${d} `)
    for (const d of dirs) expect(existsSync(join(EXAMPLES, d, 'main.ts'))).toBe(true)
  })

  test('hello.ajs with ajsc run', () => {
    const r = ajsc(['run', 'examples/hello.ajs', '--args', '{"name":"World"}'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ greeting: 'Hello, World!', length: 13 })
  })

  test('rule-engine', async () => {
    const { main } = await import('../../examples/rule-engine/main.ts')
    expect(await main()).toEqual({
      a: { applied: ['vip', 'bulk'], discount: 0.2, total: 960 },
      b: { applied: ['first-order'], discount: 0.05, total: 76 },
      c: { applied: ['blocked-country'], discount: 0, total: 5000 },
    })
  })

  test('rag', async () => {
    const { main } = await import('../../examples/rag/main.ts')
    const out = await main('How do programs get network access?') as unknown as { ingested: unknown; answer: string; sources: string[] }
    expect(out.ingested).toEqual({ count: 3 })
    expect(out.sources[0]).toBe('caps')
    expect(out.answer).toStartWith('[caps]')
    const fuel = await main('What happens when the fuel budget is spent?') as unknown as { sources: string[] }
    expect(fuel.sources[0]).toBe('fuel')
  })

  test('orchestrator', async () => {
    const { main } = await import('../../examples/orchestrator/main.ts')
    const out = await main() as Record<string, unknown>
    expect(out['results']).toEqual([
      { task: 'wordCount', output: { words: 5 } },
      { task: 'shout', output: { text: 'FAN OUT!' } },
      { task: 'sum', output: { total: 10 } },
    ])
    expect(out['workers']).toBe(3)
    expect(out['tokenPrefix']).toBe('proc_')
    expect(out['byToken']).toEqual({ text: 'BY TOKEN!' })
  })

  test('cost-tiers', async () => {
    const { main } = await import('../../examples/cost-tiers/main.ts')
    const out = await main() as Record<string, { error?: string; notes?: number; fuelUsed: number }>
    expect(out['free']).toEqual({ error: 'FUEL_EXHAUSTED', fuelUsed: 800 })
    expect(out['pro']!.notes).toBe(3)
    expect(out['enterprise']!.notes).toBe(3)
    expect(out['enterprise']!.fuelUsed).toBeLessThan(out['pro']!.fuelUsed)
  })

  test('timeouts', async () => {
    const { main } = await import('../../examples/timeouts/main.ts')
    expect(await main()).toEqual({ timeout: 'TIMEOUT', fuel: 'FUEL_EXHAUSTED', fuelUsed: 100, cancelled: 'ABORTED', capabilitySawAbort: true })
  })

  test('custom-atom', async () => {
    const { main } = await import('../../examples/custom-atom/main.ts')
    const out = await main() as Record<string, { ok: boolean; balance?: number; reason?: string }>
    expect(out['admin']).toEqual({ ok: true, balance: 120 })
    expect(out['owner']).toEqual({ ok: true, balance: 120 })
    expect(out['other']!.ok).toBe(false)
    expect(out['other']!.reason).toContain('bob cannot read acct1')
    expect(out['anonymous']!.reason).toContain('accounts:read is required')
  })

  test('remote-vm', async () => {
    const { main } = await import('../../examples/remote-vm/main.ts')
    const out = await main() as Record<string, unknown>
    expect(out['visits']).toEqual({ page: '/home', visits: 2 })
    expect(out['greedy']).toBe('FUEL_EXHAUSTED')
  })

  test('remote-vm server imports only ajs-lang/vm', () => {
    const server = readFileSync(join(EXAMPLES, 'remote-vm/server.ts'), 'utf8')
    expect([...server.matchAll(/from '(ajs-lang[^']*)'/g)].map((m) => m[1])).toEqual(['ajs-lang/vm'])
  })

  test('code-mode', async () => {
    const { main } = await import('../../examples/code-mode/main.ts')
    const out = await main() as Record<string, any>
    expect(out.stage).toBe('ran')
    expect(out.plan).toEqual({ customers_find: 1, orders_list: 1, refund: 'unbounded', notify: 1 })
    expect(out.result).toEqual({ customer: 'Ana', refunded: ['r-o-101: 40'], refused: ['o-102: refund: the call was not approved: 250 is over the 100 a bot may refund'] })
    expect(out.approvals).toHaveLength(2)
    // A program with a misspelt field stops at the type check; one that exceeds the policy at the plan.
    const typo = await main({ source: 'function f({ email }) { return customers_find({ mail: email }) }' }) as Record<string, any>
    expect(typo.stage).toBe('typecheck')
    expect(typo.diagnostics.join('\n')).toContain('AJS6003')
    const greedy = await main({ source: "function f() { notify({ customerId: 'c1', message: 'a' }); return notify({ customerId: 'c1', message: 'b' }) }" }) as Record<string, any>
    expect(greedy).toMatchObject({ stage: 'plan', violations: [{ key: 'maxCalls.notify' }] })
  }, 30_000)

  test('bundler', async () => {
    const { main } = await import('../../examples/bundler/main.ts')
    expect(await main()).toEqual({ warnings: 0, result: { points: 30, hot: true } })
  })
})
