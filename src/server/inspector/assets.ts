/**
 * The web inspector's static files: one HTML page, its script and its
 * stylesheet, no framework and no build step for the user (the script is
 * plain browser JavaScript). `ajsc serve` serves them at /ui (data through
 * the API, with the tenant's bearer token); `ajsc inspect` serves them on
 * 127.0.0.1 with the data of a CLI run or workflow run directory.
 *
 * Views (hash routes): `#/` the list (runs and workflows, state, filters,
 * paging), `#/run/<id>` a run's trace as a timeline (fuel per step and
 * cumulative, time, errors with their code frames), `#/workflow/<id>` a
 * workflow's state, pending external requests (answerable on a server) and
 * its journal, `#/schedule/<id>` a schedule (server only; schedules-assets.ts).
 */
import { SCHEDULES_CSS, SCHEDULES_JS } from './schedules-assets.ts'

export const INSPECTOR_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="ajs-inspector-mode" content="server">
<title>AJS inspector</title>
<link rel="stylesheet" href="/ui/app.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <h1><a href="#/">AJS inspector</a></h1>
  <span id="mode" aria-live="polite"></span>
</header>
<main id="main" tabindex="-1"><p>Loading…</p></main>
<script type="module" src="/ui/app.js"></script>
</body>
</html>
`

export const INSPECTOR_CSS = `
:root { --fg: #1b1f24; --muted: #4a5360; --bg: #ffffff; --panel: #f4f6f8; --line: #d0d7de; --accent: #0b5cad; --bad: #a4081a; --ok: #116329; --bar: #5b8fd6; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: baseline; gap: 1rem; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); background: var(--panel); }
header h1 { font-size: 1.1rem; margin: 0; }
header a { color: var(--fg); text-decoration: none; }
main { padding: 1rem 1.2rem; max-width: 78rem; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
main:focus { outline: none; }
.skip { position: absolute; left: -999px; } .skip:focus { left: .5rem; top: .5rem; background: var(--bg); padding: .3rem; z-index: 2; }
table { border-collapse: collapse; width: 100%; margin: .6rem 0; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.state-done, .state-ok { color: var(--ok); font-weight: 600; }
.state-failed, .state-error { color: var(--bad); font-weight: 600; }
.state-running, .state-waiting, .state-queued { color: var(--accent); font-weight: 600; }
.bar { display: inline-block; height: .7rem; background: var(--bar); vertical-align: middle; min-width: 1px; }
.err { color: var(--bad); }
pre { background: var(--panel); padding: .6rem; overflow: auto; border: 1px solid var(--line); }
form, .filters { display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; margin: .6rem 0; }
label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); gap: .2rem; }
input, select, textarea, button { font: inherit; color: var(--fg); }
input, select, textarea { border: 1px solid var(--muted); border-radius: 4px; padding: .3rem .4rem; background: var(--bg); }
textarea { min-width: 28rem; min-height: 5rem; font-family: ui-monospace, monospace; }
button { border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 4px; padding: .35rem .8rem; cursor: pointer; }
button.secondary { background: var(--bg); color: var(--accent); }
button:disabled { opacity: .6; cursor: default; }
.panel { border: 1px solid var(--line); border-radius: 6px; padding: .6rem .9rem; margin: .8rem 0; }
.muted { color: var(--muted); }
.pager { display: flex; gap: .6rem; align-items: center; }
${SCHEDULES_CSS}`

export const INSPECTOR_JS = String.raw`
const main = document.getElementById('main')
const modeLabel = document.getElementById('mode')
const PAGE_SIZE = 20

// ---- data sources -------------------------------------------------------
// Local (ajsc inspect): everything comes from /ui/data.json. Server (ajsc serve): the API, with a token.
let local = null
const tokenKey = 'ajs-inspector-token'
const knownKey = 'ajs-inspector-items'
function token() { return sessionStorage.getItem(tokenKey) || '' }
function takeTokenFromFragment() {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash)
  if (m) { sessionStorage.setItem(tokenKey, decodeURIComponent(m[1])); history.replaceState(null, '', location.pathname + '#/') }
}
async function api(method, path, body, headers) {
  const res = await fetch(path, { method, headers: { authorization: 'Bearer ' + token(), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  let data
  try { data = JSON.parse(text) } catch { data = undefined }
  if (!res.ok) {
    const e = new Error((data && data.error && (data.error.code + ': ' + data.error.message)) || (res.status + ' ' + res.statusText))
    e.status = res.status
    e.error = data && data.error // { code, message, hint }: forms show them by the field
    throw e
  }
  return data
}
/** Items this browser session started or opened on a server, for their labels (the lists come from the API): { kind, id, label, at }. */
function known() { try { return JSON.parse(sessionStorage.getItem(knownKey) || '[]') } catch { return [] } }
function remember(item) {
  const had = known()
  const old = had.find((k) => k.kind === item.kind && k.id === item.id)
  const all = had.filter((k) => k !== old)
  all.unshift({ ...old, ...item }) // a later visit updates the state and keeps the label it was started with
  sessionStorage.setItem(knownKey, JSON.stringify(all.slice(0, 500)))
}

/** The source of a run started from this page, for its timeline's code column (the API does not return it). */
const sourceKey = (id) => 'ajs-inspector-source ' + id
function rememberSource(id, source) { try { sessionStorage.setItem(sourceKey(id), source) } catch { /* storage full: no code column */ } }
function rememberedSource(id) { try { return sessionStorage.getItem(sourceKey(id)) ?? undefined } catch { return undefined } }

// ---- small DOM helpers --------------------------------------------------
function h(tag, attrs, ...children) {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v)
    else if (k === 'width') el.style.width = v // CSSOM, which the page's CSP allows (a style attribute it does not)
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) el.append(c instanceof Node ? c : document.createTextNode(String(c)))
  return el
}
/**
 * Navigations, counted: a view reads the count as it starts and shows nothing once a later one has
 * started, so a slow view (the list's fetches) never replaces the one navigated to after it.
 */
let navSeq = 0
function stale(seq) { return seq !== navSeq }
/** Replace the view; the element that had the focus (by id: a filter, an input) keeps it. */
function show(...nodes) {
  const focused = document.activeElement && document.activeElement.id
  main.replaceChildren(...nodes.flat(2).filter((n) => n !== null && n !== undefined && n !== false))
  const again = focused && document.getElementById(focused)
  if (again && again !== main) again.focus()
}
function stateCell(state) { return h('td', { class: 'state-' + String(state || '').toLowerCase() }, state || '—') }
function fmt(n, digits) { return typeof n === 'number' ? (Number.isInteger(n) ? String(n) : n.toFixed(digits === undefined ? 2 : digits)) : '—' }
function when(t) { return typeof t === 'number' ? new Date(t).toISOString().replace('T', ' ').slice(0, 19) : '—' }
function short(v, n) { const s = typeof v === 'string' ? v : JSON.stringify(v); return s === undefined ? '' : s.length > (n || 120) ? s.slice(0, n || 120) + '…' : s }

/** The lines around "file:line:col" of an error, from the run's source when known. */
function codeFrame(source, line, column) {
  if (typeof source !== 'string' || !line) return ''
  const lines = source.split('\n')
  const out = []
  for (let i = Math.max(1, line - 2); i <= Math.min(lines.length, line + 1); i++) {
    out.push((i === line ? '> ' : '  ') + String(i).padStart(4) + ' | ' + lines[i - 1])
    if (i === line && column) out.push('       | ' + ' '.repeat(Math.max(0, column - 1)) + '^')
  }
  return out.join('\n')
}
function errorPanel(error, source) {
  if (!error) return null
  const m = /:(\d+):(\d+)$/.exec(error.location || '')
  const frame = error.frame || (m ? codeFrame(source, Number(m[1]), Number(m[2])) : '')
  return h('div', { class: 'panel err', role: 'alert' },
    h('strong', {}, error.code), ' ', error.message || '',
    error.location ? h('div', {}, 'at ', h('code', {}, error.location)) : null,
    frame ? h('pre', { 'aria-label': 'code frame' }, frame) : null,
    error.hint ? h('div', { class: 'muted' }, 'hint: ' + error.hint) : null)
}

// ---- the list -----------------------------------------------------------
const filters = { kind: '', state: '', q: '', tag: '', page: 0 }
const RUN_STATES = ['queued', 'running', 'done']
const WORKFLOW_STATES = ['running', 'waiting', 'done', 'failed', 'cancelled']
/** Server mode: the cursors of the pages shown so far, per kind (index 0: the first page). */
const cursors = { run: [''], workflow: [''], schedule: [''] }
function resetPages() { cursors.run = ['']; cursors.workflow = ['']; cursors.schedule = [''] }
function matches(i) {
  const q = filters.q.toLowerCase()
  return !q || (i.id + ' ' + (i.label || '')).toLowerCase().includes(q)
}
function listTable(label, rows) {
  return h('table', { 'aria-label': label },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Kind'), h('th', { scope: 'col' }, 'Id'), h('th', { scope: 'col' }, 'State'), h('th', { scope: 'col' }, 'Label'), h('th', { scope: 'col' }, 'Started'))),
    h('tbody', {}, rows.length === 0 ? h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'Nothing here yet.')) : rows.map((i) =>
      h('tr', {}, h('td', {}, i.kind), h('td', {}, h('a', { href: '#/' + i.kind + '/' + encodeURIComponent(i.id) }, i.id)), stateCell(i.state), h('td', {}, i.label || ''), h('td', {}, when(i.at))))))
}
function filterBar(states, rerender) {
  return h('div', { class: 'filters', role: 'search' },
    h('label', {}, 'Kind', h('select', { id: 'f-kind', onchange: (e) => { filters.kind = e.target.value; filters.page = 0; resetPages(); rerender() } },
      h('option', { value: '' }, 'all'), h('option', { value: 'run', selected: filters.kind === 'run' }, 'runs'), h('option', { value: 'workflow', selected: filters.kind === 'workflow' }, 'workflows'),
      local ? null : h('option', { value: 'schedule', selected: filters.kind === 'schedule' }, 'schedules'))),
    h('label', {}, 'State', h('select', { id: 'f-state', onchange: (e) => { filters.state = e.target.value; filters.page = 0; resetPages(); rerender() } },
      h('option', { value: '' }, 'any'), states.map((s) => h('option', { value: s, selected: filters.state === s }, s)))),
    h('label', {}, 'Tag (workflows)', h('input', { id: 'f-tag', type: 'search', value: filters.tag, onchange: (e) => { filters.tag = e.target.value.trim(); filters.page = 0; resetPages(); rerender() } })),
    h('label', {}, 'Search (this page)', h('input', { id: 'f-q', type: 'search', value: filters.q, onchange: (e) => { filters.q = e.target.value; filters.page = 0; rerender() } })))
}
async function listView() {
  if (!local) return serverListView()
  const all = local.items
  const states = [...new Set(all.map((i) => i.state).filter(Boolean))].sort()
  const shown = all.filter((i) => (!filters.kind || i.kind === filters.kind) && (!filters.state || i.state === filters.state) && (!filters.tag || (i.tags || []).includes(filters.tag)) && matches(i))
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE))
  filters.page = Math.min(filters.page, pages - 1)
  const page = shown.slice(filters.page * PAGE_SIZE, (filters.page + 1) * PAGE_SIZE)
  const rerender = () => { listView() }
  const pager = h('nav', { class: 'pager', 'aria-label': 'pages' },
    h('button', { class: 'secondary', id: 'prev', disabled: filters.page === 0, onclick: () => { filters.page--; rerender() } }, 'Previous'),
    h('span', {}, 'Page ' + (filters.page + 1) + ' of ' + pages + ' (' + shown.length + ')'),
    h('button', { class: 'secondary', id: 'next', disabled: filters.page >= pages - 1, onclick: () => { filters.page++; rerender() } }, 'Next'))
  show(h('h2', {}, 'Runs and workflows'), filterBar(states, rerender), listTable('runs and workflows', page), pager)
}

