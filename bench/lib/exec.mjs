// Section 1: execution. Every workload on every system, in one process:
// prepare (compile once), run once and check against native, then interleaved
// shuffled rounds and medians. Slowdown = system median / native median.
import { measureInterleaved, sameJson, geomean } from './timing.mjs'

export async function runExecution({ workloads, systems, opts, log }) {
  const rows = []
  for (const w of workloads) {
    const row = { id: w.id, what: w.what, systems: {} }
    const runners = {}
    let expected
    for (const s of systems) {
      const cell = (row.systems[s.id] = { status: 'ok' })
      try {
        const r = await s.prepare(w)
        const got = await r.run()
        if (s.id === 'native') expected = got
        else if (!sameJson(got, expected)) {
          cell.status = 'mismatch'
          cell.note = `got ${JSON.stringify(got)?.slice(0, 200)}; native ${JSON.stringify(expected)?.slice(0, 200)}`
          r.dispose?.()
          continue
        }
        if (r.fuelUsed !== undefined) cell.fuelUsed = r.fuelUsed
        runners[s.id] = r
      } catch (e) {
        cell.status = 'error'
        cell.note = String(e?.message ?? e).split('\n')[0].slice(0, 300)
      }
    }
    const timed = await measureInterleaved(runners, { ...opts.exec, rand: opts.rand })
    for (const [id, t] of Object.entries(timed)) Object.assign(row.systems[id], summarize(t))
    const native = row.systems.native
    for (const [id, cell] of Object.entries(row.systems)) {
      if (cell.status === 'ok' && native?.status === 'ok') cell.slowdown = cell.medianUs / native.medianUs
    }
    for (const r of Object.values(runners)) r.dispose?.()
    rows.push(row)
    log(lineFor(row, systems))
  }
  return { rows, summary: summarizeSystems(rows, systems) }
}

function summarize(t) {
  const us = t.medianMs * 1000
  return { medianUs: us, opsPerSec: 1e6 / us, rounds: t.samples.length, itersPerSample: t.iters }
}

/** Geomean slowdown over the workloads a system passed; `complete` says whether that is all of them. */
function summarizeSystems(rows, systems) {
  const out = {}
  for (const s of systems) {
    const ok = rows.filter((r) => r.systems[s.id]?.status === 'ok' && r.systems[s.id].slowdown)
    const slow = ok.map((r) => r.systems[s.id].slowdown)
    out[s.id] = {
      geomeanSlowdown: geomean(slow),
      worst: ok.length ? ok.reduce((a, r) => (r.systems[s.id].slowdown > a.systems[s.id].slowdown ? r : a)).id : null,
      worstSlowdown: slow.length ? Math.max(...slow) : NaN,
      passed: ok.length,
      total: rows.length,
      complete: ok.length === rows.length,
    }
  }
  return out
}

const fmtUs = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(us < 10 ? 2 : 1)} µs`)
function lineFor(row, systems) {
  const parts = systems.map((s) => {
    const c = row.systems[s.id]
    if (c.status !== 'ok') return `${s.id}=${c.status}`
    return `${s.id}=${fmtUs(c.medianUs)}${c.slowdown && s.id !== 'native' ? ` (×${c.slowdown.toFixed(1)})` : ''}`
  })
  return `  ${row.id.padEnd(22)} ${parts.join('  ')}`
}
export { fmtUs }
