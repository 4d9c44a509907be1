/**
 * Budget tokens in durable workflows (issue 25): workflowBudgetAtoms journals
 * budgetToken and budgetSettle by call site. A run stopped at any point and
 * resumed from its journal (a new execution, as a new process would) neither
 * mints again nor spends again, holds the same reservation once, and ends
 * with the same fuel as a run that was never stopped. A crash while the
 * child's server is being called repeats the call with the same token, which
 * the server refuses: spent once. The plain budgetAtoms are refused.
 */
import { describe, expect, test } from 'bun:test'
import { defineAtom, s } from '../../src/index.ts'
import { BudgetTokens, budgetAtoms, workflowBudgetAtoms } from '../../src/codemode/index.ts'
import { MemoryJournalStore, compileWorkflow, resumeWorkflow, startWorkflow } from '../../src/workflows/index.ts'
import { drive, untilAgentAsks } from '../workflows/helpers.ts'

const KEY = 'w'.repeat(32)

/** A second server of the deployment: spends the token once (its own seen-set) and signs the receipt of `used` fuel. */
function remoteServer(hang = { on: false }) {
  const server = new BudgetTokens({ key: KEY })
  const tokensSeen: string[] = []
  const atom = defineAtom('remoteRun', s.object({ token: s.string, used: s.number }), undefined, async ({ token, used }: { token: string; used: number }) => {
    tokensSeen.push(token)
    const claims = await server.spend(token) // BUDGET_TOKEN_REPLAYED the second time
    if (hang.on) await new Promise(() => {}) // the process dies while the child runs
    return { result: used * 2, receipt: server.receipt(claims, used) }
  }, { timeoutMs: 0 })
  return { atom, tokensSeen, hang }
}

const SRC = `const token = await budgetToken({ fuel: 500 })
const child = await remoteRun({ token, used: 120 })
const mid = await agent('between the call and the settlement')
const settled = await budgetSettle({ receipt: child.receipt })
const end = await agent('after the settlement')
let over = null
try { await budgetToken({ fuel: 1e12 }) } catch (e) { over = e.code }
export default { token, child: child.result, settled, over }
`

function setup() {
  const parent = new BudgetTokens({ key: KEY })
  const remote = remoteServer()
  const atoms = [...workflowBudgetAtoms(parent), remote.atom]
  const program = compileWorkflow(SRC, { atoms, sourceName: 'budgeted.ajs' })
  return { atoms, program, remote, parent }
}


