/**
 * Budget tokens and the parent's own per-atom quotas (issue 25): minting
 * reserves the calls a token grants from what the parent has left (the run
 * option `quotas`, counted per run, in an agentRun's shared count or in a
 * `quotaUsed` ledger), asking for more is BUDGET_QUOTA_EXCEEDED, a token
 * always carries every atom its parent has a quota for, and settling charges
 * the parent exactly the calls the child made (the receipt signs them).
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM, defineAtom, s, transpile } from '../../src/index.ts'
import { BudgetTokens, budgetAtoms, budgetCapability } from '../../src/codemode/index.ts'

const KEY = 'q'.repeat(32)

function setup() {
  const sent = { n: 0 }
  const sendSms = defineAtom('sendSms', s.object({}), s.boolean, async () => { sent.n++; return true })
  const t = new BudgetTokens({ key: KEY })
  // A host atom that signs a receipt without per-atom calls (as a receipt from before they existed).
  const bareReceipt = defineAtom('bareReceipt', s.object({ token: s.string }), s.string, (input: { token: string }) => {
    const c = t.verify(input.token)
    return t.receipt({ id: c.id, fuel: c.fuel }, 0)
  })
  const atoms = [...budgetAtoms, sendSms, bareReceipt]
  const names = atoms.map((a) => a.op)
  const vm = new AgentVM(atoms)
  const ast = (source: string) => transpile(source, { atoms: names }).ast
  const run = (source: string | object, args: Record<string, unknown>, options: Record<string, unknown> = {}) =>
    vm.run(typeof source === 'string' ? ast(source) : source, args, { fuel: 2000, capabilities: { budget: budgetCapability(t, { runner: vm }) }, ...options })
  return { sent, run, ast, t }
}

/** Sends `k` messages. */
const CHILD = `function child({ k }) {
  let sent = 0
  for (let i = 0; i < k; i++) { sendSms({}); sent++ }
  return { sent }
}`

/** Sends until its quota refuses; how many it sent. */
const DRAIN = `function drain() {
  let n = 0
  try { while (n < 100) { sendSms({}); n++ } } catch (e) { if (e.code !== 'QUOTA_EXCEEDED') throw e }
  return n
}`

