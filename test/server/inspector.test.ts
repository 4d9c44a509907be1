/**
 * The web inspector in headless Chromium (playwright-core, the system `chromium`): on `ajsc serve`
 * (GET /ui, data through the API with the tenant's token) — load the list, run a program and read
 * its timeline, start a workflow, answer its pending request, see it finish; in a fresh browser
 * context, the lists come from the API (GET /v1/runs, /v1/workflows: paged, filtered, the tenant's
 * only) and the workflow's journal with its budget chart — and on `ajsc inspect`
 * (a CLI trace and a workflow run directory, served on 127.0.0.1). A screenshot of each page goes to
 * a temporary folder; keyboard navigation and a contrast check.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { runFinished, startTestServer, TOKENS, type TestServer } from './helpers.ts'
import { ajsc } from '../cli/run-cli.ts'
import { loadInspectData, serveInspector } from '../../src/cli/commands/inspect.ts'

const CHROMIUM = '/usr/bin/chromium'
const haveChromium = existsSync(CHROMIUM)
if (!haveChromium) console.warn(`inspector browser test skipped: ${CHROMIUM} is missing`)

const shots = mkdtempSync(join(tmpdir(), 'ajs-inspector-shots-'))
const work = mkdtempSync(join(tmpdir(), 'ajs-inspector-'))
let t: TestServer
let browser: BrowserContext
let profile: string
/** What the first page started (the fresh context must find them through the API). */
let startedRun = ''
let startedWorkflow = ''

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
  rmSync(work, { recursive: true, force: true })
  console.log(`inspector screenshots: ${shots}`)
})

/** WCAG contrast ratio of the computed colour and background of the elements matching `selector` (the lowest). */
async function lowestContrast(page: Page, selector: string): Promise<number> {
  return page.evaluate((sel) => {
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? ['0', '0', '0']).slice(0, 3).map(Number)
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4 }
      return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!)
    }
    const background = (el: Element | null): string => {
      for (let e = el; e; e = e.parentElement) {
        const bg = getComputedStyle(e).backgroundColor
        if (bg && !bg.startsWith('rgba(0, 0, 0, 0)') && bg !== 'transparent') return bg
      }
      return 'rgb(255, 255, 255)'
    }
    let lowest = 21
    for (const el of Array.from(document.querySelectorAll(sel))) {
      const a = lum(rgb(getComputedStyle(el).color))
      const b = lum(rgb(background(el)))
      lowest = Math.min(lowest, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05))
    }
    return lowest
  }, selector)
}