/** A list item from GET /v1/runs or GET /v1/workflows (labels of what this session started, when known). */
function runItem(r, labels) {
  return { kind: 'run', id: r.id, state: r.state === 'done' && r.error ? 'failed' : r.state, at: r.createdAt,
    label: labels.get('run ' + r.id) || (r.error ? r.error : typeof r.fuelUsed === 'number' ? 'fuel ' + fmt(r.fuelUsed) : '') }
}
function workflowItem(w, labels) {
  const parts = [labels.get('workflow ' + w.id) || w.name || w.sourceName]
  if (w.tags) parts.push(w.tags.map((t) => '#' + t).join(' '))
  if (w.requests) parts.push(w.requests + ' waiting')
  if (w.spent !== undefined || w.budget !== null) parts.push('budget ' + (w.spent || 0) + '/' + (w.budget === null ? '∞' : w.budget))
  if (w.parent) parts.push('child of ' + w.parent)
  if (w.error) parts.push(w.error)
  return { kind: 'workflow', id: w.id, state: w.state, at: w.createdAt, label: parts.join(' · '), tags: w.tags || [] }
}
/** Server mode: one section per kind, each a page of the API's list (newest first) with its own pager. */
async function serverListView() {
  const seq = navSeq
  const labels = new Map(known().filter((k) => k.label).map((k) => [k.kind + ' ' + k.id, k.label]))
  const rerender = () => { listView().catch((e) => { if (!stale(seq)) show(h('p', { role: 'alert', class: 'err' }, String(e.message || e))) }) }
  // Runs have no tags: a tag filter lists workflows only (GET /v1/workflows?tag=).
  const kinds = filters.tag ? ['workflow'] : filters.kind === 'schedule' ? [] : filters.kind ? [filters.kind] : ['run', 'workflow']
  const states = filters.kind === 'run' ? RUN_STATES : filters.kind === 'workflow' ? WORKFLOW_STATES : filters.kind === 'schedule' ? SCHEDULE_STATES : [...new Set([...WORKFLOW_STATES, ...RUN_STATES])]
  // Schedules have no tags, and states of their own: they are listed with no filter but the search, or on their own.
  const withSchedules = filters.kind === 'schedule' || (!filters.kind && !filters.tag && !filters.state)
  const [sections, schedules] = await Promise.all([Promise.all(kinds.map(async (kind) => {
    const title = kind === 'run' ? 'Runs' : 'Workflows'
    const valid = kind === 'run' ? RUN_STATES : WORKFLOW_STATES
    const stack = cursors[kind]
    const n = stack.length - 1
    let page = { items: [] }
    if (!filters.state || valid.includes(filters.state)) {
      const qs = new URLSearchParams({ limit: String(PAGE_SIZE) })
      if (filters.state) qs.set('state', filters.state)
      if (kind === 'workflow' && filters.tag) qs.set('tag', filters.tag)
      if (stack[n]) qs.set('cursor', stack[n])
      page = await api('GET', (kind === 'run' ? '/v1/runs?' : '/v1/workflows?') + qs)
    }
    const rows = page.items.map((x) => kind === 'run' ? runItem(x, labels) : workflowItem(x, labels)).filter(matches)
    const prefix = kind === 'run' ? 'runs' : 'wf'
    const pager = h('nav', { class: 'pager', 'aria-label': title.toLowerCase() + ' pages' },
      h('button', { class: 'secondary', id: prefix + '-prev', disabled: n === 0, onclick: () => { stack.pop(); rerender() } }, 'Newer'),
      h('span', { id: prefix + '-page' }, 'Page ' + (n + 1) + (page.nextCursor ? '' : ' (last)')),
      h('button', { class: 'secondary', id: prefix + '-next', disabled: !page.nextCursor, onclick: () => { stack.push(page.nextCursor); rerender() } }, 'Older'))
    return h('section', { 'aria-label': title },
      h('h3', {}, title, filters.state ? ' (' + filters.state + ')' : ''),
      filters.state && !valid.includes(filters.state) ? h('p', { class: 'muted' }, title + ' have no state “' + filters.state + '”.') : listTable(title.toLowerCase(), rows),
      pager)
  })), withSchedules ? scheduleSection(rerender) : null])
  if (stale(seq)) return
  show(h('h2', {}, 'Runs and workflows'), h('p', { class: 'muted' }, 'This tenant\'s async runs and workflows, newest first.'), filterBar(states, rerender), sections, schedules, serverForms())
}

