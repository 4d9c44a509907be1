/**
 * Budget tokens in the library (issue 25): minting reserves the fuel, a local
 * sub-run (budgetRun: an AST or a procedure token) runs under the token, and
 * settling charges the parent exactly what the child used. Forged, inflated,
 * expired, replayed and too deep tokens are refused with stable codes.
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM, transpile } from '../../src/index.ts'
import { BudgetTokens, BudgetTokenError, MemorySeenTokens, analyzeProgram, budgetAtoms, budgetCapability } from '../../src/codemode/index.ts'

const KEY = 'k'.repeat(32)
const NAMES = budgetAtoms.map((a) => a.op)
const tokens = () => new BudgetTokens({ key: KEY })

const CHILD = transpile(`function child({ n }) {
  let s = 0
  for (let i = 0; i < n; i++) s += i
  return { s }
}`).ast

const PARENT = `function parent({ child, n, give }) {
  const token = budgetToken({ fuel: give })
  const sub = budgetRun({ agentId: child, input: { n }, token })
  const settled = budgetSettle({ receipt: sub.receipt })
  return { s: sub.result?.s ?? null, error: sub.error?.code ?? null, childUsed: sub.fuelUsed, settled }
}`

function vmWith(t = tokens()) {
  const vm = new AgentVM(budgetAtoms)
  const run = (source: string | object, args: Record<string, unknown>, fuel = 1000, depth = 0) =>
    vm.run(typeof source === 'string' ? transpile(source, { atoms: NAMES }).ast : source, args, { fuel, capabilities: { budget: budgetCapability(t, { runner: vm, depth }) } })
  return { vm, run, t }
}

describe('budget tokens in a local sub-run', () => {
  test('the parent is charged exactly what the child used', async () => {
    const { run } = vmWith()
    const small = await run(PARENT, { child: CHILD, n: 10, give: 400 })
    const big = await run(PARENT, { child: CHILD, n: 1000, give: 400 })
    expect(small.error).toBeUndefined()
    expect(big.error).toBeUndefined()
    const a = small.result as any, b = big.result as any
    expect(a.s).toBe(45)
    expect(b.s).toBe(499500)
    expect(a.settled).toEqual({ id: expect.stringMatching(/^bt_/), fuel: 400, used: a.childUsed, returned: 400 - a.childUsed })
    expect(b.childUsed).toBeGreaterThan(a.childUsed)
    // Same parent work, different children: the parents differ by exactly what the children did.
    expect(Math.round((big.fuelUsed - small.fuelUsed) * 1e6)).toBe(Math.round((b.childUsed - a.childUsed) * 1e6))
  })

  test('a child that needs more than the token stops at the token; the parent pays the token', async () => {
    const { run } = vmWith()
    const r = await run(PARENT, { child: CHILD, n: 1e9, give: 5 })
    const out = r.result as any
    expect(out.error).toBe('FUEL_EXHAUSTED')
    expect(out.settled.used).toBe(5)
    expect(out.settled.returned).toBe(0)
  })

  test('the reservation: the parent cannot spend fuel it handed out', async () => {
    const { run } = vmWith()
    const r = await run(`function p() {
      budgetToken({ fuel: 95 })
      let i = 0
      while (i < 1000) i++
      return i
    }`, {}, 100)
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
    const over = await run(`function p() { try { return budgetToken({ fuel: 500 }) } catch (e) { return e.code + ': ' + e.message } }`, {}, 100)
    expect(over.result).toMatch(/^RANGE_ERROR: budgetToken: 500 fuel asked, 9\d\.\d+ left in this run$/)
  })

  test('inside a local agentRun: the child mints from the fuel it shares with its parent', async () => {
    const { run } = vmWith()
    const middle = transpile(PARENT, { atoms: NAMES }).ast
    const r = await run(`function top({ middle, child }) {
      return agentRun({ agentId: middle, input: { child, n: 100, give: 300 } })
    }`, { middle, child: CHILD }, 2000)
    expect(r.error).toBeUndefined()
    const out = r.result as any
    expect(out.s).toBe(4950)
    expect(out.settled).toMatchObject({ fuel: 300, used: out.childUsed, returned: 300 - out.childUsed })
  })

  test('a procedure token as the child', async () => {
    const { run } = vmWith()
    const r = await run(`function p({ child }) {
      const proc = storeProcedure({ ast: child })
      const token = budgetToken({ fuel: 50 })
      const sub = budgetRun({ agentId: proc, input: { n: 20 }, token })
      return { s: sub.result.s, settled: budgetSettle({ receipt: sub.receipt }).used === sub.fuelUsed }
    }`, { child: CHILD })
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual({ s: 190, settled: true })
  })

  test('the token\'s quotas cap the child\'s calls; budgetRun counts in the plan as a sub-agent', async () => {
    const { run } = vmWith()
    const child = transpile(`function c() {
      let n = 0
      try { while (n < 5) { budgetToken({ fuel: 0 }); n++ } } catch (e) { return { n, code: e.code } }
      return { n }
    }`, { atoms: NAMES }).ast
    const r = await run(`function p({ child }) {
      const token = budgetToken({ fuel: 50, quotas: { budgetToken: 2 } })
      const sub = budgetRun({ agentId: child, input: {}, token })
      budgetSettle({ receipt: sub.receipt })
      return sub.result
    }`, { child })
    expect(r.result).toEqual({ n: 2, code: 'QUOTA_EXCEEDED' })
    const plan = analyzeProgram(transpile(PARENT, { atoms: NAMES }).ast, budgetAtoms)
    expect(plan.reaches.subAgent).toBe(true)
    // The fuel a token reserves is the program's too: no static bound to pass a maxFuel policy with.
    expect(plan.fuel).toBe('unbounded')
    expect(plan.fuelUnboundedBy).toBe('the cost of budgetToken depends on its input')
  })

  test('forged, inflated, replayed tokens and foreign or reused receipts are refused (catchable, stable codes)', async () => {
    const { run, t } = vmWith()
    const other = new BudgetTokens({ key: 'x'.repeat(32) })
    const forged = other.mint({ fuel: 10, exp: Date.now() + 60_000, depth: 1 }).token
    const { token } = t.mint({ fuel: 10, exp: Date.now() + 60_000, depth: 1 })
    const [p, body, mac] = token.split('.')
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString())
    const inflated = [p, Buffer.from(JSON.stringify({ ...claims, fuel: 1e9 })).toString('base64url'), mac].join('.')
    const r = await run(`function p({ child, tokens }) {
      const codes = []
      for (const token of tokens) {
        try { budgetRun({ agentId: child, input: { n: 1 }, token }) ; codes.push('ran') } catch (e) { codes.push(e.code) }
      }
      return codes
    }`, { child: CHILD, tokens: [forged, inflated, 'not a token', token, token] })
    expect(r.result).toEqual(['BUDGET_TOKEN_INVALID', 'BUDGET_TOKEN_INVALID', 'BUDGET_TOKEN_INVALID', 'ran', 'BUDGET_TOKEN_REPLAYED'])
    const receipts = await run(`function p({ child }) {
      const codes = []
      const token = budgetToken({ fuel: 10 })
      const sub = budgetRun({ agentId: child, input: { n: 1 }, token })
      budgetSettle({ receipt: sub.receipt })
      for (const receipt of [sub.receipt, sub.receipt.slice(0, -2) + 'xx']) {
        try { budgetSettle({ receipt }) } catch (e) { codes.push(e.code) }
      }
      return codes
    }`, { child: CHILD })
    expect(receipts.result).toEqual(['BUDGET_RECEIPT_INVALID', 'BUDGET_RECEIPT_INVALID'])
  })

  test('an expired token is refused', () => {
    let now = 1_000_000
    const t = new BudgetTokens({ key: KEY, now: () => now })
    const { token } = t.mint({ fuel: 10, exp: now + 1000, depth: 1 })
    expect(t.verify(token).fuel).toBe(10)
    now += 1001
    expect(() => t.verify(token)).toThrow(expect.objectContaining({ code: 'BUDGET_TOKEN_EXPIRED' }))
    // A deadline beyond maxTtlMs is cut to it when minted.
    expect(t.mint({ fuel: 1, exp: now + 1e12, depth: 1 }).claims.exp).toBe(now + t.maxTtlMs)
  })

  test('nesting is bounded by maxDepth', async () => {
    const { run } = vmWith(new BudgetTokens({ key: KEY, maxDepth: 2 }))
    const NEST = transpile(`function nest({ self, level }) {
      try {
        const token = budgetToken({ fuel: 200 / (level + 1) })
        const sub = budgetRun({ agentId: self, input: { self, level: level + 1 }, token })
        budgetSettle({ receipt: sub.receipt })
        return sub.result ?? sub.error.code
      } catch (e) {
        return e.code + ' at ' + level
      }
    }`, { atoms: NAMES }).ast
    const r = await run(NEST, { self: NEST, level: 0 }, 500)
    expect(r.result).toBe('BUDGET_TOKEN_DEPTH at 2')
  })

  test('the seen-set is bounded and fails closed', () => {
    const seen = new MemorySeenTokens(2, () => 0)
    expect(seen.claim('a', 10)).toBe(true)
    expect(seen.claim('a', 10)).toBe(false)
    expect(seen.claim('b', 10)).toBe(true)
    expect(() => seen.claim('c', 10)).toThrow(BudgetTokenError)
  })

  test('a retry after the first spend ended is answered with its receipt; while it runs, refused as in flight', async () => {
    let now = 1_000
    const seen = new MemorySeenTokens(2, () => now)
    const tokens = new BudgetTokens({ key: 'k'.repeat(32), seen, now: () => now })
    const { token } = tokens.mint({ fuel: 10, exp: now + 100, depth: 1 })
    const claims = await tokens.spendOrRecall(token)
    await expect(tokens.spendOrRecall(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_IN_FLIGHT', hint: expect.stringContaining('Retry-After'), receipt: undefined, retryAt: now + 100 })
    const receipt = tokens.receipt(claims, 7)
    await tokens.answered(claims, receipt)
    await expect(tokens.spendOrRecall(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_ANSWERED', receipt })
    await expect(tokens.spendOrRecall(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_ANSWERED', receipt })
    // spend (budgetRun's: its caller never loses the answer) refuses every replay alike.
    await expect(tokens.spend(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_REPLAYED' })
    // A seen-set that keeps no receipts: every replay is refused as before.
    const bare = new BudgetTokens({ key: 'k'.repeat(32), seen: { claim: () => false }, now: () => now })
    await expect(bare.spendOrRecall(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_REPLAYED' })
    // The receipt goes with the id when the token expires: the bound holds receipts as it holds ids.
    expect(seen.size).toBe(1)
    now += 100
    await expect(tokens.spendOrRecall(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_EXPIRED' })
    expect(seen.recall(claims.id)).toBeUndefined()
    expect(seen.claim('x', now + 5)).toBe(true)
    expect(seen.claim('y', now + 5)).toBe(true) // the expired entry (and its receipt) made room
    expect(seen.size).toBe(2)
  })

  test('a key shorter than 32 bytes is refused', () => {
    expect(() => new BudgetTokens({ key: 'short' })).toThrow('at least 32 bytes')
  })
})
