/**
 * Hardening, round 2 (issue 12): one family per class, each case asserting
 * its bounded outcome (code or result, fuel, wall time within the deadline
 * plus DEADLINE_MARGIN_MS, host unchanged). Tables in hardening-cases.ts.
 */
import { describe, test } from 'bun:test'
import { bounded, type BoundedCase } from './bounds.ts'
import { FATAL, MEMORY, NATIVE_WORK, REGEX_OPAQUE, REGEX_RESULTS } from './hardening-cases.ts'

const FAMILIES: Array<[string, BoundedCase[]]> = [
  ['regex values are opaque', REGEX_OPAQUE],
  ['regex results are JavaScript\'s', REGEX_RESULTS],
  ['native work is paid and bounded', NATIVE_WORK],
  ['memory past maxHeapBytes is refused before allocation', MEMORY],
  ['fuel, heap and time errors stay fatal', FATAL],
]

for (const [family, cases] of FAMILIES) {
  describe(family, () => {
    for (const c of cases) test(c.name ?? "", async () => { await bounded(c) }, 30_000)
  })
}
