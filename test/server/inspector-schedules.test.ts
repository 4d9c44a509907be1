/**
 * The inspector's schedules in headless Chromium (playwright-core, the system `chromium`), beside
 * inspector.test.ts's tour of the schedule page: the list's last action of each schedule (started, with
 * a link to its run; skipped, with the code) and next fire; the schedule page's edit form (PATCH: the
 * server's refusals by the field, with code, message and hint; a saved change and its revision); an
 * unpause refused by a limit raised since the spec was set, its hint, and the spec mended in the form; the
 * form's PATCH refused when someone else changed the schedule since the page read it (If-Match), and its reload;
 * Pause/Unpause sent with the ETag, refused the same way (SCHEDULE_CONFLICT, nothing changed), and their reload;
 * an active schedule outside the raised limit flagged in the list and on its page, until a spec that passes;
 * a view that answers late (the list's fetches) never replacing the one navigated to after it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { haveChromium, launchChromium, type TestBrowser } from '../package/chromium.ts'
import { createServer, parseServeConfig, tokenSha256 } from '../../src/server/index.ts'
import { MemoryScheduleStore } from '../../src/server/schedules/store.ts'
import { startTestServer, TOKENS, type TestServer } from './helpers.ts'

if (!haveChromium) console.warn('inspector schedules browser test skipped: no /usr/bin/chromium')

const WAITS = { source: 'const ok = await agent("Hold?", { external: true })\nexport default { ok }' }
let t: TestServer
let browser: TestBrowser | undefined

beforeAll(async () => {
  t = await startTestServer({ size: 1 })
  if (haveChromium) browser = await launchChromium()
}, 90_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
})

/** A page on the server's inspector whose script errors fail the test (`errors`). */
async function open(url = t.url, token: string = TOKENS.a): Promise<{ page: Page; errors: string[] }> {
  const page = await browser!.context.newPage()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(String(e)))
  // A refused request logs "Failed to load resource" (a 400 the page shows); anything else is a bug.
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text()) })
  await page.goto(`${url}/ui#token=${token}`)
  return { page, errors }
}

/**
 * Creating a schedule compiles its workflow, which takes one of the tenant's slots (one, on this
 * one-thread server: size - 1, at least 1): while a step of a run the test before started is still
 * ending, the server answers 429 TENANT_BUSY with Retry-After, as documented, and a client waits.
 * Any other answer is the test's, shown with its code.
 */
const create = async (body: Record<string, unknown>) => {
  for (let tries = 1; ; tries++) {
    const r = await t.req('POST', '/v1/schedules', { body })
    if (r.status === 429 && r.json?.error?.code === 'TENANT_BUSY' && tries < 10) {
      await new Promise((done) => setTimeout(done, Number(r.headers.get('retry-after') ?? 1) * 1000))
      continue
    }
    expect([r.status, r.json?.error?.code]).toEqual([201, undefined])
    return
  }
}
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