describe.skipIf(!haveChromium)('the inspector on ajsc serve (/ui)', () => {
  test('the page needs no token, its data does; a strict CSP', async () => {
    const page = await t.req('GET', '/ui', { token: null })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect((await t.req('GET', '/ui/app.js', { token: null })).status).toBe(200)
    expect((await t.req('GET', '/v1/runs/nope', { token: null })).status).toBe(401)
  })

  test('list → run a program → its timeline → start a workflow → answer its request → done; keyboard and contrast', async () => {
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(String(e)))
    // Refused API calls (the wrong token) log "Failed to load resource"; anything else is a bug of the page.
    page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text()) })

    // Without a token: the sign-in form; a wrong token is refused by the API.
    await page.goto(`${t.url}/ui`)
    await page.locator('#token').fill('wrong')
    await page.keyboard.press('Enter')
    await page.getByText('Nothing here yet.').or(page.getByText('That token was refused.')).first().waitFor()

    await page.goto(`${t.url}/ui#token=${TOKENS.a}`)
    await page.getByRole('heading', { name: 'Runs and workflows' }).waitFor()
    expect(page.url()).not.toContain(TOKENS.a) // the token leaves the address bar
    await page.screenshot({ path: join(shots, '1-list.png'), fullPage: true })

    // Run a program with its trace: the timeline has a row per step with fuel and cumulative fuel.
    await page.locator('#run-args').fill('{"n": 4}')
    await page.locator('#run-submit').click()
    await page.locator('#timeline').waitFor()
    startedRun = decodeURIComponent(page.url().split('#/run/')[1]!)
    expect(await page.locator('#run-state').textContent()).toBe('ok')
    expect(await page.locator('#run-result').textContent()).toBe('{"total":6}')
    const rows = await page.locator('#timeline tbody tr').count()
    expect(rows).toBeGreaterThan(3)
    const cumulative = await page.locator('#timeline tbody tr td:nth-child(7)').allTextContents()
    expect(cumulative.map(Number).every((n) => Number.isFinite(n))).toBe(true)
    // Started from this page, its source is known here: each step shows its line of code.
    expect(await page.locator('#timeline tbody tr td:nth-child(4)').allTextContents()).toContain('let total = 0')
    await page.screenshot({ path: join(shots, '2-run-timeline.png'), fullPage: true })

    // Back to the list by keyboard: the run is listed; Tab to its link and open it with Enter.
    await page.getByRole('link', { name: '← all runs and workflows' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Runs and workflows' }).waitFor()
    // Its label (the start of its source) outlives the visit to the run, which records its new state.
    const labels = await page.locator('table[aria-label="runs"] tbody tr td:nth-child(4)').allTextContents()
    expect(labels.some((l) => l.startsWith('function main({ n }) {'))).toBe(true)
    let reached = false
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab')
      reached = await page.evaluate(() => (document.activeElement?.getAttribute('href') ?? '').startsWith('#/run/'))
    }
    expect(reached).toBe(true)
    await page.keyboard.press('Enter')
    await page.locator('#timeline').waitFor()

    // A workflow waiting on an external request: answer it from the page, see it finish.
    await page.goto(`${t.url}/ui#/`)
    await page.getByRole('heading', { name: 'Runs and workflows' }).waitFor()
    await page.locator('#wf-source').fill('const ok = await agent("Approve the refund?", { external: true })\nexport default { approved: ok }')
    await page.locator('#wf-submit').click()
    const answer = page.locator('input.answer')
    await answer.waitFor({ timeout: 15_000 })
    startedWorkflow = decodeURIComponent(page.url().split('#/workflow/')[1]!)
    expect(await page.getByText('Approve the refund?').count()).toBeGreaterThan(0)
    await page.screenshot({ path: join(shots, '3-workflow-pending.png'), fullPage: true })
    await answer.fill('true')
    await answer.press('Enter')
    await page.locator('#wf-state.state-done').waitFor({ timeout: 15_000 })
    expect(await page.locator('#wf-result').textContent()).toBe('{"approved":true}')
    await page.screenshot({ path: join(shots, '4-workflow-done.png'), fullPage: true })

    // The list has both, and filters by kind and state, with paging controls.
    await page.goto(`${t.url}/ui#/`)
    await page.locator('tbody tr').nth(1).waitFor()
    await page.locator('#f-kind').selectOption('workflow')
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1)
    expect(await page.locator('tbody tr td:nth-child(3)').textContent()).toBe('done')
    expect(await page.locator('#wf-prev').isDisabled()).toBe(true)
    expect(await page.locator('#wf-next').isDisabled()).toBe(true)

    // Contrast (WCAG AA, 4.5:1) of text, table headers, links, buttons and state colours.
    for (const sel of ['body', 'th', 'td', 'a', 'button', 'label', '.state-done', '.muted']) {
      if (await page.locator(sel).count() === 0) continue
      expect({ sel, ratio: await lowestContrast(page, sel) }).toEqual({ sel, ratio: expect.any(Number) })
      expect(await lowestContrast(page, sel)).toBeGreaterThanOrEqual(4.5)
    }
    expect(errors).toEqual([])
    await page.close()
  }, 90_000)
})