describe('budget tokens reserve and settle the parent\'s quotas', () => {
  test('per run: the reserved calls are held back until settled, then the parent is charged exactly the child\'s', async () => {
    const { run, ast, sent } = setup()
    const r = await run(`function p({ child, drain }) {
      const token = budgetToken({ fuel: 200, quotas: { sendSms: 3 } })
      const before = agentRun({ agentId: drain, input: {} })
      const sub = budgetRun({ agentId: child, input: { k: 2 }, token })
      const settled = budgetSettle({ receipt: sub.receipt })
      const after = agentRun({ agentId: drain, input: {} })
      return { before, after, child: sub.result, calls: settled.calls }
    }`, { child: ast(CHILD), drain: ast(DRAIN) }, { quotas: { sendSms: 5 } })
    expect(r.error).toBeUndefined()
    // 5 allowed: 3 reserved leaves the parent 2; the child used 2, so 1 came back.
    expect(r.result).toEqual({ before: 2, after: 1, child: { sent: 2 }, calls: { sendSms: 2 } })
    expect(sent.n).toBe(5)
  })

  test('a token cannot carry more calls than the parent has left: BUDGET_QUOTA_EXCEEDED, catchable; nothing reserved', async () => {
    const { run } = setup()
    const r = await run(`function p() {
      const out = []
      sendSms({})
      for (const n of [3, 2, 1]) {
        try { budgetToken({ fuel: 1, quotas: { sendSms: n } }); out.push('minted ' + n) } catch (e) { out.push(e.code + ': ' + e.message) }
      }
      return out
    }`, {}, { quotas: { sendSms: 3 } })
    expect(r.result).toEqual([
      'BUDGET_QUOTA_EXCEEDED: budgetToken: 3 calls of sendSms asked, 2 left in this run',
      'minted 2',
      'BUDGET_QUOTA_EXCEEDED: budgetToken: 1 calls of sendSms asked, 0 left in this run',
    ])
  })

  test('a token minted without quotas carries the parent\'s quota\'d atoms at 0 calls', async () => {
    const { run, ast, t, sent } = setup()
    const r = await run(`function p({ child }) {
      const token = budgetToken({ fuel: 100 })
      const sub = budgetRun({ agentId: child, input: { k: 1 }, token })
      return { token, error: sub.error?.code, settled: budgetSettle({ receipt: sub.receipt }), left: sendSms({}) && sendSms({}) }
    }`, { child: ast(CHILD) }, { quotas: { sendSms: 2 } })
    expect(r.error).toBeUndefined()
    const out = r.result as any
    expect(t.verify(out.token).quotas).toEqual({ sendSms: 0 })
    expect(out.error).toBe('QUOTA_EXCEEDED')
    expect(out.settled.calls).toEqual({ sendSms: 0 })
    expect(out.left).toBe(true) // the parent kept both of its calls
    expect(sent.n).toBe(2)
    // No quotas anywhere: the token carries none.
    const free = await run(`function p() { return budgetToken({ fuel: 1 }) }`, {})
    expect(t.verify(free.result).quotas).toBeUndefined()
  })

  test('a shared quotaUsed ledger holds the reservation while the child runs and ends with exactly the calls made', async () => {
    const ledger: Record<string, number> = {}
    const seen: number[] = []
    const peek = defineAtom('peek', s.object({}), s.number, () => { seen.push(ledger['sendSms'] ?? 0); return 0 })
    const sendSms = defineAtom('sendSms', s.object({}), s.boolean, async () => true)
    const vm = new AgentVM([...budgetAtoms, peek, sendSms])
    const t = new BudgetTokens({ key: KEY })
    const names = [...budgetAtoms.map((a) => a.op), 'peek', 'sendSms']
    const r = await vm.run(transpile(`function p({ child }) {
      sendSms({})
      const token = budgetToken({ fuel: 200, quotas: { sendSms: 4 } })
      peek({})
      const sub = budgetRun({ agentId: child, input: { k: 1 }, token })
      return budgetSettle({ receipt: sub.receipt }).calls
    }`, { atoms: names }).ast, { child: transpile(CHILD, { atoms: names }).ast }, {
      fuel: 2000, quotas: { sendSms: 5 }, quotaUsed: ledger, capabilities: { budget: budgetCapability(t, { runner: vm }) },
    })
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual({ sendSms: 1 })
    expect(seen).toEqual([5]) // 1 sent + 4 reserved
    expect(ledger['sendSms']).toBe(2) // 1 by the parent, 1 by the child
  })

  test('inside a local agentRun: the child mints from the quota it shares with its parent', async () => {
    const { run, ast } = setup()
    const middle = ast(`function m({ child }) {
      const token = budgetToken({ fuel: 200, quotas: { sendSms: 3 } })
      const sub = budgetRun({ agentId: child, input: { k: 1 }, token })
      return budgetSettle({ receipt: sub.receipt }).calls
    }`)
    const r = await run(`function top({ middle, child, drain }) {
      const calls = agentRun({ agentId: middle, input: { child } })
      return { calls, more: agentRun({ agentId: drain, input: {} }) }
    }`, { middle, child: ast(CHILD), drain: ast(DRAIN) }, { quotas: { sendSms: 4 } })
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual({ calls: { sendSms: 1 }, more: 3 })
  })

  test('receipts sign the calls, capped at the grant; a receipt without them is charged every reserved call', async () => {
    const { run, t } = setup()
    const claims = t.mint({ fuel: 10, exp: Date.now() + 60_000, depth: 1, quotas: { sendSms: 3 } }).claims
    expect(t.readReceipt(t.receipt(claims, 4, { sendSms: 9, other: 4 }))).toEqual({ id: claims.id, fuel: 10, used: 4, calls: { sendSms: 3 } })
    expect(t.readReceipt(t.receipt(claims, 4)).calls).toEqual({ sendSms: 0 })
    // Changing the calls breaks the MAC.
    const [p, body, mac] = t.receipt(claims, 4, { sendSms: 2 }).split('.')
    const lowered = [p, Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), calls: { sendSms: 0 } })).toString('base64url'), mac].join('.')
    expect(() => t.readReceipt(lowered)).toThrow(expect.objectContaining({ code: 'BUDGET_RECEIPT_INVALID' }))
    const r = await run(`function p({ drain }) {
      const token = budgetToken({ fuel: 10, quotas: { sendSms: 2 } })
      const settled = budgetSettle({ receipt: bareReceipt({ token }) })
      return { calls: settled.calls, more: agentRun({ agentId: drain, input: {} }) }
    }`, { drain: transpile(DRAIN, { atoms: ['sendSms'] }).ast }, { quotas: { sendSms: 3 } })
    expect(r.result).toEqual({ calls: { sendSms: 2 }, more: 1 })
  })
})
