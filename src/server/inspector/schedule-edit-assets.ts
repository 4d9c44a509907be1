/**
 * The schedule page's edit form (`#/schedule/<id>`, "Edit schedule"): its
 * spec (a cron and its time zone, or every N ms), overlap policy, catch-up
 * window, jitter and the workflow's args, sent as PATCH /v1/schedules/{id}
 * with only the fields that changed. A refusal is shown by the form: the
 * server's code, message and hint, and the field it names marked invalid
 * and focused; the values typed stay. A saved change shows the schedule's
 * new revision. The PATCH names the version the form was built from
 * (If-Match: its conflictToken): when someone else changed the schedule
 * since, the server refuses it (SCHEDULE_CONFLICT) and the form says so,
 * with a button that reloads the schedule and builds the form again from
 * it. Part of the same app.js as schedules-assets.ts (which appends it),
 * using its helpers (h, api, whenIso, specText).
 */

export const SCHEDULE_EDIT_CSS = `
.edit-spec { border: 1px solid var(--line); border-radius: 4px; display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; }
.edit-spec legend { font-size: .85rem; color: var(--muted); }
.radio { flex-direction: row; align-items: center; color: var(--fg); }
.edit-spec input:disabled { background: var(--panel); color: var(--muted); }
[aria-invalid="true"] { border: 2px solid var(--bad); }
.edit-error { border-left: 4px solid var(--bad); padding: .2rem .6rem; margin: .4rem 0; flex-basis: 100%; }
.edit-error p { margin: .2rem 0; }
`

