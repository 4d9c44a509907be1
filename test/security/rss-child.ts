/**
 * Child process of rss.test.ts: runs one guest program (argv[2]: the body of
 * `function main()`, argv[3]: run options as JSON) and prints its outcome and
 * the growth of the process's peak RSS during the run, in MiB, as JSON.
 */
import { AgentVM } from '../../src/index.ts'

const [body, optionsJson] = process.argv.slice(2)
const vm = new AgentVM()
await vm.run('function main() { return 1 }') // load and warm the VM before measuring
const before = process.memoryUsage().rss
const started = performance.now()
const r = await vm.run(`function main() {\n${body}\n}`, {}, JSON.parse(optionsJson ?? '{}'))
const ms = performance.now() - started
const peakKiB = process.resourceUsage().maxRSS
console.log(JSON.stringify({ code: r.error?.code ?? null, fuelUsed: r.fuelUsed, ms, growthMiB: (peakKiB * 1024 - before) / 2 ** 20 }))
