/**
 * The inspector's schedules in headless Chromium (playwright-core, the system `chromium`), beside
 * inspector.test.ts's tour of the schedule page: the list's last action of each schedule (started, with
 * a link to its run; skipped, with the code) and next fire.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { startTestServer, TOKENS, type TestServer } from './helpers.ts'

const CHROMIUM = '/usr/bin/chromium'
const haveChromium = existsSync(CHROMIUM)
if (!haveChromium) console.warn(`inspector schedules browser test skipped: ${CHROMIUM} is missing`)

const WAITS = { source: 'const ok = await agent("Hold?", { external: true })\nexport default { ok }' }
let t: TestServer
let browser: BrowserContext
let profile: string

beforeAll(async () => {
  t = await startTestServer({ size: 1 })
  if (!haveChromium) return
  profile = mkdtempSync(join(tmpdir(), 'ajs-chromium-'))
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, timeout: 60_000,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}, 90_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
  if (profile) rmSync(profile, { recursive: true, force: true })
})

/** A page on the server's inspector whose script errors fail the test (`errors`). */
async function open(hash = ''): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(String(e)))
  // A refused request logs "Failed to load resource" (a 400 the page shows); anything else is a bug.
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text()) })
  await page.goto(`${t.url}/ui#token=${TOKENS.a}${hash}`)
  return { page, errors }
}

const create = async (body: Record<string, unknown>) => expect((await t.req('POST', '/v1/schedules', { body })).status).toBe(201)
const trigger = async (id: string) => expect((await t.req('POST', `/v1/schedules/${id}/trigger`)).status).toBe(200)
const rowOf = (page: Page, id: string) => page.locator('table[aria-label="schedules"] tbody tr', { has: page.locator(`a[href="#/schedule/${id}"]`) })

/** The run a schedule started last, once `pred` holds of it (polled every 20 ms, at most 6 s). */
async function runState(id: string, pred: (wf: any) => boolean): Promise<any> {
  const runId = (await t.req('GET', `/v1/schedules/${id}`)).json.lastRunId
  let wf: any
  for (let i = 0; i < 300; i++) {
    wf = (await t.req('GET', `/v1/workflows/${runId}`)).json
    if (pred(wf)) return wf
    await Bun.sleep(20)
  }
  throw new Error(`the run of ${id} is not as expected: ${JSON.stringify(wf)}`)
}
/** Answer the run a schedule started last, so the server closes without waiting for it. */
async function answerLastRun(id: string): Promise<void> {
  const wf = await runState(id, (w) => w.requests?.length === 1)
  expect((await t.req('POST', `/v1/workflows/${wf.id}/requests/${wf.requests[0].id}`, { body: { value: true } })).status).toBe(200)
}

describe.skipIf(!haveChromium)('the inspector\'s schedules list', () => {
  test('each schedule\'s last action: started with its run, skipped with the code, none yet; its next fire', async () => {
    // Yearly crons: nothing fires on its own while the test runs (the server's clock is the real one).
    await create({ id: 'list-started', workflow: { source: 'export default 1' }, spec: { cron: '0 0 1 1 *' } })
    await create({ id: 'list-skipped', workflow: WAITS, spec: { cron: '0 0 1 1 *' }, jitterMs: 3_600_000 })
    await create({ id: 'list-new', workflow: { source: 'export default 1' }, spec: { cron: '0 0 1 1 *' } })
    await trigger('list-started')
    await runState('list-started', (wf) => wf.state === 'done') // the tenant runs one at a time (TENANT_BUSY)
    await trigger('list-skipped')
    await trigger('list-skipped') // its run waits: skipped (overlap)
    const listed = (await t.req('GET', '/v1/schedules?limit=100')).json.items
    const started = listed.find((s: { id: string }) => s.id === 'list-started').lastAction
    const skipped = listed.find((s: { id: string }) => s.id === 'list-skipped')
    const { page, errors } = await open()
    await rowOf(page, 'list-started').waitFor()
    expect(await page.locator('table[aria-label="schedules"] th').allTextContents()).toEqual(['Id', 'Workflow', 'Spec', 'State', 'Next fire (UTC)', 'Last action (UTC)', 'Fires'])

    const at = (iso: string) => iso.replace('T', ' ').slice(0, 19)
    const startedCells = await rowOf(page, 'list-started').locator('td').allTextContents()
    expect(startedCells.slice(4)).toEqual([expect.stringMatching(/^\d{4}-01-01 00:00:00$/), `started ${at(started.at)} (trigger) · ${started.runId}`, '1 started, 0 skipped'])
    const runLink = rowOf(page, 'list-started').locator('a[href^="#/workflow/"]')
    expect(await runLink.textContent()).toBe(started.runId)

    const skippedCells = await rowOf(page, 'list-skipped').locator('td').allTextContents()
    expect(skippedCells.slice(5)).toEqual([`skipped ${at(skipped.lastAction.at)} (trigger) · overlap`, '1 started, 1 skipped'])
    expect(await rowOf(page, 'list-skipped').locator('td').nth(5).getAttribute('title')).toContain('is still going (overlap: skip)')
    // Its hour of jitter: the next fire is later than its nominal time, by as much as the API says.
    const late = Math.ceil((Date.parse(skipped.nextFireAt) - Date.parse(skipped.nextFireTimes[0])) / 1000)
    expect(skippedCells[4]).toBe(`${at(skipped.nextFireTimes[0])}${late > 0 ? ` +${late} s jitter` : ''}`)

    expect((await rowOf(page, 'list-new').locator('td').allTextContents()).slice(5)).toEqual(['none yet', '0 started, 0 skipped'])

    // The run link opens the run the schedule started.
    await runLink.click()
    await page.locator('#wf-state.state-done').waitFor({ timeout: 15_000 })
    expect(errors).toEqual([])
    await page.close()
    await answerLastRun('list-skipped')
    for (const id of ['list-started', 'list-skipped', 'list-new']) expect((await t.req('DELETE', `/v1/schedules/${id}`)).status).toBe(204)
  }, 90_000)
})