describe.skipIf(!haveChromium)('the inspector\'s schedule edit form (PATCH /v1/schedules/{id})', () => {
  test('refusals by their field with code, message and hint, nothing changed; a saved change shows its revision', async () => {
    await create({ id: 'edit-me', workflow: { source: 'export default { team: args.team }' }, args: { team: 'ops' }, spec: { cron: '0 0 1 1 *', timezone: 'Europe/Oslo' } })
    const { page, errors } = await open()
    await page.goto(`${t.url}/ui#/schedule/edit-me`) // the token stays in the session
    await page.locator('#sched-state').waitFor()
    const summary = page.locator('#sched-edit-box summary')
    expect(await summary.textContent()).toBe('Edit schedule (revision 0)')
    expect(await page.locator('#sched-edit-save').isVisible()).toBe(false) // closed at first
    await summary.click()
    const value = (id: string) => page.locator(`#sched-edit-${id}`).inputValue()
    expect([await value('cron'), await value('timezone'), await value('overlap'), await value('catchup'), await value('jitter')]).toEqual(['0 0 1 1 *', 'Europe/Oslo', 'skip', '60000', '0'])
    expect(JSON.parse(await value('args'))).toEqual({ team: 'ops' })
    expect(await page.locator('#sched-edit-every').isDisabled()).toBe(true)
    expect(await page.locator('#sched-revision').textContent()).toBe('0 (as created)')

    const focused = () => page.evaluate(() => document.activeElement?.id)
    const invalid = () => page.locator('[aria-invalid="true"]').evaluateAll((els) => els.map((e) => e.id))
    /** Save, and read the refusal the form shows. */
    const refused = async () => {
      await page.locator('#sched-edit-save').click()
      await page.locator('#sched-edit-error:not([hidden])').waitFor()
      const text = async (id: string) => (await page.locator(id).count()) ? page.locator(id).textContent() : undefined
      return { code: await text('#sched-edit-code'), message: await text('#sched-edit-message'), hint: await text('#sched-edit-hint'), field: (await invalid())[0], focused: await focused() }
    }
    // Every second: more often than limits.minScheduleIntervalMs (60000 by default).
    await page.locator('#sched-edit-kind-every').check()
    expect(await page.locator('#sched-edit-cron').isDisabled()).toBe(true)
    await page.locator('#sched-edit-every').fill('1000')
    expect(await refused()).toEqual({
      code: 'SCHEDULE_TOO_FREQUENT', message: 'spec.everyMs is 1000 ms; this tenant\'s schedules fire at most every 60000 ms (limits.minScheduleIntervalMs)',
      hint: expect.stringContaining('raise the tenant\'s `limits.minScheduleIntervalMs`'), field: 'sched-edit-every', focused: 'sched-edit-every',
    })
    expect(await page.locator('#sched-edit-every').getAttribute('aria-describedby')).toBe('sched-edit-error')
    // A zone the server does not know: the time zone field, and only it, is marked.
    await page.locator('#sched-edit-kind-cron').check()
    await page.locator('#sched-edit-timezone').fill('Mars/Olympus')
    expect(await refused()).toMatchObject({ code: 'SCHEDULE_TIMEZONE', message: 'spec.timezone "Mars/Olympus" is not an IANA time zone this server knows', hint: expect.stringContaining('IANA time zone name'), field: 'sched-edit-timezone', focused: 'sched-edit-timezone' })
    expect(await invalid()).toEqual(['sched-edit-timezone'])
    await page.locator('#sched-edit-timezone').fill('Europe/Oslo')
    // The request schema's refusal (BAD_REQUEST) names the field too.
    await page.locator('#sched-edit-catchup').fill('10')
    expect(await refused()).toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid request: body.catchupWindowMs must be >= 1000, got 10', field: 'sched-edit-catchup' })
    await page.locator('#sched-edit-catchup').fill('120000')
    // Args that are not JSON never leave the page; args that are not an object, the server refuses.
    await page.locator('#sched-edit-args').fill('{ "team": ')
    expect(await refused()).toMatchObject({ code: undefined, message: expect.stringMatching(/^The args are not JSON: /), field: 'sched-edit-args', focused: 'sched-edit-args' })
    await page.locator('#sched-edit-args').fill('["billing"]')
    expect(await refused()).toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid request: body.args must be an object, got an array', field: 'sched-edit-args' })
    expect((await t.req('GET', '/v1/schedules/edit-me')).json).toMatchObject({ revision: 0, spec: { cron: '0 0 1 1 *', timezone: 'Europe/Oslo' }, catchupWindowMs: 60_000, args: { team: 'ops' } })

    // A good change: weekdays at 06:30 in New York, one fire buffered, a two-minute window, 5 s of jitter, another team.
    await page.locator('#sched-edit-cron').fill('30 6 * * 1-5')
    await page.locator('#sched-edit-timezone').fill('America/New_York')
    await page.locator('#sched-edit-overlap').selectOption('bufferOne')
    await page.locator('#sched-edit-jitter').fill('5000')
    await page.locator('#sched-edit-args').fill('{ "team": "billing" }')
    await page.locator('#sched-edit-save').click()
    await page.locator('#sched-edit-box summary', { hasText: 'revision 1' }).waitFor()
    const saved = (await t.req('GET', '/v1/schedules/edit-me')).json
    expect(saved).toMatchObject({ revision: 1, spec: { cron: '30 6 * * 1-5', timezone: 'America/New_York' }, overlap: 'bufferOne', catchupWindowMs: 120_000, jitterMs: 5000, args: { team: 'billing' } })
    expect(await page.locator('#sched-edit-status').textContent()).toBe(`Saved spec, overlap, catchupWindowMs, jitterMs, args: revision 1. It fires next at ${saved.nextFireTimes[0].replace('T', ' ').slice(0, 19)}.`)
    expect(await page.locator('#sched-edit-error').isHidden()).toBe(true)
    expect(await invalid()).toEqual([])
    expect(await focused()).toBe('sched-edit-save')
    expect(await page.locator('#sched-spec').textContent()).toBe('cron 30 6 * * 1-5 (America/New_York)')
    expect(await page.locator('#sched-revision').textContent()).toMatch(/^1 \(changed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)$/)
    expect([await value('cron'), await value('timezone'), await value('overlap'), await value('catchup'), await value('jitter')]).toEqual(['30 6 * * 1-5', 'America/New_York', 'bufferOne', '120000', '5000'])
    // Saved again as it is: nothing is sent.
    await page.locator('#sched-edit-save').click()
    await page.getByText('Nothing changed.').waitFor()
    expect((await t.req('GET', '/v1/schedules/edit-me')).json.revision).toBe(1)
    // Every hour: the spec alone, revision 2.
    await page.locator('#sched-edit-kind-every').check()
    await page.locator('#sched-edit-every').fill('3600000')
    await page.locator('#sched-edit-save').click()
    await page.locator('#sched-edit-box summary', { hasText: 'revision 2' }).waitFor()
    expect(await page.locator('#sched-edit-status').textContent()).toStartWith('Saved spec: revision 2. It fires next at ')
    expect(await page.locator('#sched-spec').textContent()).toBe('every 3600000 ms (1 h)')
    // The new args are what the next fire starts with.
    await page.locator('#sched-trigger').click()
    await page.locator('#sched-actions a[href^="#/workflow/"]').waitFor()
    expect((await runState('edit-me', (wf) => wf.state === 'done')).result).toEqual({ team: 'billing' })

    expect(errors).toEqual([])
    await page.close()
    expect((await t.req('DELETE', '/v1/schedules/edit-me')).status).toBe(204)
  }, 90_000)
})