describe.skipIf(!haveChromium)('the inspector in a fresh browser context: lists and journals from the API', () => {
  test('the tenant\'s runs and workflows, paged and filtered; a workflow\'s journal with its budget; another tenant sees none', async () => {
    expect(startedRun).toStartWith('run_')
    expect(startedWorkflow).toStartWith('wf_')
    // More runs than a page holds (20): the first run started from the page is on the second page.
    for (let i = 0; i < 21; i++) {
      const id = (await t.req('POST', '/v1/runs?async=1', { body: { source: `function f() { return { i: ${i} } }` } })).json.id
      expect((await runFinished(t, id)).state).toBe('done')
    }
    const fresh = await chromium.launch({ executablePath: CHROMIUM, headless: true, timeout: 60_000, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] })
    try {
      const context = await fresh.newContext()
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(String(e)))
      // The browser's own /favicon.ico is a 404; every API call of the page must succeed.
      page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text()) })
      page.on('response', (r) => { if (r.status() >= 400 && r.url().includes('/v1/')) errors.push(`${r.status()} ${r.url()}`) })
      await page.goto(`${t.url}/ui#token=${TOKENS.a}`)
      await page.getByRole('heading', { name: 'Runs and workflows' }).waitFor()
      // Nothing known to this browser: what it lists comes from the API.
      expect(await page.evaluate(() => sessionStorage.getItem('ajs-inspector-items'))).toBeNull()
      await page.locator(`a[href="#/workflow/${startedWorkflow}"]`).waitFor()
      const runRows = page.locator('table[aria-label="runs"] tbody tr')
      expect(await runRows.count()).toBe(20)
      expect(await page.locator(`a[href="#/run/${startedRun}"]`).count()).toBe(0)
      expect(await page.locator('#runs-prev').isDisabled()).toBe(true)
      await page.screenshot({ path: join(shots, '8-fresh-list.png'), fullPage: true })
      await page.locator('#runs-next').click()
      await page.locator(`a[href="#/run/${startedRun}"]`).waitFor()
      expect(await runRows.count()).toBe(2)
      expect(await page.locator('#runs-next').isDisabled()).toBe(true)
      await page.locator('#runs-prev').click()
      await page.waitForFunction(() => document.querySelectorAll('table[aria-label="runs"] tbody tr').length === 20)

      // Filters: a state the API filters by; a state runs do not have.
      await page.locator('#f-state').selectOption('waiting')
      await page.getByText('Runs have no state “waiting”.').waitFor()
      expect(await page.locator('table[aria-label="workflows"] tbody tr td').first().textContent()).toBe('Nothing here yet.')
      await page.locator('#f-state').selectOption('done')
      await page.locator(`a[href="#/workflow/${startedWorkflow}"]`).waitFor()
      expect(await page.locator(`a[href="#/run/${startedRun}"]`).count()).toBe(0) // a newer page of done runs
      await page.locator('#f-kind').selectOption('workflow')
      await page.waitForFunction(() => document.querySelectorAll('table[aria-label="runs"]').length === 0)

      // A tag lists the workflows that carry it (GET /v1/workflows?tag=), with their name and tags.
      const tagged = (await t.req('POST', '/v1/workflows', { body: { source: 'export default 1', name: 'tagged one', tags: ['inspector-tag'] } })).json.id
      for (let k = 0; k < 300 && (await t.req('GET', `/v1/workflows/${tagged}`)).json.state !== 'done'; k++) await Bun.sleep(10)
      await page.locator('#f-tag').fill('inspector-tag')
      await page.locator('#f-tag').press('Enter')
      await page.locator(`a[href="#/workflow/${tagged}"]`).waitFor()
      expect(await page.locator('table[aria-label="workflows"] tbody tr').count()).toBe(1)
      expect(await page.locator('table[aria-label="workflows"] tbody').textContent()).toContain('tagged one · #inspector-tag')
      await page.locator('#f-tag').fill('')
      await page.locator('#f-tag').press('Enter')
      await page.locator(`a[href="#/workflow/${startedWorkflow}"]`).waitFor()

      // The workflow's journal from GET /v1/workflows/{id}/journal, with the budget over time.
      await page.locator(`a[href="#/workflow/${startedWorkflow}"]`).click()
      await page.locator('#journal').waitFor()
      const kinds = await page.locator('#journal tbody tr td:nth-child(2)').allTextContents()
      expect(kinds[0]).toBe('start')
      expect(kinds).toContain('request · agent')
      expect(kinds).toContain('resolution')
      expect(kinds.at(-1)).toBe('end')
      expect(await page.locator('#journal-range').textContent()).toBe(`Entries 1–${kinds.length} of ${kinds.length}`)
      expect(await page.locator('#journal-next').isDisabled()).toBe(true)
      expect(await page.locator('#budget-chart').getAttribute('aria-label')).toStartWith('Budget spent over the journal: 0 to 0 agent calls (no limit)')
      await page.screenshot({ path: join(shots, '9-fresh-journal.png'), fullPage: true })
      expect(errors).toEqual([])

      // Another tenant, in another tab of this browser: none of tenant a's items.
      const other = await context.newPage()
      await other.goto(`${t.url}/ui#token=${TOKENS.b}`)
      await other.getByRole('heading', { name: 'Runs and workflows' }).waitFor()
      await other.locator('table[aria-label="workflows"]').waitFor()
      expect(await other.getByText('Nothing here yet.').count()).toBe(2)
      expect(await other.locator('a[href^="#/run/"], a[href^="#/workflow/"]').count()).toBe(0)
    } finally {
      await fresh.close()
    }
  }, 90_000)
})

