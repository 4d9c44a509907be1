/**
 * budgetRun in durable workflows (issue 25, follow-up): with a runner,
 * workflowBudgetAtoms(tokens, { runner }) journals budgetRun by call site. A
 * workflow stopped after the sub-run and resumed from its journal in a new
 * "process" (new BudgetTokens, new seen-set, new runner) does not run the
 * child again, settles the journaled receipt, ends with the same fuel as a run
 * never stopped, and still refuses a second spend of the token. A crash while
 * the sub-run runs: the repeated call gets the first sub-run's receipt once it
 * ended (BUDGET_TOKEN_ANSWERED), so the workflow settles exactly what it used.
 * A crash of the process (no receipt kept) with sub-runs bounded by
 * maxSubRunMs: past the lease the repeated call gets BUDGET_TOKEN_LOST and
 * settles the whole grant, and the child is not run again.
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM, defineAtom, s, transpile } from '../../src/index.ts'
import { BudgetTokens, MemorySeenTokens, workflowBudgetAtoms } from '../../src/codemode/index.ts'
import { MemoryJournalStore, compileWorkflow, resumeWorkflow, startWorkflow } from '../../src/workflows/index.ts'
import { drive, untilAgentAsks } from '../workflows/helpers.ts'

const KEY = 'r'.repeat(32)

/** A "process": its own tokens (and seen-set), and the VM that runs sub-runs, whose `tick` atom counts the child's runs. */
function processOf(gate?: { wait: Promise<void> | null; entered: () => void }) {
  const seen = new MemorySeenTokens()
  const tokens = new BudgetTokens({ key: KEY, seen })
  const ticks: number[] = []
  const tick = defineAtom('tick', s.object({ n: s.number }), s.number, async ({ n }: { n: number }) => {
    ticks.push(n)
    if (gate?.wait) { gate.entered(); await gate.wait }
    return n
  }, { timeoutMs: 0 })
  const runner = new AgentVM([tick])
  return { tokens, seen, ticks, atoms: workflowBudgetAtoms(tokens, { runner }) }
}

const CHILD = transpile(`function child({ n }) {
  let s = 0
  for (let i = 0; i < n; i++) s += i
  return tick({ n: s })
}`, { atoms: ['tick'] }).ast

const SRC = `const token = await budgetToken({ fuel: 300 })
const sub = await budgetRun({ agentId: args.child, input: { n: 20 }, token })
const mid = await agent('after the sub-run')
const settled = await budgetSettle({ receipt: sub.receipt })
let again = null
try { await budgetRun({ agentId: args.child, input: { n: 1 }, token }) } catch (e) { again = e.code }
export default { result: sub.result, error: sub.error?.code ?? null, used: sub.fuelUsed, settled, again }
`
const program = (atoms: unknown[]) => compileWorkflow(SRC, { atoms: atoms as never, sourceName: 'sub-run.ajs' })


