/** The local driver as a library: the agent concurrency limit and resuming a finished run. */
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resumeLocalRun, startLocalRun, type LlmLike } from '../../src/workflows/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'ajs-wf-local-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function slowLlm(): LlmLike & { peak: number; calls: number } {
  let active = 0
  const llm = {
    peak: 0,
    calls: 0,
    async predict(prompt: string) {
      llm.calls++
      active++
      llm.peak = Math.max(llm.peak, active)
      await new Promise((r) => setTimeout(r, 15))
      active--
      return `done ${prompt}`
    },
  }
  return llm
}

test('at most maxAgents agent calls run at once', async () => {
  const file = join(dir, 'fan.ajs')
  writeFileSync(file, `export default await parallel(args.items.map((x) => () => agent('item ' + x)))\n`)
  const llm = slowLlm()
  const out = await startLocalRun({ file, args: { items: [1, 2, 3, 4, 5, 6, 7, 8] }, llm, maxAgents: 3, runsDir: join(dir, 'runs') })
  expect(out.result).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((x) => `done item ${x}`))
  expect(llm.peak).toBe(3)
  // Resuming a finished run replays it: the same result, no model call.
  const again = slowLlm()
  expect((await resumeLocalRun(out.runId, { llm: again, runsDir: join(dir, 'runs') })).result).toEqual(out.result)
  expect(again.calls).toBe(0)
})
