/**
 * `ajsc workflow approve | reject <run-id> <approval-id>` (issue 25): the
 * friendly form of the signal approval:<id> for a local run whose atom call
 * waits for approval (ids listed by `ajsc workflow query <run-id> approvals`).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startLocalRun } from '../../src/workflows/index.ts'
import { loadHostAtoms } from '../../src/host/atoms-module.ts'
import { ajscIn } from '../workflows/helpers.ts'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-approve-cli-'))
  writeFileSync(join(dir, 'pay.mjs'), `import { defineAtom, s } from ${JSON.stringify(resolve(import.meta.dir, '../../src/index.ts'))}
export const pay = defineAtom('pay', s.object({ to: s.string, amount: s.number }), s.object({ receipt: s.string }),
  async ({ to, amount }) => ({ receipt: 'paid ' + amount + ' to ' + to }), { requiresApproval: true })
`)
  writeFileSync(join(dir, 'pay.ajs'), `const a = await pay({ to: 'ana', amount: 900 })
let b
try { b = (await pay({ to: 'bob', amount: 50 })).receipt } catch (e) { b = e.code + ': ' + e.message }
export default { a: a.receipt, b }
`)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function waiting(runId: string): Promise<Array<{ id: string; input: Record<string, unknown> }>> {
  for (let i = 0; i < 200; i++) {
    const q = await ajscIn(dir, ['workflow', 'query', runId, 'approvals', '--atoms', './pay.mjs', '--runs-dir', 'runs', '--json'])
    const list = q.code === 0 ? (JSON.parse(q.out).value ?? []) : []
    if (list.length > 0) return list
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error('no call waits for approval')
}

test('approve with edited arguments, then reject with a reason', async () => {
  const { atoms } = await loadHostAtoms(['./pay.mjs'], dir)
  const running = startLocalRun({ file: join(dir, 'pay.ajs'), runsDir: join(dir, 'runs'), atoms })
  let runId = ''
  for (let i = 0; i < 200 && !runId; i++) { try { runId = readdirSync(join(dir, 'runs'))[0] ?? '' } catch { /* not yet */ } if (!runId) await new Promise((r) => setTimeout(r, 10)) }
  const [first] = await waiting(runId)
  expect(first!.input).toEqual({ to: 'ana', amount: 900 })
  const approved = await ajscIn(dir, ['workflow', 'approve', runId, first!.id, '--input', '{"to":"ana","amount":90}', '--runs-dir', 'runs'])
  expect(approved.code).toBe(0)
  expect(approved.out).toContain(`queued approval of ${first!.id}`)
  let second = first!
  for (let i = 0; i < 200 && second.id === first!.id; i++) { [second] = await waiting(runId) }
  const rejected = await ajscIn(dir, ['workflow', 'reject', runId, `approval:${second.id}`, '--reason', 'not today', '--runs-dir', 'runs', '--json'])
  expect(JSON.parse(rejected.out)).toMatchObject({ runId, approval: second.id, approve: false })
  expect(await running).toEqual({ runId, result: { a: 'paid 90 to ana', b: 'APPROVAL_REJECTED: pay: the call was not approved: not today' } })
  const bad = await ajscIn(dir, ['workflow', 'approve', runId, second.id, '--input', '[1]', '--runs-dir', 'runs'])
  expect(bad.code).not.toBe(0)
  expect(bad.out + bad.err).toContain('--input must be a JSON object')
}, 60_000)