describe('budgetRun in a durable workflow', () => {
  test('uninterrupted: the child runs once under the token; settled exactly; a second spend is refused', async () => {
    const p = processOf()
    const ex = startWorkflow(program(p.atoms), { atoms: p.atoms, args: { child: CHILD } })
    const out = (await drive(ex, () => ({ Ok: 'ok' }))).result as any
    expect(out).toMatchObject({ result: 190, error: null, again: 'BUDGET_TOKEN_REPLAYED' })
    expect(out.used).toBeGreaterThan(0)
    expect(out.settled).toEqual({ id: expect.stringMatching(/^bt_/), fuel: 300, used: out.used, returned: 300 - out.used })
    expect(p.ticks).toEqual([190])
    expect(ex.journal().filter((e) => e.t === 'atom').map((e) => (e as { op: string }).op)).toEqual(['budgetToken', 'budgetRun', 'budgetSettle', 'budgetRun'])
  })

  test('stopped after the sub-run, resumed in a new process: not run again, the same settlement and fuel, still spent', async () => {
    const straight = processOf()
    const whole = startWorkflow(program(straight.atoms), { atoms: straight.atoms, args: { child: CHILD }, seed: 3 })
    const expected = (await drive(whole, () => ({ Ok: 'ok' }))).result

    const first = processOf()
    const store = new MemoryJournalStore()
    const ex = startWorkflow(program(first.atoms), { atoms: first.atoms, store, executionId: 'sr1', args: { child: CHILD }, seed: 3 })
    await untilAgentAsks(ex, 'after the sub-run')
    ex.dispose()
    expect(first.ticks).toEqual([190])

    const next = processOf() // its seen-set never saw the token: only the journal knows it was spent
    const again = await resumeWorkflow(program(next.atoms), store.read('sr1'), { atoms: next.atoms, store, executionId: 'sr1' })
    const out = (await drive(again, () => ({ Ok: 'ok' }))).result as any
    // The same as never stopping, but for the token's (random) id: the journaled one.
    const minted = store.read('sr1').find((e) => e.t === 'atom' && (e as { op: string }).op === 'budgetToken') as any
    expect(out.settled.id).toBe(next.tokens.read(minted.resolution.Ok).id)
    expect(out).toEqual({ ...(expected as any), settled: { ...(expected as any).settled, id: out.settled.id } })
    expect(out.again).toBe('BUDGET_TOKEN_REPLAYED')
    expect(next.ticks).toEqual([]) // neither the journaled sub-run nor the refused second one ran
    expect(again.fuelUsed).toBe(whole.fuelUsed)
  })

  test('a crash while the sub-run runs: the repeated call gets the first sub-run\'s receipt and settles exactly what it used', async () => {
    let release!: () => void
    let entered!: () => void
    const inside = new Promise<void>((ok) => { entered = ok })
    const gate = { wait: new Promise<void>((ok) => { release = ok }) as Promise<void> | null, entered: () => entered() }
    const proc = processOf(gate)
    const store = new MemoryJournalStore()
    const ex = startWorkflow(program(proc.atoms), { atoms: proc.atoms, store, executionId: 'sr2', args: { child: CHILD } })
    void ex.poll()
    await inside // the child is in its tick: the sub-run is in flight
    const id = store.read('sr2').flatMap((e) => (e.t === 'atom' && (e as { op: string }).op === 'budgetToken' ? [new BudgetTokens({ key: KEY }).read((e as any).resolution.Ok).id] : []))[0]!
    expect(proc.seen.recall(id)).toMatchObject({ state: 'running' })
    ex.dispose() // the crash: the journal has the token, not the sub-run's outcome
    gate.wait = null
    release() // the abandoned sub-run ends and its receipt is kept with the spent token
    for (let i = 0; i < 200 && proc.seen.recall(id)?.state !== 'answered'; i++) await Bun.sleep(5)
    const kept = proc.seen.recall(id) as { state: 'answered'; receipt: string }
    expect(kept.state).toBe('answered')
    const firstUsed = proc.tokens.readReceipt(kept.receipt).used

    const again = await resumeWorkflow(program(proc.atoms), store.read('sr2'), { atoms: proc.atoms, store, executionId: 'sr2' })
    const out = (await drive(again, () => ({ Ok: 'ok' }))).result as any
    expect(out.error).toBe('BUDGET_TOKEN_ANSWERED')
    expect(out.used).toBe(firstUsed)
    expect(out.settled).toEqual({ id, fuel: 300, used: firstUsed, returned: 300 - firstUsed })
    expect(proc.ticks).toEqual([190]) // the child ran once
  })

  test('the process dies while the sub-run runs (no receipt kept): with maxSubRunMs, the repeated call past the lease is BUDGET_TOKEN_LOST, settling the whole grant; not run again', async () => {
    let offset = 0 // the shared seen-set's clock and the second process's: the lease passes when it moves on
    const clock = () => Date.now() + offset
    const shared = new MemorySeenTokens(100, clock)
    let entered!: () => void
    const inside = new Promise<void>((ok) => { entered = ok })
    const hang = defineAtom('tick', s.object({ n: s.number }), s.number, async () => { entered(); return new Promise<number>(() => {}) }, { timeoutMs: 0 })
    // The first process: its receipt never reaches the shared seen-set (it died first).
    const dying = new BudgetTokens({ key: KEY, seen: { claim: (id, exp, until) => shared.claim(id, exp, until), recall: (id) => shared.recall(id), answer: () => {} } })
    const firstAtoms = workflowBudgetAtoms(dying, { runner: new AgentVM([hang]), maxSubRunMs: 1_000, leaseGraceMs: 0 })
    const store = new MemoryJournalStore()
    const ex = startWorkflow(program(firstAtoms), { atoms: firstAtoms, store, executionId: 'sr3', args: { child: CHILD } })
    void ex.poll()
    await inside
    ex.dispose()
    const token = (store.read('sr3').find((e) => e.t === 'atom' && (e as { op: string }).op === 'budgetToken') as any).resolution.Ok as string
    const id = dying.read(token).id
    const lease = shared.recall(id) as { state: 'running'; until: number }
    expect(lease.state).toBe('running')

    const ticks: number[] = []
    const tick = defineAtom('tick', s.object({ n: s.number }), s.number, async ({ n }: { n: number }) => { ticks.push(n); return n }, { timeoutMs: 0 })
    const tokens = new BudgetTokens({ key: KEY, seen: shared, now: clock })
    const atoms = workflowBudgetAtoms(tokens, { runner: new AgentVM([tick]), maxSubRunMs: 1_000, leaseGraceMs: 0 })
    await expect(tokens.spendOrRecall(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_IN_FLIGHT', retryAt: lease.until })
    offset = lease.until - Date.now() // the lease has passed
    const again = await resumeWorkflow(program(atoms), store.read('sr3'), { atoms, store, executionId: 'sr3' })
    const out = (await drive(again, () => ({ Ok: 'ok' }))).result as any
    expect(out).toMatchObject({ error: 'BUDGET_TOKEN_LOST', used: 300, settled: { id, fuel: 300, used: 300, returned: 0 }, again: 'BUDGET_TOKEN_REPLAYED' })
    expect(ticks).toEqual([]) // not run again
  })

  test('maxSubRunMs bounds a sub-run (its own TIMEOUT, its receipt kept), so its lease is a bound on it', async () => {
    const hang = defineAtom('tick', s.object({ n: s.number }), s.number, async () => new Promise<number>(() => {}), { timeoutMs: 0 })
    const seen = new MemorySeenTokens()
    const atoms = workflowBudgetAtoms(new BudgetTokens({ key: KEY, seen }), { runner: new AgentVM([hang]), maxSubRunMs: 50 })
    const src = `const token = await budgetToken({ fuel: 300 })
const sub = await budgetRun({ agentId: args.child, input: { n: 1 }, token })
export default { error: sub.error?.code, settled: await budgetSettle({ receipt: sub.receipt }) }
`
    const out = (await drive(startWorkflow(compileWorkflow(src, { atoms: atoms as never }), { atoms, args: { child: CHILD } }), () => ({ Ok: 'ok' }))).result as any
    expect(out.error).toBe('TIMEOUT')
    expect(seen.recall(out.settled.id)).toMatchObject({ state: 'answered' })
  })

  test('a token another process is spending: IN_FLIGHT (catchable, not counted as spent); a later call gets its receipt', async () => {
    const proc = processOf()
    // Minted elsewhere and being spent by another process that shares the seen-set.
    const { token, claims } = proc.tokens.mint({ fuel: 50, exp: Date.now() + 60_000, depth: 1 })
    expect(proc.seen.claim(claims.id, claims.exp)).toBe(true)
    const src = `let first = null
try { await budgetRun({ agentId: args.child, input: { n: 20 }, token: args.token }) } catch (e) { first = e.code }
const wait = await agent('wait')
const second = await budgetRun({ agentId: args.child, input: { n: 20 }, token: args.token })
let third = null
try { await budgetRun({ agentId: args.child, input: { n: 20 }, token: args.token }) } catch (e) { third = e.code }
export default { first, second: second.error?.code, used: second.fuelUsed, receipt: second.receipt, third }
`
    const ex = startWorkflow(compileWorkflow(src, { atoms: proc.atoms as never }), { atoms: proc.atoms, args: { child: CHILD, token } })
    await untilAgentAsks(ex, 'wait')
    const receipt = proc.tokens.receipt(claims, 7)
    proc.seen.answer(claims.id, receipt) // the other process's run ends
    const out = (await drive(ex, () => ({ Ok: 'go' }))).result as any
    expect(out).toEqual({ first: 'BUDGET_TOKEN_IN_FLIGHT', second: 'BUDGET_TOKEN_ANSWERED', used: 7, receipt, third: 'BUDGET_TOKEN_REPLAYED' })
    expect(proc.ticks).toEqual([]) // never run here
  })

  test('without a runner budgetRun is not offered (AJS3002, the hint says how)', () => {
    const atoms = workflowBudgetAtoms(new BudgetTokens({ key: KEY }))
    expect(atoms.map((a) => a.op)).toEqual(['budgetToken', 'budgetSettle'])
    let err: any
    try { compileWorkflow(SRC, { atoms, sourceName: 'sub-run.ajs' }) } catch (e) { err = e }
    expect(err).toMatchObject({ code: 'AJS3002', message: 'Unknown function `budgetRun`' })
    expect(err.hint).toContain('workflowBudgetAtoms(tokens, { runner })')
  })
})
