/**
 * The inspector's schedules (server mode only: `ajsc inspect` has none), kept
 * apart from assets.ts but part of the same script and stylesheet (assets.ts
 * interpolates them), so the page still loads only /ui/app.js and
 * /ui/app.css under the same CSP. The code uses assets.ts's helpers (h, api,
 * show, when, short, stateCell, filters, cursors, PAGE_SIZE).
 *
 * - `scheduleSection()`: the list page's "Schedules" section (GET /v1/schedules, paged): each
 *   schedule's next fire (with its jitter) and last action (outcome, run or skip code), and
 *   "outside limits" by the state of an active one the tenant's limits no longer allow.
 * - `scheduleView(id)`, `#/schedule/<id>`: why its spec is outside the limits (if it is), spec, policies, next fire times,
 *   skipped fires by reason, recent actions with links to the runs they
 *   started, and Pause/Unpause (with a note), Trigger now and Delete (with a
 *   confirm step), each answering in an aria-live status (a refusal's hint
 *   below it), and the edit form (schedule-edit-assets.ts). Pause/Unpause
 *   name the version shown (If-Match: its conflictToken), as the form's PATCH
 *   does: when someone else changed the schedule since, the server refuses
 *   (SCHEDULE_CONFLICT) and the page offers to reload it.
 */

import { SCHEDULE_EDIT_CSS, SCHEDULE_EDIT_JS } from './schedule-edit-assets.ts'

export const SCHEDULES_CSS = `
.state-active { color: var(--ok); font-weight: 600; }
.state-paused { color: var(--bad); font-weight: 600; }
.state-started { color: var(--ok); } .state-skipped, .state-buffered { color: var(--muted); }
.confirm { display: inline-flex; gap: .6rem; align-items: center; }
.outside-limits { color: var(--bad); font-weight: 600; }
.outside-panel { border-left: 4px solid var(--bad); padding: .2rem .6rem; margin: .4rem 0; }
.outside-panel p { margin: .2rem 0; }
${SCHEDULE_EDIT_CSS}`

