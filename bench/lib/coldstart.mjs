// Section 3: cold start. N fresh `node` processes per system, spawned in
// shuffled interleaved rounds; median of "first import -> first result of
// agent-typical" measured inside the child (see cold-child.mjs).
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildDir, benchDir, codeCacheDir } from './paths.mjs'
import { median, shuffle, sameJson } from './timing.mjs'
import { childError } from './child-error.mjs'

const child = fileURLToPath(new URL('./cold-child.mjs', import.meta.url))

export async function runColdStart({ workload, systemIds, spec, expected, opts, log }) {
  const specPath = join(buildDir, 'cold-spec.json')
  const cached = spec.oursCodeCache && spec.oursVmBundleMin ? { codeCacheDir, oursVmKey: createHash('sha256').update(readFileSync(spec.oursVmBundleMin)).digest('hex').slice(0, 16) } : {}
  writeFileSync(specPath, JSON.stringify({ id: workload.id, source: workload.source, entry: workload.entry, args: workload.args, ...spec, ...cached }))
  // A code cache is made by a host's first process: one untimed start writes it, the timed ones must hit it.
  rmSync(codeCacheDir, { recursive: true, force: true })
  for (const id of systemIds.filter((s) => s.endsWith('-cached'))) childError(spawnSync(process.execPath, [child, id, specPath, 'warm'], { cwd: benchDir, encoding: 'utf8' }))
  const samples = Object.fromEntries(systemIds.map((id) => [id, { ms: [], sinceStartMs: [], wallMs: [], phases: {} }]))
  const errors = {}
  for (let r = 0; r < opts.cold.spawns; r++) {
    for (const id of shuffle(systemIds, opts.rand)) {
      if (errors[id]) continue
      const t0 = performance.now()
      const p = spawnSync(process.execPath, [child, id, specPath], { cwd: benchDir, encoding: 'utf8' })
      const wall = performance.now() - t0
      try {
        childError(p)
        const out = JSON.parse(p.stdout.trim().split('\n').pop())
        if (!sameJson(out.result, expected)) throw new Error(`result differs from native: ${JSON.stringify(out.result)?.slice(0, 200)}`)
        samples[id].ms.push(out.ms)
        samples[id].sinceStartMs.push(out.sinceStartMs)
        samples[id].wallMs.push(wall)
        for (const [k, v] of Object.entries(out.phases ?? {})) (samples[id].phases[k] ??= []).push(v)
      } catch (e) {
        errors[id] = String(e.message).slice(0, 300)
      }
    }
  }
  const out = {}
  for (const id of systemIds) {
    const s = samples[id]
    out[id] = errors[id]
      ? { status: 'error', note: errors[id] }
      : { status: 'ok', spawns: s.ms.length, importToResultMs: median(s.ms), processStartToResultMs: median(s.sinceStartMs), spawnToExitMs: median(s.wallMs) }
    if (out[id].status === 'ok' && Object.keys(s.phases).length) {
      out[id].phasesMs = Object.fromEntries(Object.entries(s.phases).map(([k, v]) => [k, median(v)]))
    }
    const o = out[id]
    log(`  ${id.padEnd(15)} ${o.status === 'ok' ? `import→result ${o.importToResultMs.toFixed(1)} ms   process start→result ${o.processStartToResultMs.toFixed(1)} ms   spawn→exit ${o.spawnToExitMs.toFixed(1)} ms${o.phasesMs ? `   [${phaseLine(o.phasesMs)}]` : ''}` : `error: ${o.note}`}`)
  }
  return out
}

export const phaseLine = (ph) => Object.entries(ph).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')