describe.skipIf(!haveChromium)('the edit form names the version it was built from (If-Match)', () => {
  test('its own pause does not conflict; a change made elsewhere is shown as a conflict with a reload, and nothing is saved', async () => {
    await create({ id: 'race', workflow: { source: 'export default 1' }, spec: { cron: '0 0 1 1 *' } })
    const { page, errors } = await open()
    await page.goto(`${t.url}/ui#/schedule/race`)
    await page.locator('#sched-state').waitFor()
    await page.locator('#sched-edit-box summary').click()
    const save = async (jitter: string) => {
      await page.locator('#sched-edit-jitter').fill(jitter)
      await page.locator('#sched-edit-save').click()
    }
    // The page's own pause is a new version too: the form takes it, and keeps what was typed.
    await page.locator('#sched-edit-jitter').fill('1000')
    await page.locator('#sched-toggle').click()
    await page.locator('#sched-state.state-paused').waitFor()
    expect(await page.locator('#sched-edit-jitter').inputValue()).toBe('1000')
    await page.locator('#sched-edit-save').click()
    await page.locator('#sched-edit-box summary', { hasText: 'revision 1' }).waitFor()

    // Someone else changes it (another tab, the API): the form's save is refused, the schedule stays theirs.
    const theirs = await t.req('PATCH', '/v1/schedules/race', { body: { note: 'theirs', jitterMs: 2000 } })
    expect(theirs.status).toBe(200)
    await save('3000')
    await page.locator('#sched-edit-error:not([hidden])').waitFor()
    expect(await page.locator('#sched-edit-code').textContent()).toBe('SCHEDULE_CONFLICT')
    expect(await page.locator('#sched-edit-message').textContent()).toStartWith('Someone else changed this schedule since this page read it; nothing was saved. Schedule "race" changed since')
    expect(await page.locator('#sched-edit-hint').textContent()).toContain('If-Match')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('sched-edit-reload')
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(0) // no field is at fault
    expect((await t.req('GET', '/v1/schedules/race')).json).toMatchObject({ jitterMs: 2000, note: 'theirs', revision: 2 })

    // Reload: the page and the form show the schedule as it is now; a change made to it is saved.
    await page.locator('#sched-edit-reload').click()
    await page.locator('#sched-edit-status', { hasText: 'Reloaded' }).waitFor()
    expect(await page.locator('#sched-edit-status').textContent()).toBe('Reloaded: revision 2, paused. Make your change again.')
    expect(await page.locator('#sched-edit-error').isHidden()).toBe(true)
    expect(await page.locator('#sched-edit-jitter').inputValue()).toBe('2000')
    expect(await page.locator('#sched-note-shown').textContent()).toBe('theirs')
    await save('4000')
    await page.locator('#sched-edit-box summary', { hasText: 'revision 3' }).waitFor()
    expect((await t.req('GET', '/v1/schedules/race')).json).toMatchObject({ jitterMs: 4000, revision: 3 })
    expect(errors).toEqual([])
    await page.close()
    expect((await t.req('DELETE', '/v1/schedules/race')).status).toBe(204)
  }, 90_000)
})