export const SCHEDULES_JS = String.raw`${SCHEDULE_EDIT_JS}
// ---- schedules (server mode) ----------------------------------------------
const SCHEDULE_STATES = ['active', 'paused']
/** An ISO time of the API (schedules answer ISO texts, runs and workflows ms). */
function whenIso(t) { return typeof t === 'string' ? when(Date.parse(t)) : when(t) }
function scheduleState(s) { return s.paused ? 'paused' : 'active' }
function specText(spec) {
  if (!spec) return '—'
  if (spec.cron !== undefined) return 'cron ' + spec.cron + ' (' + (spec.timezone || 'UTC') + ')'
  return 'every ' + spec.everyMs + ' ms' + duration(spec.everyMs, ' (', ')')
}
/** A number of ms in the largest whole unit, for reading ("" when it is not whole in any). */
function duration(ms, before, after) {
  for (const [n, unit] of [[86400000, 'd'], [3600000, 'h'], [60000, 'min'], [1000, 's']]) if (ms >= n && ms % n === 0) return before + ms / n + ' ' + unit + after
  return ''
}
function workflowLabel(s) {
  const w = s.workflow || {}
  return [w.name, (w.tags || []).map((t) => '#' + t).join(' ')].filter(Boolean).join(' · ') || '—'
}
const runLink = (id) => h('a', { href: '#/workflow/' + encodeURIComponent(id) }, id)
function skippedText(counts) {
  const skipped = Object.values((counts && counts.skipped) || {}).reduce((a, b) => a + b, 0)
  return ((counts && counts.started) || 0) + ' started, ' + skipped + ' skipped'
}

/** Active or paused; an active one whose spec the tenant's limits no longer allow says so (the server's why on hover). */
function scheduleStateCell(s) {
  const cell = stateCell(scheduleState(s))
  if (s.outsideLimits) cell.append(' ', h('span', { class: 'outside-limits', title: s.outsideLimits.message }, '⚠ outside limits'))
  return cell
}
/** The schedule page's account of outsideLimits: the server's message and hint (what to change). */
function outsideLimitsPanel(o) {
  return h('div', { id: 'sched-outside-limits', class: 'outside-panel', role: 'note' },
    h('p', {}, h('strong', {}, h('code', {}, o.code)), ': ', h('span', { id: 'sched-outside-message' }, o.message)),
    h('p', { class: 'muted', id: 'sched-outside-hint' }, o.hint))
}

/** The next nominal fire time, and how much later its jitter has it fire. */
function nextFireCell(s) {
  const nominal = (s.nextFireTimes || [])[0]
  const late = nominal && s.nextFireAt ? Date.parse(s.nextFireAt) - Date.parse(nominal) : 0
  return h('td', {}, whenIso(nominal), late > 0 ? h('span', { class: 'muted' }, ' +' + Math.ceil(late / 1000) + ' s jitter') : null)
}
/** What a schedule did last: its outcome and time, the run it started or the code it was skipped with (its message on hover). */
function lastActionCell(a) {
  if (!a) return h('td', { class: 'muted' }, 'none yet')
  return h('td', { title: a.message || null },
    h('span', { class: 'state-' + a.outcome }, a.outcome), ' ' + whenIso(a.at) + ' (' + a.via + ')',
    a.runId ? [' · ', runLink(a.runId)] : null, a.reason ? [' · ', h('code', {}, a.reason)] : null)
}

/** The list page's section: a page of GET /v1/schedules (by id), filtered on the page by state and search. */
async function scheduleSection(rerender) {
  const stack = cursors.schedule
  const n = stack.length - 1
  let page
  try {
    page = await api('GET', '/v1/schedules?' + new URLSearchParams({ limit: String(PAGE_SIZE), ...(stack[n] ? { cursor: stack[n] } : {}) }))
  } catch (e) {
    if (e.status === 401) throw e
    return h('section', { 'aria-label': 'Schedules' }, h('h3', {}, 'Schedules'), h('p', { class: 'muted', id: 'sch-error' }, String(e.message || e)))
  }
  const rows = page.items.filter((s) => (!filters.state || scheduleState(s) === filters.state) && matches({ id: s.id, label: workflowLabel(s) }))
  const table = h('table', { 'aria-label': 'schedules', id: 'schedules' },
    h('thead', {}, h('tr', {}, ['Id', 'Workflow', 'Spec', 'State', 'Next fire (UTC)', 'Last action (UTC)', 'Fires'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.length === 0 ? h('tr', {}, h('td', { colspan: 7, class: 'muted' }, 'No schedules.')) : rows.map((s) =>
      h('tr', {}, h('td', {}, h('a', { href: '#/schedule/' + encodeURIComponent(s.id) }, s.id)), h('td', {}, workflowLabel(s)), h('td', {}, specText(s.spec)),
        scheduleStateCell(s), nextFireCell(s), lastActionCell(s.lastAction), h('td', {}, skippedText(s.counts))))))
  const pager = h('nav', { class: 'pager', 'aria-label': 'schedules pages' },
    h('button', { class: 'secondary', id: 'sch-prev', disabled: n === 0, onclick: () => { stack.pop(); rerender() } }, 'Previous'),
    h('span', { id: 'sch-page' }, 'Page ' + (n + 1) + (page.nextCursor ? '' : ' (last)')),
    h('button', { class: 'secondary', id: 'sch-next', disabled: !page.nextCursor, onclick: () => { stack.push(page.nextCursor); rerender() } }, 'Next'))
  return h('section', { 'aria-label': 'Schedules' },
    h('h3', {}, 'Schedules', filters.state ? ' (' + filters.state + ')' : ''),
    h('p', { class: 'muted' }, 'Workflows started on a cron or every N ms, by id; what each did last and its fires.'),
    filters.state && !SCHEDULE_STATES.includes(filters.state) ? h('p', { class: 'muted' }, 'Schedules have no state “' + filters.state + '”.') : table, pager)
}

// ---- one schedule -------------------------------------------------------------
function scheduleBody(s) {
  const state = scheduleState(s)
  const skipped = Object.entries((s.counts && s.counts.skipped) || {})
  const actions = s.actions || []
  const next = s.nextFireTimes || []
  return [
    s.outsideLimits ? outsideLimitsPanel(s.outsideLimits) : null,
    h('dl', {},
      h('dt', {}, 'State'), h('dd', { class: 'state-' + state, id: 'sched-state' }, state),
      s.note !== undefined ? [h('dt', {}, 'Note'), h('dd', { id: 'sched-note-shown' }, s.note)] : null,
      h('dt', {}, 'Workflow'), h('dd', {}, workflowLabel(s)),
      h('dt', {}, 'Spec'), h('dd', { id: 'sched-spec' }, specText(s.spec)),
      h('dt', {}, 'Overlap policy'), h('dd', {}, s.overlap),
      h('dt', {}, 'Catch-up window'), h('dd', {}, s.catchupWindowMs + ' ms' + duration(s.catchupWindowMs, ' (', ')')),
      h('dt', {}, 'Jitter'), h('dd', {}, s.jitterMs ? s.jitterMs + ' ms' + duration(s.jitterMs, ' (', ')') : 'none'),
      h('dt', {}, 'Last run'), h('dd', {}, s.lastRunId ? runLink(s.lastRunId) : 'none'),
      s.buffered ? [h('dt', {}, 'Buffered fire'), h('dd', {}, whenIso(s.buffered.nominalAt) + ' (' + s.buffered.via + ')')] : null,
      h('dt', {}, 'Created, updated'), h('dd', {}, whenIso(s.createdAt) + ', ' + whenIso(s.updatedAt)),
      h('dt', {}, 'Revision'), h('dd', { id: 'sched-revision' }, String(s.revision || 0) + (s.revisedAt ? ' (changed ' + whenIso(s.revisedAt) + ')' : ' (as created)'))),
    s.workflow && s.workflow.source ? h('details', {}, h('summary', {}, 'Workflow source and args'), h('pre', {}, s.workflow.source), h('pre', {}, JSON.stringify(s.args || {}, null, 2))) : null,
    h('h3', {}, 'Next fire times (UTC)'),
    next.length ? h('ol', { id: 'sched-next' }, next.map((t) => h('li', {}, whenIso(t)))) : h('p', { class: 'muted', id: 'sched-next' }, s.paused ? 'None while it is paused.' : 'None: the spec fires no more.'),
    h('h3', {}, 'Fires: ' + skippedText(s.counts)),
    skipped.length === 0 ? h('p', { class: 'muted' }, 'No fire was skipped.') : h('table', { 'aria-label': 'skipped fires by reason', id: 'sched-skipped' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Reason'), h('th', { scope: 'col', class: 'num' }, 'Skipped'))),
      h('tbody', {}, skipped.map(([reason, k]) => h('tr', {}, h('td', {}, reason), h('td', { class: 'num' }, k))))),
    h('h3', {}, 'Recent actions (' + actions.length + ', newest first)'),
    actions.length === 0 ? h('p', { class: 'muted' }, 'No fire yet.') : h('table', { 'aria-label': 'recent actions', id: 'sched-actions' },
      h('thead', {}, h('tr', {}, ['At (UTC)', 'Nominal time', 'Via', 'Outcome', 'Run', 'Reason / message'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, actions.map((a) => h('tr', {}, h('td', {}, whenIso(a.at)), h('td', {}, whenIso(a.nominalAt)), h('td', {}, a.via), stateCell(a.outcome),
        h('td', {}, a.runId ? runLink(a.runId) : ''), h('td', {}, [a.reason, a.message].filter(Boolean).join(': '))))))]
}
/** What the newest action of a trigger did, for the status line. */
function actionText(a) {
  if (!a) return 'nothing'
  return a.outcome + (a.runId ? ' ' + a.runId : '') + (a.reason ? ' (' + a.reason + (a.message ? ': ' + a.message : '') + ')' : '')
}
async function scheduleView(id) {
  if (local) return show(h('h2', {}, 'Schedule ' + id), h('p', { role: 'alert' }, 'Schedules live on ajsc serve; this inspector shows local files.'))
  const seq = navSeq
  const path = '/v1/schedules/' + encodeURIComponent(id)
  let s = await api('GET', path)
  if (stale(seq)) return
  const body = h('div', { id: 'sched-body' }, scheduleBody(s))
  const status = h('p', { role: 'status', 'aria-live': 'polite', id: 'sched-status' })
  const hint = h('p', { class: 'muted', id: 'sched-hint', hidden: true })
  // A pause or unpause refused because someone else changed the schedule since this page read it: the way on is the schedule as it is now.
  const reload = h('button', { type: 'button', id: 'sched-reload', class: 'secondary' }, 'Reload schedule')
  const conflict = h('p', { id: 'sched-conflict', hidden: true }, reload, h('span', { class: 'muted' }, ' shows it as it is now; then pause or unpause it again if you still want to.'))
  const note = h('input', { id: 'sched-note', name: 'note', maxlength: 1000 })
  const toggle = h('button', { type: 'button', id: 'sched-toggle' }, s.paused ? 'Unpause' : 'Pause')
  const buttons = []
  let editor
  /** Show the schedule an answer holds. */
  const refresh = (answer) => {
    s = answer
    body.replaceChildren(...scheduleBody(s).filter(Boolean))
    toggle.textContent = s.paused ? 'Unpause' : 'Pause'
    if (editor) editor.sawOwnChange(answer)
  }
  /** Call the API; show the schedule it answers (the status says what happened), or its error. */
  const act = async (what, method, suffix, payload, said, headers) => {
    for (const b of buttons) b.disabled = true
    status.className = ''
    status.textContent = what + '…'
    hint.hidden = true
    conflict.hidden = true
    try {
      const answer = await api(method, path + suffix, payload, headers)
      if (answer) refresh(answer)
      status.textContent = said(answer)
    } catch (e) {
      status.className = 'err'
      const conflicted = e.error && e.error.code === 'SCHEDULE_CONFLICT'
      status.textContent = what + ' failed: ' + (conflicted ? 'someone else changed this schedule since this page read it; nothing was changed. ' : '') + String(e.message || e)
      // What to do about it, in the server's words (an unpause the tenant's limits refuse says which spec passes); a conflict's, on this page: reload.
      hint.textContent = conflicted ? '' : (e.error && e.error.hint) || ''
      hint.hidden = !hint.textContent
      conflict.hidden = !conflicted
      if (conflicted) reload.focus()
    } finally { for (const b of buttons) b.disabled = false }
  }
  toggle.addEventListener('click', () => {
    const pausing = !s.paused
    const text = note.value.trim()
    // The version this page shows (If-Match, as the edit form's PATCH): a pause or unpause from a stale page is refused, not applied to a schedule it has not seen.
    act(pausing ? 'Pause' : 'Unpause', 'POST', pausing ? '/pause' : '/unpause', text ? { note: text } : {},
      () => pausing ? 'Paused: no fires until it is unpaused.' : 'Unpaused: it fires next at ' + (whenIso((s.nextFireTimes || [])[0])) + '.',
      s.conflictToken ? { 'if-match': '"' + s.conflictToken + '"' } : {})
  })
  reload.addEventListener('click', async () => {
    status.className = ''
    status.textContent = 'Reloading…'
    try {
      // As its own change (refresh): the edit form keeps what is typed, and its PATCH is refused in turn if the spec changed.
      refresh(await api('GET', path))
      conflict.hidden = true
      status.textContent = 'Reloaded: it is ' + scheduleState(s) + ' (revision ' + (s.revision || 0) + ')' + (s.note !== undefined ? ', note: ' + s.note : '') + '.'
      toggle.focus()
    } catch (e) {
      status.className = 'err'
      status.textContent = 'Reload failed: ' + String(e.message || e)
    }
  })
  const trigger = h('button', { type: 'button', id: 'sched-trigger', class: 'secondary', onclick: () => act('Trigger', 'POST', '/trigger', {}, (a) => 'Triggered: ' + actionText(a.actions && a.actions[0]) + '.') }, 'Trigger now')
  // Delete asks first: the confirm step replaces the button, and takes the focus.
  const confirmBox = h('span', { class: 'confirm' })
  const del = h('button', { type: 'button', id: 'sched-delete', class: 'secondary', onclick: () => {
    const yes = h('button', { type: 'button', id: 'sched-delete-confirm', onclick: async () => {
      try {
        await api('DELETE', path)
        if (stale(seq)) return
        show(h('p', {}, h('a', { href: '#/' }, '← all runs and workflows')), h('h2', {}, 'Schedule ', h('code', {}, id)),
          h('p', { role: 'status', id: 'sched-status' }, 'Deleted schedule ' + id + '. The runs it started go on.'))
      } catch (e) {
        confirmBox.replaceChildren()
        del.hidden = false
        status.className = 'err'
        status.textContent = 'Delete failed: ' + String(e.message || e)
        del.focus()
      }
    } }, 'Delete ' + id)
    const no = h('button', { type: 'button', id: 'sched-delete-cancel', class: 'secondary', onclick: () => { confirmBox.replaceChildren(); del.hidden = false; del.focus() } }, 'Cancel')
    del.hidden = true
    confirmBox.replaceChildren(h('span', {}, 'Delete this schedule? The runs it started go on.'), yes, no)
    yes.focus()
  } }, 'Delete…')
  buttons.push(toggle, trigger, del)
  show(
    h('p', {}, h('a', { href: '#/' }, '← all runs and workflows')),
    h('h2', {}, 'Schedule ', h('code', {}, id)),
    // The controls come first: the recent actions below can be a long table.
    h('section', { 'aria-label': 'schedule actions', class: 'panel' },
      h('div', { class: 'filters' }, h('label', {}, 'Note for pause or unpause (optional)', note), toggle, trigger, del, confirmBox), status, hint, conflict),
    editor = scheduleEditor(s, path, refresh),
    body)
}
`
