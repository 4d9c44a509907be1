/**
 * `ajsc workflow signal | cancel | query | replay` and `resume --upgrade`
 * against local runs (the running process applies the inbox).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startLocalRun } from '../../src/workflows/index.ts'
import { ajscIn } from './helpers.ts'
import { startFakeLlm, type FakeLlm } from './fake-llm.ts'

let llm: FakeLlm
let dir: string
beforeAll(async () => {
  llm = await startFakeLlm()
  dir = mkdtempSync(join(tmpdir(), 'ajs-wf-sig-'))
})
afterAll(async () => {
  await llm.close()
  rmSync(dir, { recursive: true, force: true })
})

const runIdIn = async (runs: string): Promise<string> => {
  for (let i = 0; i < 200; i++) {
    try { const [id] = readdirSync(join(dir, runs)); if (id) return id } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error('no run')
}

test('a running local run takes signals from `ajsc workflow signal`; `query` reads its exposed state', async () => {
  writeFileSync(join(dir, 'approve.ajs'), `expose('stage', 'drafting')
const draft = await agent('draft')
expose('stage', 'awaiting approval')
const ok = await signal('approved')
expose('stage', 'done')
export default { draft, ok }
`)
  const running = startLocalRun({ file: join(dir, 'approve.ajs'), runsDir: join(dir, 'a'), llm: { predict: async (p) => `echo: ${p}` } })
  const runId = await runIdIn('a')
  for (let i = 0; i < 100; i++) {
    const q = await ajscIn(dir, ['workflow', 'query', runId, 'stage', '--runs-dir', 'a', '--json'])
    if (JSON.parse(q.out).value === 'awaiting approval') break
    await new Promise((r) => setTimeout(r, 20))
  }
  const sent = await ajscIn(dir, ['workflow', 'signal', runId, 'approved', '--payload', '{"by":"ana"}', '--runs-dir', 'a'])
  expect(sent.code).toBe(0)
  expect(await running).toEqual({ runId, result: { draft: 'echo: draft', ok: { by: 'ana' } } })
  expect(JSON.parse((await ajscIn(dir, ['workflow', 'query', runId, '--runs-dir', 'a', '--json'])).out).value).toEqual({ stage: 'done' })
})

test('`ajsc workflow cancel`: the waiting run throws at its wait, runs its finally, ends cancelled', async () => {
  writeFileSync(join(dir, 'cancel.ajs'), `try {\n  await signal('never')\n} finally {\n  log('cleaned up')\n}\nexport default 1\n`)
  const logs: unknown[] = []
  const running = startLocalRun({ file: join(dir, 'cancel.ajs'), runsDir: join(dir, 'c'), onCall: (c) => logs.push(c) })
  const runId = await runIdIn('c')
  expect((await ajscIn(dir, ['workflow', 'cancel', runId, '--reason', 'not needed', '--runs-dir', 'c'])).code).toBe(0)
  await expect(running).rejects.toMatchObject({ code: 'WORKFLOW_CANCELLED' })
  expect(logs).toEqual([{ type: 'log', values: ['cleaned up'] }])
  const shown = JSON.parse((await ajscIn(dir, ['workflow', 'show', runId, '--runs-dir', 'c', '--json'])).out).run
  expect(shown.state).toBe('cancelled')
})

test('`ajsc workflow replay --against` tells which stored runs a new version breaks', async () => {
  writeFileSync(join(dir, 'v.ajs'), `const a = await agent('one')\nconst b = await signal('next')\nexport default [a, b]\n`)
  const running = startLocalRun({ file: join(dir, 'v.ajs'), runsDir: join(dir, 'v'), llm: { predict: async (p) => `echo: ${p}` } })
  const runId = await runIdIn('v')
  for (let i = 0; i < 200 && !(await ajscIn(dir, ['workflow', 'show', runId, '--runs-dir', 'v', '--json'])).out.includes('"resolved":1'); i++) await new Promise((r) => setTimeout(r, 10))
  await ajscIn(dir, ['workflow', 'cancel', runId, '--runs-dir', 'v']) // stop the process's run... then look at an in-flight copy below
  await running.catch(() => {})
  writeFileSync(join(dir, 'fixed.ajs'), `const a = await agent('one')\nconst b = patched('shout') ? (await signal('next')) + '!' : await signal('next')\nexport default [a, b]\n`)
  writeFileSync(join(dir, 'broken.ajs'), `const a = await agent('uno')\nexport default a\n`)
  const good = await ajscIn(dir, ['workflow', 'replay', runId, '--against', 'fixed.ajs', '--runs-dir', 'v', '--json'])
  expect(JSON.parse(good.out)).toMatchObject({ ok: true, runs: [{ runId, ok: true }] })
  const bad = await ajscIn(dir, ['workflow', 'replay', '--against', 'broken.ajs', '--runs-dir', 'v', '--json'])
  expect(bad.code).toBe(1)
  expect(JSON.parse(bad.out).runs).toMatchObject([{ runId, ok: false, code: 'JOURNAL_MISMATCH' }])
})
