/**
 * Child process of pay-first.test.ts: runs Python code blocks (argv[2]: a JSON
 * array of [name, body, runOptions]) one after another and prints one JSON
 * line per block: its error code and Python message (or result), fuel, time,
 * and the growth of the process's peak RSS during that block, in MiB (the
 * peak is reset before each block, see rss-child.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { runPythonBlock } from '../../src/python/index.ts'

function peakBytes(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
    if (m) return Number(m[1]) * 1024
  } catch { /* not Linux */ }
  return process.resourceUsage().maxRSS * 1024
}

const cases = JSON.parse(process.argv[2] ?? '[]') as Array<[string, string, Record<string, unknown>]>
await runPythonBlock('return {"x": 1}') // load and warm before measuring
for (const [name, body, options] of cases) {
  Bun.gc(true)
  const before = process.memoryUsage().rss
  try { writeFileSync('/proc/self/clear_refs', '5') } catch { /* resetting the peak needs Linux */ }
  const started = performance.now()
  const r = await runPythonBlock(body, options)
  const ms = performance.now() - started
  console.log(JSON.stringify({ name, code: r.error?.code ?? null, message: r.error?.message ?? null, result: r.error ? null : r.result, fuelUsed: r.fuelUsed, ms, growthMiB: (peakBytes() - before) / 2 ** 20 }))
}
