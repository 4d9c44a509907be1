/**
 * Child process of rss.test.ts: runs one guest program (argv[2]: the body of
 * `function main()`, argv[3]: run options as JSON) and prints its outcome and
 * the growth of the process's peak RSS during the run, in MiB, as JSON.
 *
 * The peak is read from /proc/self/status (VmHWM), reset just before the run
 * (/proc/self/clear_refs): getrusage's maxRSS would include the RSS the parent
 * had when it forked this process. Elsewhere maxRSS is the fallback.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { AgentVM } from '../../src/index.ts'

function peakBytes(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
    if (m) return Number(m[1]) * 1024
  } catch { /* not Linux */ }
  return process.resourceUsage().maxRSS * 1024
}

const [body, optionsJson] = process.argv.slice(2)
const vm = new AgentVM()
await vm.run('function main() { return 1 }') // load and warm the VM before measuring
const before = process.memoryUsage().rss
try { writeFileSync('/proc/self/clear_refs', '5') } catch { /* resetting the peak needs Linux */ }
const started = performance.now()
const r = await vm.run(`function main() {\n${body}\n}`, {}, JSON.parse(optionsJson ?? '{}'))
const ms = performance.now() - started
console.log(JSON.stringify({ code: r.error?.code ?? null, fuelUsed: r.fuelUsed, ms, growthMiB: (peakBytes() - before) / 2 ** 20 }))