function serverForms() {
  const status = h('p', { 'aria-live': 'polite', class: 'muted', id: 'form-status' })
  const fail = (e) => { status.textContent = String(e.message || e) }
  const runForm = h('form', { 'aria-label': 'run a program', onsubmit: async (e) => {
    e.preventDefault()
    const f = new FormData(e.target)
    try {
      const args = JSON.parse(String(f.get('args') || '{}'))
      const r = await api('POST', '/v1/runs?async=1', { source: String(f.get('source')), args, options: { trace: true } })
      remember({ kind: 'run', id: r.id, label: String(f.get('source')).slice(0, 60), at: Date.now(), state: 'queued' })
      rememberSource(r.id, String(f.get('source')))
      location.hash = '#/run/' + encodeURIComponent(r.id)
    } catch (err) { fail(err) }
  } },
    h('label', {}, 'Program source', h('textarea', { name: 'source', id: 'run-source', required: true }, 'function main({ n }) {\n  let total = 0\n  for (let i = 0; i < n; i++) total += i\n  return { total }\n}')),
    h('label', {}, 'Args (JSON)', h('input', { name: 'args', id: 'run-args', value: '{"n": 5}' })),
    h('button', { type: 'submit', id: 'run-submit' }, 'Run with trace'))
  const wfForm = h('form', { 'aria-label': 'start a workflow', onsubmit: async (e) => {
    e.preventDefault()
    const f = new FormData(e.target)
    try {
      const w = await api('POST', '/v1/workflows', { source: String(f.get('source')), args: JSON.parse(String(f.get('args') || '{}')) })
      remember({ kind: 'workflow', id: w.id, label: String(f.get('source')).slice(0, 60), at: Date.now(), state: w.state })
      location.hash = '#/workflow/' + encodeURIComponent(w.id)
    } catch (err) { fail(err) }
  } },
    h('label', {}, 'Workflow module', h('textarea', { name: 'source', id: 'wf-source', required: true }, 'const ok = await agent("Approve?", { external: true })\nexport default { ok }')),
    h('label', {}, 'Args (JSON)', h('input', { name: 'args', id: 'wf-args', value: '{}' })),
    h('button', { type: 'submit', id: 'wf-submit' }, 'Start workflow'))
  const open = h('form', { 'aria-label': 'open by id', onsubmit: (e) => {
    e.preventDefault()
    const f = new FormData(e.target)
    const kind = String(f.get('kind'))
    const id = String(f.get('id')).trim()
    if (!id) return
    remember({ kind, id, at: Date.now() })
    location.hash = '#/' + kind + '/' + encodeURIComponent(id)
  } },
    h('label', {}, 'Kind', h('select', { name: 'kind' }, h('option', { value: 'run' }, 'run'), h('option', { value: 'workflow' }, 'workflow'), h('option', { value: 'schedule' }, 'schedule'))),
    h('label', {}, 'Id', h('input', { name: 'id', id: 'open-id' })),
    h('button', { type: 'submit', class: 'secondary' }, 'Open'))
  return h('section', { 'aria-label': 'start or open' }, h('h2', {}, 'Start or open'), runForm, wfForm, open, status)
}