describe('budget tokens in a workflow survive a crash and a resume', () => {
  test('uninterrupted: minted, spent and settled once; the unused fuel comes back', async () => {
    const { atoms, program, remote } = setup()
    const ex = startWorkflow(program, { atoms })
    const { result } = await drive(ex, () => ({ Ok: 'ok' }))
    const out = result as any
    expect(out.child).toBe(240)
    expect(out.settled).toEqual({ id: expect.stringMatching(/^bt_/), fuel: 500, used: 120, returned: 380 })
    expect(out.over).toBe('RANGE_ERROR')
    expect(remote.tokensSeen).toEqual([out.token])
    expect(ex.journal().filter((e) => e.t === 'atom').map((e) => (e as { op: string }).op)).toEqual(['budgetToken', 'remoteRun', 'budgetSettle', 'budgetToken'])
  })

  for (const stopAt of ['between the call and the settlement', 'after the settlement']) {
    test(`stopped ${stopAt}, resumed from the journal: no new mint, no new spend, the same fuel`, async () => {
      const whole = setup()
      const straight = startWorkflow(whole.program, { atoms: whole.atoms, seed: 7 })
      await drive(straight, () => ({ Ok: 'ok' }))
      const { atoms, program, remote } = setup()
      const store = new MemoryJournalStore()
      const first = startWorkflow(program, { atoms, store, executionId: 'w1', seed: 7 })
      for (;;) {
        const p = await first.poll()
        if (typeof p !== 'object' || !('Request' in p)) continue
        if (p.Request.type === 'agent' && p.Request.prompt === stopAt) break
        for (const r of first.takePendingRequests()) first.resolveRequest(r.id, { Ok: 'ok' })
      }
      const minted = store.read('w1').filter((e) => e.t === 'atom' && (e as { op: string }).op === 'budgetToken')
      // What the crash leaves: the journal. The new execution replays it with a new VM run (a new meter).
      first.dispose()
      const again = await resumeWorkflow(program, store.read('w1'), { atoms, store, executionId: 'w1' })
      const { result } = await drive(again, () => ({ Ok: 'ok' }))
      const out = result as any
      expect(out.settled).toEqual({ id: expect.stringMatching(/^bt_/), fuel: 500, used: 120, returned: 380 })
      expect(out.over).toBe('RANGE_ERROR')
      // The token is the journaled one; the server saw it once.
      expect(minted).toHaveLength(1)
      expect((minted[0] as { resolution: { Ok: string } }).resolution.Ok).toBe(out.token)
      expect(remote.tokensSeen).toEqual([out.token])
      // The replay held the reservation once and gave the unused part back once: the same fuel as never stopping.
      expect(again.fuelUsed).toBe(straight.fuelUsed)
      expect(store.read('w1').filter((e) => e.t === 'atom')).toHaveLength(4)
    })
  }

  test('a crash while the child server runs: the resumed call sends the same token, refused as spent; it stays charged', async () => {
    const parent = new BudgetTokens({ key: KEY })
    const remote = remoteServer({ on: true })
    const atoms = [...workflowBudgetAtoms(parent), remote.atom]
    const src = `const token = await budgetToken({ fuel: 300 })
let code = null
try { await remoteRun({ token, used: 10 }) } catch (e) { code = e.message }
export default { token, code }
`
    const program = compileWorkflow(src, { atoms })
    const store = new MemoryJournalStore()
    const first = startWorkflow(program, { atoms, store, executionId: 'w2' })
    for (let i = 0; i < 50 && remote.tokensSeen.length === 0; i++) await new Promise((r) => setTimeout(r, 5))
    expect(remote.tokensSeen).toHaveLength(1)
    first.dispose()
    remote.hang.on = false
    const again = await resumeWorkflow(program, store.read('w2'), { atoms, store, executionId: 'w2' })
    const { result } = await drive(again, () => ({ Ok: 'ok' }))
    const out = result as any
    expect(out.code).toMatch(/^remoteRun: \[BUDGET_TOKEN_REPLAYED\] The budget token bt_\S+ was already spent$/)
    expect(remote.tokensSeen).toEqual([out.token, out.token])
    // Never settled: the 300 stay charged.
    expect(again.fuelUsed).toBeGreaterThan(300)
  })

  test('a resume with another key cannot read its journaled token: the replay diverges and is refused', async () => {
    const { atoms, program } = setup()
    const store = new MemoryJournalStore()
    const first = startWorkflow(program, { atoms, store, executionId: 'w3' })
    await untilAgentAsks(first, 'between the call and the settlement')
    first.dispose()
    const otherKey = [...workflowBudgetAtoms(new BudgetTokens({ key: 'z'.repeat(32) })), remoteServer().atom]
    let err: any
    try { await resumeWorkflow(program, store.read('w3'), { atoms: otherKey, store, executionId: 'w3' }) } catch (e) { err = e }
    // budgetToken's replay throws BUDGET_TOKEN_INVALID, so the run no longer asks for the journaled call: refused, never continued.
    expect(err).toMatchObject({ code: 'JOURNAL_MISMATCH', message: expect.stringContaining('atom:remoteRun') })
  })

  test('a workflow calling a budget atom it was not given is refused (AJS3002) with what it needs', () => {
    for (const name of ['budgetToken', 'budgetRun']) {
      let err: any
      try { compileWorkflow(`const x = 1\nconst t = await ${name}({ fuel: 5 })\nexport default t\n`, { sourceName: 'b.ajs' }) } catch (e) { err = e }
      expect(err).toMatchObject({ code: 'AJS3002', message: `Unknown function \`${name}\``, file: 'b.ajs', line: 2, column: 16 })
      expect(err.hint).toContain('workflowBudgetAtoms(tokens)')
      expect(err.hint).toContain('workflowBudgetAtoms(tokens, { runner })')
      expect(err.hint).not.toContain('Did you mean')
    }
  })

  test('the plain budgetAtoms are refused as a workflow\'s atoms, with the hint', async () => {
    let err: any
    try { startWorkflow('export default 1', { atoms: budgetAtoms }) } catch (e) { err = e }
    expect(err).toMatchObject({ code: 'WORKFLOW_OPTIONS_INVALID', message: expect.stringContaining('budgetToken from budgetAtoms'), hint: expect.stringContaining('workflowBudgetAtoms(tokens)') })
  })
})