describe.skipIf(!haveChromium)('Pause and Unpause name the version the page shows (If-Match)', () => {
  test('sent with the ETag; a pause or unpause made elsewhere since is a conflict with a reload, and nothing is changed', async () => {
    await create({ id: 'race-toggle', workflow: { source: 'export default 1' }, spec: { cron: '0 0 1 1 *' } })
    const { page, errors } = await open()
    // The If-Match of every pause and unpause the page sends.
    const sent: Array<[string, string | undefined]> = []
    page.on('request', (r) => { if (/\/(pause|unpause)$/.test(r.url())) sent.push([r.url().slice(r.url().lastIndexOf('/') + 1), r.headers()['if-match']]) })
    await page.goto(`${t.url}/ui#/schedule/race-toggle`)
    await page.locator('#sched-state').waitFor()
    const read = async () => (await t.req('GET', '/v1/schedules/race-toggle'))
    const status = () => page.locator('#sched-status').textContent()
    const focused = () => page.evaluate(() => document.activeElement?.id)

    // Its own pause: sent with the ETag GET answers, and it goes through.
    const first = await read()
    await page.locator('#sched-toggle').click()
    await page.locator('#sched-state.state-paused').waitFor()
    expect(sent).toEqual([['pause', first.headers.get('etag')!]])
    expect(await page.locator('#sched-conflict').isHidden()).toBe(true)
    const paused = (await read()).json.conflictToken

    // Someone else unpauses it (another tab, the API): the page still says Unpause; its unpause is refused, the schedule stays theirs.
    expect((await t.req('POST', '/v1/schedules/race-toggle/unpause', { body: { note: 'theirs' } })).status).toBe(200)
    const theirs = (await read()).json
    await page.locator('#sched-note').fill('mine')
    await page.locator('#sched-toggle').click()
    await page.locator('#sched-status.err').waitFor()
    expect(sent[1]).toEqual(['unpause', `"${paused}"`]) // the version its own pause answered
    expect(paused).not.toBe(theirs.conflictToken)
    expect(await status()).toStartWith('Unpause failed: someone else changed this schedule since this page read it; nothing was changed. SCHEDULE_CONFLICT: Schedule "race-toggle" changed since the version If-Match names')
    expect(await page.locator('#sched-hint').isHidden()).toBe(true)
    expect(await page.locator('#sched-conflict').isVisible()).toBe(true)
    expect(await focused()).toBe('sched-reload')
    expect(await page.locator('#sched-state').textContent()).toBe('paused') // what the page read, until it reloads
    expect((await read()).json).toMatchObject({ paused: false, note: 'theirs', conflictToken: theirs.conflictToken })

    // Reload: the schedule as it is now; the toggle says Pause and takes the focus; a pause from it goes through.
    await page.locator('#sched-reload').click()
    await page.locator('#sched-status', { hasText: 'Reloaded' }).waitFor()
    expect(await status()).toBe('Reloaded: it is active (revision 0), note: theirs.')
    expect(await page.locator('#sched-conflict').isHidden()).toBe(true)
    expect(await page.locator('#sched-state').textContent()).toBe('active')
    expect(await page.locator('#sched-toggle').textContent()).toBe('Pause')
    expect(await focused()).toBe('sched-toggle')
    await page.locator('#sched-toggle').click()
    await page.locator('#sched-state.state-paused').waitFor()
    expect(sent[2]).toEqual(['pause', `"${theirs.conflictToken}"`])
    expect((await read()).json).toMatchObject({ paused: true, note: 'mine' })

    // A PATCH made elsewhere is a new version too: the next unpause is refused the same way.
    expect((await t.req('PATCH', '/v1/schedules/race-toggle', { body: { jitterMs: 2000 } })).status).toBe(200)
    await page.locator('#sched-toggle').click()
    await page.locator('#sched-conflict:not([hidden])').waitFor()
    expect((await read()).json).toMatchObject({ paused: true, jitterMs: 2000, revision: 1 })
    await page.locator('#sched-reload').click()
    await page.locator('#sched-status', { hasText: 'Reloaded' }).waitFor()
    expect(await status()).toBe('Reloaded: it is paused (revision 1), note: mine.')
    await page.locator('#sched-toggle').click()
    await page.locator('#sched-state.state-active').waitFor()
    expect((await read()).json.paused).toBe(false)
    expect(errors).toEqual([])
    await page.close()
    expect((await t.req('DELETE', '/v1/schedules/race-toggle')).status).toBe(204)
  }, 90_000)
})