// ---- one run --------------------------------------------------------------
async function runView(id) {
  const seq = navSeq
  let run
  if (local) run = local.items.find((i) => i.kind === 'run' && i.id === id)
  else {
    for (let i = 0; i < 50; i++) {
      const data = await api('GET', '/v1/runs/' + encodeURIComponent(id))
      run = { id, state: data.state, result: data.result, at: data.createdAt, source: rememberedSource(id) }
      if (data.state === 'done' || stale(seq)) break
      await new Promise((r) => setTimeout(r, 100))
    }
    remember({ kind: 'run', id, at: run.at, state: run.state })
  }
  if (stale(seq)) return
  if (!run) return show(h('h2', {}, 'Run ' + id), h('p', { role: 'alert' }, 'No such run.'))
  const r = run.result || {}
  const trace = Array.isArray(r.trace) ? r.trace : []
  const maxFuel = Math.max(1e-9, ...trace.map((t) => t.fuel || 0))
  // With the run's source (ajsc inspect --source), each step shows its line of code: every step of a
  // program is a varsLet or an expr, the line says which one it is.
  const lines = typeof run.source === 'string' ? run.source.split('\n') : null
  const codeOf = (t) => { const m = lines && /:(\d+):\d+$/.exec(t.location || ''); return m ? short((lines[Number(m[1]) - 1] || '').trim(), 80) : '' }
  const rows = trace.map((t, i) => h('tr', { class: t.error ? 'err' : undefined },
    h('td', { class: 'num' }, i + 1), h('td', {}, h('code', {}, t.op)), h('td', {}, t.location || ''),
    lines ? h('td', {}, h('code', { class: 'line' }, codeOf(t))) : null,
    h('td', { class: 'num' }, fmt(t.fuel)), h('td', {}, h('span', { class: 'bar', width: Math.round(100 * (t.fuel || 0) / maxFuel) + 'px', 'aria-hidden': 'true' })),
    h('td', { class: 'num' }, fmt(t.fuelTotal)), h('td', { class: 'num' }, fmt(t.ms, 1)), h('td', {}, t.error || t.message || '')))
  const state = run.state === 'done' ? (r.error ? 'failed' : 'ok') : run.state
  show(
    h('p', {}, h('a', { href: '#/' }, '← all runs and workflows')),
    h('h2', {}, 'Run ', h('code', {}, id)),
    h('dl', {}, h('dt', {}, 'State'), h('dd', { class: 'state-' + state, id: 'run-state' }, state), h('dt', {}, 'Fuel used'), h('dd', { id: 'run-fuel' }, fmt(r.fuelUsed)),
      r.result !== undefined ? [h('dt', {}, 'Result'), h('dd', {}, h('code', { id: 'run-result' }, short(r.result, 400)))] : null),
    errorPanel(r.error, run.source),
    (r.diagnostics || []).map((d) => h('p', { class: 'muted' }, 'warning ' + d.code + ' at ' + (d.location || '') + ': ' + d.message)),
    h('h3', {}, 'Timeline (' + trace.length + ' steps)'),
    trace.length === 0 ? h('p', { class: 'muted' }, 'No trace: run with trace on (ajsc run --trace --json, or options.trace).') :
      h('table', { 'aria-label': 'timeline', id: 'timeline' }, h('thead', {}, h('tr', {}, ['#', 'Op', 'Location', ...(lines ? ['Code'] : []), 'Fuel', '', 'Cumulative fuel', 'ms', 'Error / message'].map((c) => h('th', { scope: 'col', class: ['#', 'Fuel', 'Cumulative fuel', 'ms'].includes(c) ? 'num' : undefined }, c)))), h('tbody', {}, rows)),
      h('p', { class: 'muted' }, 'A block is charged when it is entered, so the cumulative fuel of its first step already includes its later steps.'))
}