export const SCHEDULE_EDIT_JS = String.raw`
// ---- editing a schedule (PATCH) ---------------------------------------------------
/** The form's fields by the request field each sets: a refusal whose message names one marks that field. */
const EDIT_FIELDS = [['spec.cron', 'sched-edit-cron'], ['spec.timezone', 'sched-edit-timezone'], ['spec.everyMs', 'sched-edit-every'],
  ['overlap', 'sched-edit-overlap'], ['catchupWindowMs', 'sched-edit-catchup'], ['jitterMs', 'sched-edit-jitter'], ['args', 'sched-edit-args']]
/** The id of the field a refusal is about: the one its message names (schema errors say body/jitterMs), else the spec's by its code. */
function editFieldOf(error, kind) {
  const text = String((error && error.message) || '')
  for (const [name, id] of EDIT_FIELDS) if (text.includes(name) || text.includes('body/' + name.replace('.', '/'))) return id
  const code = String((error && error.code) || '')
  if (code === 'SCHEDULE_TIMEZONE') return 'sched-edit-timezone'
  if (code.startsWith('SCHEDULE_')) return kind === 'cron' ? 'sched-edit-cron' : 'sched-edit-every'
  return undefined
}
/** IANA zones this browser knows, for the time zone field's suggestions (the server decides). */
function timeZones() {
  try { return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')] } catch { return ['UTC'] }
}
const sameSpecOf = (a, b) => a.cron !== undefined ? b.cron === a.cron && (b.timezone || 'UTC') === (a.timezone || 'UTC') : b.everyMs === a.everyMs

/**
 * The "Edit schedule" box (closed at first) for schedule s at PATCH path: a form built from the schedule, built again
 * from the schedule each saved change answers (onSaved(answer) updates the rest of the page). Its status and refusal
 * lines stay in place across a rebuild, so a screen reader hears them.
 */
function scheduleEditor(s, path, onSaved) {
  const error = h('div', { id: 'sched-edit-error', class: 'edit-error', role: 'alert', hidden: true })
  const status = h('p', { id: 'sched-edit-status', role: 'status', 'aria-live': 'polite' })
  const summary = h('summary', {})
  const slot = h('div', {})
  // The version the PATCH names: the form's schedule, or a newer one this page made itself (pause, unpause).
  let version = s.conflictToken
  let revision = s.revision || 0
  const build = (s) => {
    version = s.conflictToken
    revision = s.revision || 0
    summary.textContent = 'Edit schedule (revision ' + (s.revision || 0) + ')'
    slot.replaceChildren(scheduleEditForm(s, path, error, status, () => version, (answer, said) => {
      onSaved(answer)
      build(answer)
      status.textContent = said
      document.getElementById('sched-edit-save').focus()
    }, reload))
  }
  /** The schedule as it is now, for the form and the page: what was typed is dropped (it was made against an older one). */
  async function reload() {
    status.textContent = 'Reloading…'
    try {
      const fresh = await api('GET', path)
      onSaved(fresh)
      build(fresh)
      error.hidden = true
      error.replaceChildren()
      status.textContent = 'Reloaded: revision ' + (fresh.revision || 0) + (fresh.paused ? ', paused' : '') + '. Make your change again.'
      document.getElementById('sched-edit-cron').disabled ? document.getElementById('sched-edit-every').focus() : document.getElementById('sched-edit-cron').focus()
    } catch (e) { status.textContent = 'Reload failed: ' + String(e.message || e) }
  }
  build(s)
  const box = h('details', { id: 'sched-edit-box', class: 'panel' }, summary,
    h('p', { class: 'muted', id: 'sched-edit-note' }, 'Sends the fields you change (PATCH /v1/schedules/' + s.id + '), refused when someone else changed the schedule since this page read it. A new spec fires next at its first time after now; runs already started go on.'),
    slot, error, status)
  /**
   * A change this page made (pause, unpause: fields the form does not hold) is no one else's: the form keeps what is typed
   * and names the new version. Unless the answer shows a PATCH the form has not seen (its revision moved): then the form's
   * version stays, and saving it is refused.
   */
  box.sawOwnChange = (answer) => { if (answer && answer.conflictToken && (answer.revision || 0) === revision) version = answer.conflictToken }
  return box
}

/** The form itself (see scheduleEditor): saved(answer, said) gets the schedule the server answers and what to say. */
function scheduleEditForm(s, path, error, status, version, saved, reload) {
  const spec = s.spec || {}
  const kind = spec.cron !== undefined ? 'cron' : 'every'
  const field = (id, attrs) => h('input', { id, name: id, ...attrs })
  const kindCron = field('sched-edit-kind-cron', { type: 'radio', name: 'spec-kind', value: 'cron', checked: kind === 'cron' })
  const kindEvery = field('sched-edit-kind-every', { type: 'radio', name: 'spec-kind', value: 'every', checked: kind === 'every' })
  const cron = field('sched-edit-cron', { value: spec.cron || '', maxlength: 200, spellcheck: 'false', autocomplete: 'off' })
  const zone = field('sched-edit-timezone', { value: spec.timezone || '', placeholder: 'UTC', list: 'sched-zones', maxlength: 64, autocomplete: 'off' })
  const every = field('sched-edit-every', { type: 'number', min: 1, step: 1, value: spec.everyMs === undefined ? '' : spec.everyMs })
  const overlap = h('select', { id: 'sched-edit-overlap', name: 'overlap' }, ['skip', 'bufferOne', 'allowAll'].map((o) => h('option', { value: o, selected: s.overlap === o }, o)))
  const catchup = field('sched-edit-catchup', { type: 'number', step: 1, value: s.catchupWindowMs })
  const jitter = field('sched-edit-jitter', { type: 'number', step: 1, value: s.jitterMs })
  const args = h('textarea', { id: 'sched-edit-args', name: 'args', spellcheck: 'false' }, JSON.stringify(s.args || {}, null, 2))
  const fields = [cron, zone, every, overlap, catchup, jitter, args]
  const save = h('button', { type: 'submit', id: 'sched-edit-save' }, 'Save changes')
  const kindNow = () => (kindEvery.checked ? 'every' : 'cron')
  const showKind = () => { cron.disabled = zone.disabled = kindNow() !== 'cron'; every.disabled = kindNow() !== 'every' }
  kindCron.addEventListener('change', showKind)
  kindEvery.addEventListener('change', showKind)
  showKind()

  const clear = () => {
    for (const f of fields) { f.removeAttribute('aria-invalid'); f.removeAttribute('aria-describedby') }
    error.hidden = true
    error.replaceChildren()
  }
  /** Show a refusal (the server's { code, message, hint }, or the form's own) by the field it is about. */
  const refuse = (e, id) => {
    error.replaceChildren(
      h('p', {}, e.code ? [h('strong', {}, h('code', { id: 'sched-edit-code' }, e.code)), ': '] : null, h('span', { id: 'sched-edit-message' }, e.message)),
      e.hint ? h('p', { id: 'sched-edit-hint', class: 'muted' }, e.hint) : null)
    error.hidden = false
    const el = id && document.getElementById(id)
    if (el) {
      el.setAttribute('aria-invalid', 'true')
      el.setAttribute('aria-describedby', 'sched-edit-error')
      el.focus()
    }
  }
  /** Of a number field: its number, or a refusal of the form's own (an empty field is not sent as 0). */
  const numberOf = (el, label) => {
    const n = Number(el.value)
    if (el.value.trim() === '' || !Number.isFinite(n)) throw { field: el.id, message: label + ' must be a number of milliseconds.' }
    return n
  }
  /** The fields that changed, as PATCH takes them. */
  const change = () => {
    const out = {}
    const next = kindNow() === 'cron' ? { cron: cron.value.trim(), ...(zone.value.trim() ? { timezone: zone.value.trim() } : {}) } : { everyMs: numberOf(every, 'Every') }
    if (!sameSpecOf(next, spec)) out.spec = next
    if (overlap.value !== s.overlap) out.overlap = overlap.value
    const c = numberOf(catchup, 'Catch-up window')
    if (c !== s.catchupWindowMs) out.catchupWindowMs = c
    const j = numberOf(jitter, 'Jitter')
    if (j !== s.jitterMs) out.jitterMs = j
    let a
    try { a = JSON.parse(args.value) } catch (e) { throw { field: args.id, message: 'The args are not JSON: ' + e.message } }
    if (JSON.stringify(a) !== JSON.stringify(s.args || {})) out.args = a
    return out
  }
  const form = h('form', { id: 'sched-edit', novalidate: true, 'aria-describedby': 'sched-edit-note' },
    h('fieldset', { class: 'edit-spec' }, h('legend', {}, 'When it fires'),
      h('label', { class: 'radio' }, kindCron, 'cron'), h('label', {}, 'Cron expression (5 or 6 fields)', cron),
      h('label', {}, 'Time zone (IANA; empty: UTC)', zone), h('datalist', { id: 'sched-zones' }, timeZones().map((z) => h('option', { value: z }))),
      h('label', { class: 'radio' }, kindEvery, 'every'), h('label', {}, 'Every (ms)', every)),
    h('label', {}, 'Overlap policy', overlap), h('label', {}, 'Catch-up window (ms)', catchup), h('label', {}, 'Jitter (ms)', jitter),
    h('label', {}, 'Workflow args (JSON)', args), save)
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault()
    clear()
    status.textContent = ''
    let body
    try { body = change() } catch (e) { return refuse(e, e.field) }
    if (Object.keys(body).length === 0) { status.textContent = 'Nothing changed.'; return }
    save.disabled = true
    status.textContent = 'Saving…'
    try {
      const answer = await api('PATCH', path, body, version() ? { 'if-match': '"' + version() + '"' } : {})
      saved(answer, 'Saved ' + Object.keys(body).join(', ') + ': revision ' + answer.revision + '. ' +
        (answer.paused ? 'It is paused.' : (answer.nextFireTimes || []).length ? 'It fires next at ' + whenIso(answer.nextFireTimes[0]) + '.' : 'Its spec fires no more.'))
    } catch (e) {
      status.textContent = ''
      if (e.error && e.error.code === 'SCHEDULE_CONFLICT') {
        // Someone else changed it: no field is at fault; the way on is the schedule as it is now.
        refuse({ ...e.error, message: 'Someone else changed this schedule since this page read it; nothing was saved. ' + e.error.message })
        const again = h('button', { type: 'button', id: 'sched-edit-reload', onclick: reload }, 'Reload schedule')
        error.append(h('p', {}, again, h('span', { class: 'muted' }, ' shows it as it is now (the changes typed here are dropped).')))
        again.focus()
      } else refuse(e.error || { message: String(e.message || e) }, editFieldOf(e.error, kindNow()))
    } finally { save.disabled = false }
  })
  return form
}
`
