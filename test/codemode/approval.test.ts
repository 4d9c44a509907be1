/**
 * Approval pauses (issue 25): an atom that requires approval pauses a
 * workflow durably (a journaled signal wait), across a process restart;
 * approve, approve with edited arguments, reject (APPROVAL_REJECTED,
 * catchable). withApprovals: the same decision asked in-process.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { AgentVM, defineAtom, s, transpile } from '../../src/index.ts'
import { mcpAtoms, withApprovals, type McpAtomSet } from '../../src/codemode/index.ts'
import { MemoryJournalStore, compileWorkflow, resumeWorkflow, startWorkflow } from '../../src/workflows/index.ts'
import { stdioSpec } from './helpers.ts'

const sent: Array<{ to: string; amount: number }> = []
const pay = defineAtom('pay', s.object({ to: s.string, amount: s.number }), s.object({ receipt: s.string }), async ({ to, amount }) => {
  sent.push({ to, amount })
  return { receipt: `paid ${amount} to ${to}` }
}, { requiresApproval: ({ amount }) => amount > 100 })

const SOURCE = `
const small = await pay({ to: 'ana', amount: 20 })
const big = await pay({ to: 'bob', amount: 5000 })
let third
try { third = await pay({ to: 'eve', amount: 900 }) } catch (e) { third = e.code + ': ' + e.message }
export default { small: small.receipt, big: big.receipt, third }`

describe('durable approval pauses (workflow journal)', () => {
  test('pause, restart, approve with edited arguments, reject: the same outcome on replay', async () => {
    sent.length = 0
    const program = compileWorkflow(SOURCE, { atoms: [pay], sourceName: 'pay.ajs' })
    const store = new MemoryJournalStore()
    const first = startWorkflow(program, { atoms: [pay], store, executionId: 'pay-1' })
    expect(await first.poll()).toBe('Pending')
    const [waiting] = first.approvals()
    expect(waiting).toMatchObject({ op: 'pay', input: { to: 'bob', amount: 5000 }, site: '3:18' })
    expect(first.query('approvals')).toEqual([waiting])
    expect(sent).toEqual([{ to: 'ana', amount: 20 }]) // the small one needed none
    first.dispose() // the process ends while the call waits

    // Another process: the replay reaches the same waiting call (same id); approved with a smaller amount.
    const second = await resumeWorkflow(program, store.read('pay-1'), { atoms: [pay], store, executionId: 'pay-1' })
    expect(await second.poll()).toBe('Pending')
    expect(second.approvals()).toEqual([waiting!])
    expect(second.approve(waiting!.id, { to: 'bob', amount: 500 })).toBe(true)
    expect(second.approve(waiting!.id)).toBe(false) // answered once
    expect(await second.poll()).toBe('Pending')
    const [next] = second.approvals()
    expect(next).toMatchObject({ op: 'pay', input: { to: 'eve', amount: 900 } })
    second.reject(next!.id, 'not on the list')
    expect(await second.poll()).toEqual({ Complete: { result: { small: 'paid 20 to ana', big: 'paid 500 to bob', third: 'APPROVAL_REJECTED: pay: the call was not approved: not on the list' } } })
    expect(sent).toEqual([{ to: 'ana', amount: 20 }, { to: 'bob', amount: 500 }])

    // A replay of the whole journal calls nothing and ends the same.
    const replay = await resumeWorkflow(program, store.read('pay-1'), { atoms: [pay] })
    expect(await replay.poll()).toEqual({ Complete: { result: { small: 'paid 20 to ana', big: 'paid 500 to bob', third: 'APPROVAL_REJECTED: pay: the call was not approved: not on the list' } } })
    expect(sent).toHaveLength(2)
  })

  test('edited arguments are checked against the schema; a host policy decides per call', async () => {
    const program = compileWorkflow(`export default await pay({ to: 'x', amount: 1 })`, { atoms: [pay] })
    const exec = startWorkflow(program, { atoms: [pay], approval: ({ op }) => op === 'pay' })
    expect(await exec.poll()).toBe('Pending')
    exec.approve(exec.approvals()[0]!.id, { to: 'x', amount: 'lots' } as never)
    await expect(exec.poll()).rejects.toMatchObject({ code: 'WORKFLOW_FAILED', message: expect.stringContaining('ATOM_INPUT_INVALID') })
  })

  test('signal() with any name does not take an approval', async () => {
    const program = compileWorkflow(`const [a, b] = await parallel([() => signal(), () => pay({ to: 'z', amount: 1000 })])
export default { a, b: b.receipt }`, { atoms: [pay] })
    const exec = startWorkflow(program, { atoms: [pay] })
    expect(await exec.poll()).toBe('Pending')
    exec.approve(exec.approvals()[0]!.id)
    expect(await exec.poll()).toBe('Pending') // signal() is still waiting
    exec.signal('hello', 'world')
    expect(await exec.poll()).toEqual({ Complete: { result: { a: 'world', b: 'paid 1000 to z' } } })
  })
})

describe('withApprovals (in process) and MCP tools', () => {
  let tools: McpAtomSet
  beforeAll(async () => { tools = await mcpAtoms(stdioSpec()) })
  afterAll(async () => { await tools?.close() })

  test('a destructiveHint tool requires approval; the decision is asked per call', async () => {
    expect(tools.atoms.delete_!.requiresApproval).toBe(true)
    expect(tools.atoms.get_weather_2!.requiresApproval).toBeUndefined()
    const asked: string[] = []
    const atoms = withApprovals(tools.atoms, (call) => {
      asked.push(`${call.op} ${call.mcp?.tool} ${JSON.stringify(call.input)}`)
      return call.input.id === 'keep' ? { approve: false, reason: 'protected' } : { approve: true, input: { id: `${call.input.id}-v2` } }
    })
    const { ast } = transpile(`function f() {
      const out = [delete_({ id: 'draft' })]
      try { delete_({ id: 'keep' }) } catch (e) { out.push(e.code) }
      return out
    }`, { atoms: tools.atoms })
    const run = await new AgentVM(atoms).run(ast, {}, { fuel: 100 })
    expect(run.result).toEqual(['deleted draft-v2', 'APPROVAL_REJECTED'])
    expect(asked).toEqual(['delete_ delete {"id":"draft"}', 'delete_ delete {"id":"keep"}'])
  })
})

describe('ajsc serve: approvals over HTTP (a workflow calling an MCP tool marked destructive)', () => {
  test('GET .../approvals lists the waiting call; POST .../approvals/{id} approves with edited arguments or rejects', async () => {
    const { createServer, parseServeConfig, tokenSha256 } = await import('../../src/server/index.ts')
    const { SERVER } = await import('./helpers.ts')
    const server = await createServer({
      config: parseServeConfig({ mcp: [{ command: process.execPath, args: [SERVER] }], tenants: [{ id: 'ops', tokenSha256: tokenSha256('ops-token') }] }),
      pool: { size: 1 },
    })
    try {
      const url = await server.listen({ port: 0 })
      const req = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${url}${path}`, { method, headers: { authorization: 'Bearer ops-token', ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
        return { status: res.status, json: await res.json() as any }
      }
      const waitFor = async (id: string, pred: (x: any) => boolean, path = `/v1/workflows/${id}/approvals`) => {
        for (let i = 0; i < 300; i++) {
          const r = (await req('GET', path)).json
          if (pred(r)) return r
          await Bun.sleep(20)
        }
        throw new Error(`timed out on ${path}`)
      }
      const started = await req('POST', '/v1/workflows', { source: `
const first = await delete_({ id: 'draft-1' })
let second
try { second = await delete_({ id: 'prod' }) } catch (e) { second = e.code }
export default { first, second }` })
      expect(started.status).toBe(201)
      const id = started.json.id
      const one = await waitFor(id, (r) => r.approvals.length === 1)
      expect(one.approvals[0]).toMatchObject({ op: 'delete_', input: { id: 'draft-1' }, mcp: { server: 'codemode-test', tool: 'delete' } })
      expect((await req('POST', `/v1/workflows/${id}/approvals/nope`, { approve: true })).status).toBe(404)
      const ok = await req('POST', `/v1/workflows/${id}/approvals/${one.approvals[0].id}`, { approve: true, input: { id: 'draft-2' } })
      expect(ok.status).toBe(200)
      const two = await waitFor(id, (r) => r.approvals.length === 1 && r.approvals[0].id !== one.approvals[0].id)
      expect(two.approvals[0].input).toEqual({ id: 'prod' })
      await req('POST', `/v1/workflows/${id}/approvals/${two.approvals[0].id}`, { approve: false, reason: 'production' })
      const done = await waitFor(id, (wf) => wf.state !== 'running', `/v1/workflows/${id}`)
      expect(done).toMatchObject({ state: 'done', result: { first: 'deleted draft-2', second: 'APPROVAL_REJECTED' } })
    } finally {
      await server.close()
    }
  }, 30_000)
})
