/** A short fuzz run inside `npm test` (the long one: `FUZZ_RUNS=100000 npm run fuzz`). */
import { test } from 'bun:test'
import fc from 'fast-check'
import { astArb, checkProgram, sourceArb } from './fuzz-lib.ts'
import { closeFuzzServer, pythonProperty, requestProperty } from './fuzz-more.ts'

const prop = (arb: fc.Arbitrary<unknown>) => fc.asyncProperty(arb, async (p) => {
  const o = await checkProgram(p)
  if (!o.ok) throw new Error(o.problem)
})

test('fuzz: random ASTs, validated then run, keep every invariant', async () => {
  await fc.assert(prop(astArb), { numRuns: 1000, seed: 7 })
}, 60_000)

test('fuzz: random AJS sources, transpiled then run, keep every invariant', async () => {
  await fc.assert(prop(sourceArb), { numRuns: 500, seed: 11 })
}, 60_000)

test('fuzz: random Python code blocks, compiled then run, keep every invariant', async () => {
  await fc.assert(pythonProperty, { numRuns: 300, seed: 13 })
}, 60_000)

test('fuzz: random requests to ajsc serve (routes, headers, bodies, ASTs) answer below 500 with a code', async () => {
  try {
    await fc.assert(requestProperty, { numRuns: 400, seed: 17 })
  } finally {
    await closeFuzzServer()
  }
}, 60_000)