describe.skipIf(!haveChromium)('the inspector\'s schedules (GET/POST/DELETE /v1/schedules)', () => {
  test('the list\'s section, a schedule\'s view; pause with a note, trigger (a run link), an error with its code, delete after a confirm step', async () => {
    // Yearly crons and a paused schedule: nothing fires on its own while the test runs (the server's clock is the real one).
    const yearly = { id: 'inspector-nightly', workflow: { source: 'export default { ok: args.n }', name: 'nightly report', tags: ['ops'] }, args: { n: 3 }, spec: { cron: '0 3 1 1 *', timezone: 'Europe/Oslo' }, jitterMs: 60_000 }
    expect((await t.req('POST', '/v1/schedules', { body: yearly })).status).toBe(201)
    expect((await t.req('POST', '/v1/schedules', { body: { id: 'inspector-daily', workflow: { source: 'export default 1' }, spec: { everyMs: 86_400_000 }, paused: true } })).status).toBe(201)
    // Its run waits for an answer: a second fire while it waits is skipped (overlap: skip).
    const waits = { source: 'const ok = await agent("Hold?", { external: true })\nexport default { ok }' }
    expect((await t.req('POST', '/v1/schedules', { body: { id: 'inspector-gone', workflow: waits, spec: { cron: '0 0 1 1 *' } } })).status).toBe(201)
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(String(e)))
    // The 404 of the schedule deleted behind the page's back logs "Failed to load resource"; anything else is a bug.
    page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text()) })

    await page.goto(`${t.url}/ui#token=${TOKENS.a}`)
    const row = page.locator('table[aria-label="schedules"] tbody tr', { has: page.locator('a[href="#/schedule/inspector-nightly"]') })
    await row.waitFor()
    const cells = await row.locator('td').allTextContents()
    expect(cells.slice(0, 4)).toEqual(['inspector-nightly', 'nightly report · #ops', 'cron 0 3 1 1 * (Europe/Oslo)', 'active'])
    expect(cells[4]).toMatch(/^\d{4}-01-01 02:00:00( \+\d+ s jitter)?$/) // 03:00 in Oslo is 02:00 UTC in winter
    expect(cells.slice(5)).toEqual(['none yet', '0 started, 0 skipped'])
    const daily = await page.locator('table[aria-label="schedules"] tbody tr', { has: page.locator('a[href="#/schedule/inspector-daily"]') }).locator('td').allTextContents()
    expect(daily.slice(2, 5)).toEqual(['every 86400000 ms (1 d)', 'paused', '—'])
    // The kind filter lists schedules alone, and by their state (on the page).
    await page.locator('#f-kind').selectOption('schedule')
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="runs"], table[aria-label="workflows"]').length === 0)
    await page.locator('#f-state').selectOption('paused')
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="schedules"] tbody tr').length === 1)
    expect(await page.locator('table[aria-label="schedules"] a').allTextContents()).toEqual(['inspector-daily'])
    await page.locator('#f-state').selectOption('')
    await page.locator('#f-kind').selectOption('')
    await row.waitFor()
    await page.screenshot({ path: join(shots, '10-schedules-list.png'), fullPage: true })

    // The schedule's view, by keyboard from the list.
    await page.locator('a[href="#/schedule/inspector-nightly"]').focus()
    await page.keyboard.press('Enter')
    await page.locator('#sched-state').waitFor()
    expect(await page.locator('#sched-state').textContent()).toBe('active')
    expect(await page.locator('#sched-spec').textContent()).toBe('cron 0 3 1 1 * (Europe/Oslo)')
    expect(await page.locator('#sched-next li').count()).toBe(5)
    const facts = await page.locator('#sched-body dl').textContent()
    for (const fact of ['Overlap policyskip', 'Catch-up window60000 ms (1 min)', 'Jitter60000 ms (1 min)', 'Last runnone']) expect(facts).toContain(fact)
    expect(await page.getByText('No fire yet.').count()).toBe(1)

    // Pause with a note: the state says paused, no next fire times; the API agrees.
    await page.locator('#sched-note').fill('maintenance window')
    await page.locator('#sched-toggle').click()
    await page.locator('#sched-state.state-paused').waitFor()
    expect(await page.locator('#sched-status').textContent()).toBe('Paused: no fires until it is unpaused.')
    expect(await page.locator('#sched-note-shown').textContent()).toBe('maintenance window')
    expect(await page.locator('#sched-next').textContent()).toBe('None while it is paused.')
    expect(await page.locator('#sched-toggle').textContent()).toBe('Unpause')
    expect((await t.req('GET', '/v1/schedules/inspector-nightly')).json).toMatchObject({ paused: true, note: 'maintenance window' })

    // Trigger now (paused or not): the action links to the workflow run it started, which finishes.
    await page.locator('#sched-trigger').click()
    const runLink = page.locator('#sched-actions a[href^="#/workflow/"]')
    await runLink.waitFor()
    const [action] = (await t.req('GET', '/v1/schedules/inspector-nightly')).json.actions
    expect(action).toMatchObject({ via: 'trigger', outcome: 'started' })
    expect(await runLink.textContent()).toBe(action.runId)
    expect(await page.locator('#sched-status').textContent()).toBe(`Triggered: started ${action.runId}.`)
    expect(await page.locator('#sched-actions tbody tr td').allTextContents()).toContain('trigger')
    expect(await page.locator('#sched-body dl a').textContent()).toBe(action.runId) // Last run
    await page.screenshot({ path: join(shots, '11-schedule-view.png'), fullPage: true })
    // Contrast (WCAG AA) of the view's states, links, buttons and notes.
    for (const sel of ['.state-paused', '.state-started', 'a', 'button', 'label', '.muted', 'dd']) {
      if (await page.locator(sel).count() === 0) continue
      expect({ sel, ok: await lowestContrast(page, sel) >= 4.5 }).toEqual({ sel, ok: true })
    }
    await runLink.click()
    await page.locator('#wf-state.state-done').waitFor({ timeout: 15_000 })
    expect(await page.locator('#wf-result').textContent()).toBe('{"ok":3}')
    await page.goBack()
    await page.locator('#sched-state.state-paused').waitFor()

    // Unpause: active again, with its next fire times.
    await page.locator('#sched-toggle').click()
    await page.locator('#sched-state.state-active').waitFor()
    expect(await page.locator('#sched-next li').count()).toBe(5)
    expect(await page.locator('#sched-status').textContent()).toMatch(/^Unpaused: it fires next at \d{4}-01-01 02:00:00\.$/)

    // Delete asks first; Cancel keeps it (the focus goes back to Delete), the confirm button deletes it.
    await page.locator('#sched-delete').click()
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('sched-delete-confirm')
    await page.locator('#sched-delete-cancel').click()
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('sched-delete')
    expect((await t.req('GET', '/v1/schedules/inspector-nightly')).status).toBe(200)
    await page.keyboard.press('Enter') // Delete, by keyboard
    await page.keyboard.press('Enter') // its confirm step has the focus
    await page.getByText('Deleted schedule inspector-nightly. The runs it started go on.').waitFor()
    expect((await t.req('GET', '/v1/schedules/inspector-nightly')).status).toBe(404)
    await page.getByRole('link', { name: '← all runs and workflows' }).click()
    await page.locator('a[href="#/schedule/inspector-daily"]').waitFor()
    expect(await page.locator('a[href="#/schedule/inspector-nightly"]').count()).toBe(0)

    // Skipped fires by reason: the second trigger finds the first one's run still waiting.
    await page.locator('a[href="#/schedule/inspector-gone"]').click()
    await page.locator('#sched-state').waitFor()
    await page.locator('#sched-trigger').click()
    await page.locator('#sched-actions a[href^="#/workflow/"]').waitFor()
    await page.locator('#sched-trigger').click()
    await page.locator('#sched-skipped').waitFor()
    expect(await page.locator('#sched-skipped tbody tr td').allTextContents()).toEqual(['overlap', '1'])
    expect(await page.locator('#sched-status').textContent()).toMatch(/^Triggered: skipped \(overlap: the run it started last \(wf_\w+\) is still going \(overlap: skip\)\)\.$/)
    expect(await page.locator('#sched-actions tbody tr td:nth-child(4)').allTextContents()).toEqual(['skipped', 'started'])
    expect(await page.getByRole('heading', { name: 'Fires: 1 started, 1 skipped' }).count()).toBe(1)

    // A schedule deleted behind the page's back: the call's error, code and message, in the status.
    expect((await t.req('DELETE', '/v1/schedules/inspector-gone')).status).toBe(204)
    await page.locator('#sched-trigger').click()
    await page.locator('#sched-status.err').waitFor()
    expect(await page.locator('#sched-status').textContent()).toBe('Trigger failed: NOT_FOUND: No schedule "inspector-gone" for this tenant')
    expect(await page.locator('#sched-status').getAttribute('aria-live')).toBe('polite')
    expect(await page.locator('#sched-trigger').isDisabled()).toBe(false)

    expect(errors).toEqual([])
    await page.close()
    expect((await t.req('DELETE', '/v1/schedules/inspector-daily')).status).toBe(204)
  }, 90_000)
})

