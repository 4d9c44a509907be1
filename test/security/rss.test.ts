/**
 * Memory past `maxHeapBytes`, measured where it shows: the peak RSS of a
 * child process running one program each (16 MiB `maxHeapBytes`). Before the
 * fixes of issue 12 these grew the process by 0.5 to 1.5 GB; each must now
 * stop with HEAP_LIMIT and grow the peak RSS by less than RSS_BOUND_MIB.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

/** Peak RSS growth allowed: the 16 MiB limit, the input strings the programs build, and GC slack. */
const RSS_BOUND_MIB = 160
const HEAP = { maxHeapBytes: 16 * 1024 * 1024, fuel: 2_000, timeoutMs: 20_000 }
const CHILD = join(import.meta.dir, 'rss-child.ts')

const CASES: Array<[string, string]> = [
  ['replaceAll with $`', "return 'a'.repeat(1e5).replaceAll('a', '$`').length"],
  ['template with thousands of placeholders', "return template({ template: '{{big}}'.repeat(5000), vars: { big: 'x'.repeat(1e5) } }).length"],
  ['concat of many references to one array', 'const a = Array.from({ length: 1e6 })\nreturn [].concat(a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a).length'],
  ['entries() of a large array', 'return Array.from({ length: 1e6 }).entries().length'],
  ['JSON.parse of many empty arrays', "return JSON.parse('[' + '[],'.repeat(2e6) + '[]]').length"],
  ['match(/a?/g) on 5M characters', "return 'a'.repeat(5e6).match(/a?/g).length"],
  ["normalize('NFKC') expansion", "return '\\uFDFA'.repeat(1e6).normalize('NFKC').length"],
  ['object spread of a long string', "const s = 'x'.repeat(1e6)\nreturn Object.keys({ ...s }).length"],
]

describe('peak RSS of a child process stays bounded (maxHeapBytes 16 MiB)', () => {
  for (const [name, body] of CASES) {
    test(name, () => {
      const out = spawnSync(process.execPath, [CHILD, body, JSON.stringify(HEAP)], { encoding: 'utf8', timeout: 50_000 })
      const line = out.stdout.trim().split('\n').pop() ?? ''
      if (!line.startsWith('{')) throw new Error(`child failed (status ${out.status}, ${out.error ?? ''}): ${out.stderr.slice(-2000)}`)
      const r = JSON.parse(line) as { code: string | null; fuelUsed: number; ms: number; growthMiB: number }
      expect(r.code).toBe('HEAP_LIMIT')
      expect(r.fuelUsed).toBeLessThanOrEqual(HEAP.fuel)
      expect(r.ms).toBeLessThan(HEAP.timeoutMs)
      expect(r.growthMiB).toBeLessThan(RSS_BOUND_MIB)
      console.log(`${name}: +${r.growthMiB.toFixed(0)} MiB peak RSS, ${r.ms.toFixed(0)} ms, ${r.fuelUsed} fuel`)
    }, 60_000)
  }
})
