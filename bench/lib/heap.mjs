// Section 4: V8 heap allocated by one arith-loop run (method in heap-child.mjs).
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildDir, benchDir } from './paths.mjs'
import { median, sameJson } from './timing.mjs'
import { childError } from './child-error.mjs'

const child = fileURLToPath(new URL('./heap-child.mjs', import.meta.url))
const importChild = fileURLToPath(new URL('./import-heap-child.mjs', import.meta.url))
const IMPORT_SPAWNS = 5
export const HEAP_FLAGS = ['--expose-gc', '--min-semi-space-size=256', '--max-semi-space-size=256']

export async function runHeap({ workload, systemIds, spec, expected, opts, log }) {
  const specPath = join(buildDir, 'heap-spec.json')
  writeFileSync(
    specPath,
    JSON.stringify({ id: workload.id, source: workload.source, entry: workload.entry, args: workload.args, warmup: opts.heap.warmup, samples: opts.heap.samples, ...spec }),
  )
  const out = {}
  for (const id of systemIds) {
    const p = spawnSync(process.execPath, [...HEAP_FLAGS, child, id, specPath], { cwd: benchDir, encoding: 'utf8', maxBuffer: 64 << 20 })
    try {
      childError(p)
      const r = JSON.parse(p.stdout.trim().split('\n').pop())
      if (!sameJson(r.result, expected)) throw new Error('result differs from native')
      const clean = r.samples.filter((s) => !s.gcInside)
      const use = clean.length ? clean : r.samples
      out[id] = {
        status: 'ok',
        bytes: median(use.map((s) => s.bytes)),
        samples: r.samples.length,
        lowerBound: clean.length === 0,
      }
      log(`  ${id.padEnd(10)} ${(out[id].bytes / 1e6).toFixed(3)} MB${out[id].lowerBound ? ' (GC inside the run: lower bound)' : ''}`)
    } catch (e) {
      out[id] = { status: 'error', note: String(e.message).slice(0, 300) }
      log(`  ${id.padEnd(10)} error: ${out[id].note}`)
    }
  }
  const afterImport = spec.oursVmBundleMin ? heapAfterImport(spec.oursVmBundleMin, log) : undefined
  return { afterImport, method: `node ${HEAP_FLAGS.join(' ')}; heapUsed delta around one run after gc(), minus the same for a no-op; median of ${opts.heap.samples}`, systems: out }
}

/** Issue 28's "heap after import": what importing `ajs-lang/vm` (its minified bundle) leaves on the V8 heap; median of fresh processes. */
function heapAfterImport(bundle, log) {
  try {
    const bytes = []
    for (let i = 0; i < IMPORT_SPAWNS; i++) {
      const p = spawnSync(process.execPath, ['--expose-gc', importChild, bundle], { cwd: benchDir, encoding: 'utf8' })
      childError(p)
      bytes.push(JSON.parse(p.stdout.trim().split('\n').pop()).bytes)
    }
    const out = { status: 'ok', bytes: median(bytes), spawns: IMPORT_SPAWNS, method: `node --expose-gc; heapUsed after gc() twice, after the import minus before it; median of ${IMPORT_SPAWNS} fresh processes` }
    log(`  heap after import of ajs-lang/vm: ${(out.bytes / 1e6).toFixed(3)} MB`)
    return out
  } catch (e) {
    log(`  heap after import of ajs-lang/vm: error: ${e.message}`)
    return { status: 'error', note: String(e.message).slice(0, 300) }
  }
}