describe.skipIf(!haveChromium)('ajsc inspect: a CLI trace and a workflow run directory, on 127.0.0.1', () => {
  test('the list, a failed run with its code frame, the workflow journal', async () => {
    const prog = join(work, 'boom.ajs')
    writeFileSync(prog, 'function boom({ n }) {\n  let x = n * 2\n  if (x > 10) throw new Error("too big")\n  return { x }\n}')
    const r = ajsc(['run', prog, '--trace', '--json', '--args', '{"n": 9}'])
    writeFileSync(join(work, 'trace.json'), r.stdout)
    const wf = join(work, 'wf.js')
    writeFileSync(wf, 'phase("one")\nlog("hello")\nexport default { ok: 1 }\n')
    expect(ajsc(['workflow', 'run', wf, '--runs-dir', join(work, 'runs')], { cwd: work }).code).toBe(0)

    const data = loadInspectData([join(work, 'trace.json'), join(work, 'runs')], work, prog)
    expect(data.items.map((i) => `${i.kind} ${i.state}`).sort()).toEqual(['run failed', 'workflow done'])
    const { server, url } = await serveInspector(data)
    try {
      expect(url).toStartWith('http://127.0.0.1:')
      const page = await browser.newPage()
      await page.goto(url)
      await page.getByRole('heading', { name: 'Runs and workflows' }).waitFor()
      expect(await page.locator('tbody tr').count()).toBe(2)
      // Local files have no schedules: no section, no kind to filter by.
      expect(await page.getByRole('heading', { name: 'Schedules' }).count()).toBe(0)
      expect(await page.locator('#f-kind option').allTextContents()).toEqual(['all', 'runs', 'workflows'])
      await page.screenshot({ path: join(shots, '5-inspect-list.png'), fullPage: true })
      await page.getByRole('link', { name: 'trace' }).click()
      const alert = page.getByRole('alert')
      await alert.waitFor()
      expect(await alert.textContent()).toContain('THROWN')
      expect(await page.locator('pre[aria-label="code frame"]').textContent()).toContain('> 3 |   if (x > 10) throw new Error("too big")')
      expect(await page.locator('#timeline tbody tr').count()).toBeGreaterThan(0)
      // With --source, each step shows its line of code (the op alone says varsLet for most of them).
      expect(await page.locator('#timeline thead th').allTextContents()).toContain('Code')
      const code = await page.locator('#timeline tbody tr td:nth-child(4)').allTextContents()
      expect(code).toContain('let x = n * 2')
      expect(code).toContain('if (x > 10) throw new Error("too big")')
      await page.screenshot({ path: join(shots, '6-inspect-run.png'), fullPage: true })
      await page.goto(`${url}#/`)
      await page.locator('a[href^="#/workflow/"]').click()
      await page.locator('#journal').waitFor()
      const entries = await page.locator('#journal tbody tr td:nth-child(2)').allTextContents()
      expect(entries).toEqual(['start', 'call · phase one', 'call · log', 'end'])
      await page.screenshot({ path: join(shots, '7-inspect-workflow.png'), fullPage: true })
      await page.close()
    } finally {
      server.closeAllConnections()
      server.close()
    }
  }, 90_000)
})