/**
 * Two servers on one store, the tenant's limits.minScheduleIntervalMs a minute on the first and an hour on the
 * second: `fn` gets their URLs and an API call with the tenant's token (schedules made on the first, the page on the second).
 */
async function raisedLimit(fn: (oldUrl: string, url: string, api: (url: string, method: string, path: string, body?: unknown) => Promise<Response>) => Promise<void>): Promise<void> {
  const store = new MemoryScheduleStore()
  const configOf = (minScheduleIntervalMs: number) => parseServeConfig({ tenants: [{ id: 'ops', tokenSha256: tokenSha256('ops-token'), limits: { minScheduleIntervalMs } }] })
  const before = await createServer({ config: configOf(60_000), pool: { size: 1 }, schedules: { store: () => store } })
  const after = await createServer({ config: configOf(3_600_000), pool: { size: 1 }, schedules: { store: () => store } })
  const api = (url: string, method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, { method, headers: { authorization: 'Bearer ops-token', ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
  try {
    await fn(await before.listen({ port: 0 }), await after.listen({ port: 0 }), api)
  } finally {
    await after.close()
    await before.close()
  }
}

describe.skipIf(!haveChromium)('the inspector on a schedule whose spec a raised limit no longer allows', () => {
  test('Unpause is refused with the code and the hint; a spec mended in the form while paused, it unpauses', async () => {
    // The schedule made under a minute's limit, the page on a server whose limit is an hour.
    await raisedLimit(async (oldUrl, url, api) => {
      const made = await api(oldUrl, 'POST', '/v1/schedules', { id: 'often', workflow: { source: 'export default 1' }, spec: { cron: '*/5 * * * *' }, paused: true })
      expect(made.status).toBe(201)
      const { page, errors } = await open(url, 'ops-token')
      await page.goto(`${url}/ui#/schedule/often`)
      await page.locator('#sched-state.state-paused').waitFor()
      await page.locator('#sched-toggle').click()
      await page.locator('#sched-status.err').waitFor()
      expect(await page.locator('#sched-status').textContent()).toBe('Unpause failed: SCHEDULE_OUTSIDE_LIMITS: Schedule "often" would be left active on a spec this tenant\'s limits no longer allow (they changed since it was set): spec.cron "*/5 * * * *" fires 300000 ms apart (at 00:00:00 and 00:05:00); this tenant\'s schedules fire at most every 3600000 ms (limits.minScheduleIntervalMs)')
      expect(await page.locator('#sched-hint').textContent()).toBe('PATCH /v1/schedules/{id} with a `spec` that fires less often (with `paused: false` to unpause it), or with `paused: true`; or raise the tenant\'s `limits.minScheduleIntervalMs` in the serve config.')
      expect(await page.locator('#sched-state').textContent()).toBe('paused')
      // Hourly instead, in the form: taken while it is paused; then Unpause goes through, and the hint is gone.
      await page.locator('#sched-edit-box summary').click()
      await page.locator('#sched-edit-cron').fill('0 * * * *')
      await page.locator('#sched-edit-save').click()
      await page.locator('#sched-edit-box summary', { hasText: 'revision 1' }).waitFor()
      await page.locator('#sched-toggle').click()
      await page.locator('#sched-state.state-active').waitFor()
      expect(await page.locator('#sched-status').textContent()).toMatch(/^Unpaused: it fires next at \d{4}-\d\d-\d\d \d\d:00:00\.$/)
      expect(await page.locator('#sched-hint').isHidden()).toBe(true)
      expect(errors).toEqual([])
      await page.close()
    })
  }, 90_000)

  test('an active one is flagged in the list and on its page with the server\'s why and hint; a spec that passes clears it', async () => {
    await raisedLimit(async (oldUrl, url, api) => {
      // Every 20 minutes (a fire while the test runs starts `export default 1`, or is skipped: either is fine here).
      expect((await api(oldUrl, 'POST', '/v1/schedules', { id: 'often-active', workflow: { source: 'export default 1' }, spec: { everyMs: 1_200_000 } })).status).toBe(201)
      expect((await api(oldUrl, 'POST', '/v1/schedules', { id: 'often-paused', workflow: { source: 'export default 1' }, spec: { everyMs: 1_200_000 }, paused: true })).status).toBe(201)
      const why = (await (await api(url, 'GET', '/v1/schedules/often-active')).json() as any).outsideLimits
      expect(why.message).toContain('spec.everyMs is 1200000 ms')
      const { page, errors } = await open(url, 'ops-token')
      const rowState = (id: string) => page.locator('table[aria-label="schedules"] tbody tr', { has: page.locator(`a[href="#/schedule/${id}"]`) }).locator('td').nth(3)
      await rowState('often-active').waitFor()
      expect(await rowState('often-active').textContent()).toBe('active ⚠ outside limits')
      expect(await rowState('often-active').locator('.outside-limits').getAttribute('title')).toBe(why.message)
      expect(await rowState('often-paused').textContent()).toBe('paused')

      await page.goto(`${url}/ui#/schedule/often-active`)
      await page.locator('#sched-outside-limits').waitFor()
      expect(await page.locator('#sched-outside-message').textContent()).toBe(why.message)
      expect(await page.locator('#sched-outside-hint').textContent()).toBe(why.hint)
      // Hourly instead, in the form: it passes, and the page says nothing more about the limits.
      await page.locator('#sched-edit-box summary').click()
      await page.locator('#sched-edit-kind-every').check()
      await page.locator('#sched-edit-every').fill('3600000')
      await page.locator('#sched-edit-save').click()
      await page.locator('#sched-edit-box summary', { hasText: 'revision 1' }).waitFor()
      expect(await page.locator('#sched-outside-limits').count()).toBe(0)
      expect(errors).toEqual([])
      await page.close()
    })
  }, 90_000)
})

describe.skipIf(!haveChromium)('a view that answers late never replaces the one navigated to after it', () => {
  test("the list's fetches, held back, end after the schedule page is shown: it stays", async () => {
    await create({ id: 'late-list', workflow: { source: 'export default 1' }, spec: { cron: '0 0 1 1 *' } })
    const page = await browser!.context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(String(e)))
    // The list's run and workflow pages answer 800 ms late; nothing else is held.
    let held = 0
    const answered: Array<Promise<unknown>> = []
    await page.route(/\/v1\/(runs|workflows)\?/, async (route) => {
      held++
      answered.push(page.waitForEvent('requestfinished', (r) => r === route.request()))
      await new Promise((r) => setTimeout(r, 800))
      await route.continue()
    })
    await page.goto(`${t.url}/ui#token=${TOKENS.a}`) // the list starts, and waits on its fetches
    await page.evaluate(() => { location.hash = '#/schedule/late-list' })
    await page.locator('#sched-state').waitFor()
    // The list's answers arrive after the schedule page is shown; wait until they have, and the page's tasks after them.
    expect(held).toBeGreaterThan(0)
    await Promise.all(answered)
    for (let i = 0; i < 3; i++) await page.evaluate(() => new Promise((r) => setTimeout(r, 0)))
    expect(await page.locator('#sched-state').count()).toBe(1)
    expect(await page.locator('h2').first().textContent()).toBe('Schedule late-list')
    expect(errors).toEqual([])
    await page.close()
    expect((await t.req('DELETE', '/v1/schedules/late-list')).status).toBe(204)
  }, 60_000)
})
