/**
 * Long fuzz run: `FUZZ_RUNS=100000 npm run fuzz` (optional FUZZ_SEED).
 * Prints the number of programs, programs per second, and the shrunk
 * counterexample of any failure (exit code 1).
 */
import fc from 'fast-check'
import { fuzzProperty } from './fuzz-lib.ts'

const runs = Number(process.env.FUZZ_RUNS ?? 10_000)
const seed = process.env.FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED)
const started = Date.now()
const details = await fc.check(fuzzProperty, { numRuns: runs, seed, endOnFailure: false })
const secs = (Date.now() - started) / 1000
console.log(`fuzz: ${details.numRuns} programs in ${secs.toFixed(1)} s (${Math.round(details.numRuns / secs)} programs/s), seed ${seed}`)
if (details.failed) {
  console.log(`FAILED after ${details.numRuns} runs (${details.numShrinks} shrinks)`)
  console.log('counterexample:', JSON.stringify(details.counterexample, null, 1)?.slice(0, 4000))
  console.log('error:', String(details.errorInstance).slice(0, 2000))
  process.exit(1)
}
console.log('no counterexample found')
