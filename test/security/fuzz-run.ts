/**
 * Long fuzz run: `FUZZ_RUNS=100000 npm run fuzz` (optional FUZZ_SEED, and
 * FUZZ_SECONDS to stop after that long: the inputs run so far are reported).
 * FUZZ_TARGET picks what is fuzzed: `vm` (random ASTs and AJS sources, the
 * default), `python` (code-block bodies), `server` (requests to an in-process
 * ajsc serve), or `all` (each in turn, FUZZ_RUNS inputs each). The ≥ 1M-input
 * run of issue 23: `FUZZ_TARGET=all FUZZ_RUNS=400000 npm run fuzz`.
 * Prints the number of inputs, inputs per second, and the shrunk
 * counterexample of any failure (exit code 1).
 */
import fc from 'fast-check'
import { fuzzProperty } from './fuzz-lib.ts'
import { closeFuzzServer, pythonProperty, requestProperty } from './fuzz-more.ts'

const runs = Number(process.env.FUZZ_RUNS ?? 10_000)
const seed = process.env.FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED)
const seconds = process.env.FUZZ_SECONDS === undefined ? undefined : Number(process.env.FUZZ_SECONDS)
const target = process.env.FUZZ_TARGET ?? 'vm'
const PROPERTIES: Record<string, fc.IAsyncProperty<[any]>> = { vm: fuzzProperty, python: pythonProperty, server: requestProperty }
const names = target === 'all' ? Object.keys(PROPERTIES) : [target]
if (names.some((n) => !PROPERTIES[n])) {
  console.error(`FUZZ_TARGET must be one of ${[...Object.keys(PROPERTIES), 'all'].join(', ')}`)
  process.exit(2)
}
let total = 0
let failed = false
for (const name of names) {
  const started = Date.now()
  const details = await fc.check(PROPERTIES[name]!, {
    numRuns: runs, seed, endOnFailure: false,
    ...(seconds ? { interruptAfterTimeLimit: seconds * 1000, markInterruptAsFailure: false } : {}),
  })
  const secs = (Date.now() - started) / 1000
  total += details.numRuns
  console.log(`fuzz ${name}: ${details.numRuns} inputs in ${secs.toFixed(1)} s (${Math.round(details.numRuns / secs)} inputs/s), seed ${seed}${details.interrupted ? ' (stopped at FUZZ_SECONDS)' : ''}`)
  if (details.failed) {
    failed = true
    console.log(`FAILED after ${details.numRuns} runs (${details.numShrinks} shrinks)`)
    console.log('counterexample:', JSON.stringify(details.counterexample, null, 1)?.slice(0, 4000))
    console.log('error:', String(details.errorInstance).slice(0, 2000))
  }
}
await closeFuzzServer()
if (names.length > 1) console.log(`fuzz: ${total} inputs in all`)
if (failed) process.exit(1)
console.log('no counterexample found')
