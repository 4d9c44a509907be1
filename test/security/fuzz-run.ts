/**
 * Long fuzz run: `FUZZ_RUNS=100000 npm run fuzz` (optional FUZZ_SEED, and
 * FUZZ_SECONDS to stop after that long: the programs run so far are reported).
 * Prints the number of programs, programs per second, and the shrunk
 * counterexample of any failure (exit code 1).
 */
import fc from 'fast-check'
import { fuzzProperty } from './fuzz-lib.ts'

const runs = Number(process.env.FUZZ_RUNS ?? 10_000)
const seed = process.env.FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED)
const started = Date.now()
const seconds = process.env.FUZZ_SECONDS === undefined ? undefined : Number(process.env.FUZZ_SECONDS)
const details = await fc.check(fuzzProperty, {
  numRuns: runs, seed, endOnFailure: false,
  ...(seconds ? { interruptAfterTimeLimit: seconds * 1000, markInterruptAsFailure: false } : {}),
})
const secs = (Date.now() - started) / 1000
console.log(`fuzz: ${details.numRuns} programs in ${secs.toFixed(1)} s (${Math.round(details.numRuns / secs)} programs/s), seed ${seed}${details.interrupted ? ' (stopped at FUZZ_SECONDS)' : ''}`)
if (details.failed) {
  console.log(`FAILED after ${details.numRuns} runs (${details.numShrinks} shrinks)`)
  console.log('counterexample:', JSON.stringify(details.counterexample, null, 1)?.slice(0, 4000))
  console.log('error:', String(details.errorInstance).slice(0, 2000))
  process.exit(1)
}
console.log('no counterexample found')
