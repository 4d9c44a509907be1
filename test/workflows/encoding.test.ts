/**
 * The JSON forms of the boundary against fixtures written from the seed's
 * Rust types (test/workflows/fixtures/serde.json): what poll() returns is
 * exactly their serde encoding, and every resolution a seed host can send
 * decodes (and nothing else does).
 */
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { decodeBudget, decodeResolution, startWorkflow, WorkflowError } from '../../src/workflows/index.ts'

const FIXTURES = JSON.parse(readFileSync(new URL('./fixtures/serde.json', import.meta.url), 'utf8'))

const SOURCE = `import { sleep } from 'workflow:extra'
log('start', 3)
phase('draft')
phase('review', { total: 2 })
await agent('Summarize')
await agent('Classify', { model: 'small' })
await workflow('child')
await workflow({ scriptPath: 'flows/child.ajs' }, { n: 1 })
await sleep(1500)
export default { ok: true }
`

test('poll() returns the serde encoding of every WorkflowRuntimePoll variant', async () => {
  const ex = startWorkflow(SOURCE, { sourceName: 'fixture.ajs' })
  const expected = FIXTURES.polls.filter((f: { json: unknown }) => f.json !== 'Pending')
  for (const fixture of expected) {
    const poll = await ex.poll()
    const wire = JSON.parse(JSON.stringify(poll))
    if (typeof wire === 'object' && 'Request' in wire) {
      expect(typeof wire.Request.id).toBe('string')
      const json = structuredClone(fixture.json)
      json.Request.id = wire.Request.id
      expect(wire).toEqual(json)
      expect(ex.takePendingRequests().map((r) => r.id)).toEqual([wire.Request.id])
      // Drained and unresolved: nothing else is ready.
      expect(await ex.poll()).toBe(FIXTURES.polls[0].json)
      ex.resolveRequest(wire.Request.id, 'OkUndefined')
    } else {
      expect(wire).toEqual(fixture.json)
    }
  }
  ex.dispose()
})

test('every resolution fixture decodes to itself', () => {
  for (const f of FIXTURES.resolutions) expect(decodeResolution(JSON.parse(JSON.stringify(f.json)))).toEqual(f.json)
})

test('budget snapshots decode with serde Option rules (absent total is null)', () => {
  for (const f of FIXTURES.budgets) expect(decodeBudget(f.json)).toEqual(f.json)
  expect(decodeBudget({ spent: 4 })).toEqual({ total: null, spent: 4 })
})

test('anything else is WORKFLOW_RESOLUTION_INVALID', () => {
  for (const bad of FIXTURES.invalidResolutions) {
    let err: unknown
    try { decodeResolution(bad) } catch (e) { err = e }
    expect(err).toBeInstanceOf(WorkflowError)
    expect((err as WorkflowError).code).toBe('WORKFLOW_RESOLUTION_INVALID')
  }
})