// ---- one workflow -------------------------------------------------------------
const JOURNAL_PAGE = 100
/** Server mode: the cursors of the journal pages shown so far (index 0: its first entries). */
const journalPages = { id: '', stack: [''] }
function journalPager(id, wf) {
  const n = journalPages.stack.length - 1
  const first = (wf.journal[0] && wf.journal[0].seq) || 0
  const last = (wf.journal[wf.journal.length - 1] && wf.journal[wf.journal.length - 1].seq) || 0
  return h('nav', { class: 'pager', 'aria-label': 'journal pages' },
    h('button', { class: 'secondary', id: 'journal-prev', disabled: n === 0, onclick: () => { journalPages.stack.pop(); workflowView(id) } }, 'Earlier entries'),
    h('span', { id: 'journal-range' }, first ? 'Entries ' + first + '–' + last + ' of ' + wf.journalTotal : ''),
    h('button', { class: 'secondary', id: 'journal-next', disabled: !wf.nextCursor, onclick: () => { journalPages.stack.push(wf.nextCursor); workflowView(id) } }, 'Later entries'))
}
const SVG = 'http://www.w3.org/2000/svg'
function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag)
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v))
  for (const c of children) el.append(c)
  return el
}
/** The agent-call budget spent over the journal's entries (as of each entry), a step line; its numbers in the label. */
function budgetChart(entries) {
  const points = entries.filter((e) => typeof e.budgetSpent === 'number')
  if (points.length === 0) return null
  const totalOf = points.map((e) => e.budgetTotal).find((t) => typeof t === 'number')
  const top = Math.max(1, totalOf || 0, ...points.map((e) => e.budgetSpent))
  const first = points[0].seq || 1
  const span = Math.max(1, (points[points.length - 1].seq || points.length) - first)
  const W = 600, H = 90, x = (e, i) => 40 + (((e.seq || i + 1) - first) / span) * (W - 50), y = (v) => 10 + (1 - v / top) * (H - 20)
  let d = ''
  points.forEach((e, i) => { d += (i === 0 ? 'M' : ' H' + x(e, i).toFixed(1) + ' V') + (i === 0 ? x(e, i).toFixed(1) + ' ' + y(e.budgetSpent).toFixed(1) : y(e.budgetSpent).toFixed(1)) })
  const from = points[0].budgetSpent, to = points[points.length - 1].budgetSpent
  const label = 'Budget spent over the journal: ' + from + ' to ' + to + ' agent calls' + (typeof totalOf === 'number' ? ' of ' + totalOf : ' (no limit)') + ', entries ' + first + ' to ' + (points[points.length - 1].seq || points.length)
  return h('figure', { class: 'panel' },
    svg('svg', { viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, role: 'img', 'aria-label': label, id: 'budget-chart' },
      svg('line', { x1: 40, y1: H - 10, x2: W - 10, y2: H - 10, stroke: '#4a5360' }),
      typeof totalOf === 'number' ? svg('line', { x1: 40, y1: y(totalOf), x2: W - 10, y2: y(totalOf), stroke: '#a4081a', 'stroke-dasharray': '4 3' }) : '',
      svg('text', { x: 2, y: y(top) + 4, 'font-size': 11, fill: '#1b1f24' }, String(top)),
      svg('text', { x: 2, y: H - 6, 'font-size': 11, fill: '#1b1f24' }, '0'),
      svg('path', { d, fill: 'none', stroke: '#0b5cad', 'stroke-width': 2 })),
    h('figcaption', { class: 'muted' }, label))
}
async function workflowView(id) {
  const seq = navSeq
  let wf
  if (local) wf = local.items.find((i) => i.kind === 'workflow' && i.id === id)
  else {
    const data = await api('GET', '/v1/workflows/' + encodeURIComponent(id))
    if (journalPages.id !== id) { journalPages.id = id; journalPages.stack = [''] }
    const cursor = journalPages.stack[journalPages.stack.length - 1]
    const page = await api('GET', '/v1/workflows/' + encodeURIComponent(id) + '/journal?limit=' + JOURNAL_PAGE + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''))
    wf = { id, state: data.state, data, requests: data.requests || [], journal: page.entries, journalTotal: page.total, nextCursor: page.nextCursor, result: data.result, error: data.error, budget: data.budget }
  }
  if (stale(seq)) return
  if (!wf) return show(h('h2', {}, 'Workflow ' + id), h('p', { role: 'alert' }, 'No such workflow.'))
  const status = h('p', { 'aria-live': 'polite', id: 'answer-status' })
  const requests = (wf.requests || []).map((q) => h('form', { class: 'panel', 'aria-label': 'answer request ' + q.id, onsubmit: async (e) => {
    e.preventDefault()
    const text = new FormData(e.target).get('value')
    let value
    try { value = JSON.parse(String(text)) } catch { value = String(text) }
    try {
      await api('POST', '/v1/workflows/' + encodeURIComponent(id) + '/requests/' + encodeURIComponent(q.id), { value })
      status.textContent = 'Answered ' + q.id + '.'
      for (let i = 0; i < 50; i++) {
        const d = await api('GET', '/v1/workflows/' + encodeURIComponent(id))
        if (d.state !== 'running') break
        await new Promise((r) => setTimeout(r, 100))
      }
      workflowView(id)
    } catch (err) { status.textContent = String(err.message || err) }
  } },
    h('div', {}, h('strong', {}, q.prompt || q.id), ' ', h('span', { class: 'muted' }, short(q.options))),
    local ? h('p', { class: 'muted' }, 'Answer it with: ajsc workflow signal …') : [
      h('label', {}, 'Answer (JSON or text)', h('input', { name: 'value', class: 'answer', id: 'answer-' + q.id, 'aria-label': 'answer to ' + (q.prompt || q.id) })),
      h('button', { type: 'submit' }, 'Answer')]))
  const journal = wf.journal || []
  const total = wf.journalTotal === undefined ? journal.length : wf.journalTotal
  const jrows = journal.map((e, i) => {
    const kind = e.t || e.type || e.kind || ''
    const what = e.call ? e.call.type + (e.call.name ? ' ' + e.call.name : '') : e.request ? e.request.type : ''
    const value = e.result !== undefined ? e.result : e.resolution !== undefined ? e.resolution : e.request !== undefined ? e.request : e.call !== undefined ? e.call : e.args
    return h('tr', {}, h('td', { class: 'num' }, e.seq || i + 1), h('td', {}, kind + (what ? ' · ' + what : '')), h('td', {}, e.id || (e.request && e.request.id) || ''),
      h('td', {}, when(e.at || e.wakeAt)), h('td', { class: 'num' }, e.attempt === undefined ? '' : e.attempt), h('td', { class: 'num' }, e.budgetSpent === undefined ? '' : e.budgetSpent),
      h('td', {}, h('code', {}, short(value, 160))))
  })
  show(
    h('p', {}, h('a', { href: '#/' }, '← all runs and workflows')),
    h('h2', {}, 'Workflow ', h('code', {}, id)),
    h('dl', {}, h('dt', {}, 'State'), h('dd', { class: 'state-' + wf.state, id: 'wf-state' }, wf.state),
      wf.result !== undefined ? [h('dt', {}, 'Result'), h('dd', {}, h('code', { id: 'wf-result' }, short(wf.result, 400)))] : null),
    errorPanel(wf.error),
    h('h3', {}, 'Pending requests (' + (wf.requests || []).length + ')'), requests.length ? requests : h('p', { class: 'muted' }, 'None.'), status,
    wf.state === 'running' && !local ? h('p', { class: 'muted' }, 'Running… this page refreshes.') : null,
    h('h3', {}, 'Journal (' + total + ' entries)'),
    budgetChart(journal),
    journal.length === 0 ? h('p', { class: 'muted' }, 'No journal here.') : h('table', { 'aria-label': 'journal', id: 'journal' },
      h('thead', {}, h('tr', {}, ['#', 'Entry', 'Id', 'At', 'Attempt', 'Budget spent', 'Value'].map((c) => h('th', { scope: 'col' }, c)))), h('tbody', {}, jrows)),
    local ? null : journalPager(id, wf))
  // A workflow taking steps on a server: look again shortly, while this page is still the one shown.
  if (!local && wf.state === 'running') {
    const here = location.hash
    setTimeout(() => { if (location.hash === here) workflowView(id).catch(() => {}) }, 300)
  }
}
${SCHEDULES_JS}
// ---- login and routing ------------------------------------------------------
function loginView(message) {
  show(h('h2', {}, 'Sign in'), message ? h('p', { role: 'alert', class: 'err' }, message) : null,
    h('form', { 'aria-label': 'sign in', onsubmit: (e) => {
      e.preventDefault()
      sessionStorage.setItem(tokenKey, String(new FormData(e.target).get('token')))
      route()
    } }, h('label', {}, 'Tenant token (the same bearer token as the API)', h('input', { name: 'token', id: 'token', type: 'password', autocomplete: 'off', required: true })), h('button', { type: 'submit' }, 'Sign in')))
}
async function route() {
  const seq = ++navSeq
  const [, kind, id] = /^#\/(run|workflow|schedule)\/(.+)$/.exec(location.hash) || []
  if (!local && !token()) return loginView()
  try {
    if (kind === 'run') await runView(decodeURIComponent(id))
    else if (kind === 'workflow') await workflowView(decodeURIComponent(id))
    else if (kind === 'schedule') await scheduleView(decodeURIComponent(id))
    else await listView()
    if (!stale(seq)) main.focus({ preventScroll: true }) // a new view: keyboard users start at its top
  } catch (e) {
    if (stale(seq)) return
    if (e.status === 401) { sessionStorage.removeItem(tokenKey); return loginView('That token was refused.') }
    show(h('p', { role: 'alert', class: 'err' }, String(e.message || e)), h('p', {}, h('a', { href: '#/' }, 'Back to the list')))
  }
}

takeTokenFromFragment()
// ajsc inspect serves the page with mode "local" and the data at /ui/data.json; ajsc serve with mode "server".
if (document.querySelector('meta[name="ajs-inspector-mode"]').content === 'local') {
  const res = await fetch('/ui/data.json')
  local = res.ok ? await res.json() : { title: 'no data', items: [] }
}
modeLabel.textContent = local ? 'local: ' + (local.title || '') : 'server'
addEventListener('hashchange', () => { takeTokenFromFragment(); route() })
route()
`
