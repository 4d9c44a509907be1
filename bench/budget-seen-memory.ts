/**
 * Heap held by the in-memory seen-set of spent budget tokens (MemorySeenTokens), full at `n`
 * unexpired tokens (the serve config's budgetTokens.maxSeen, default 100,000): ids alone, and ids
 * with the receipt a server keeps for a retry (BUDGET_TOKEN_ANSWERED). The ids are made before
 * measuring (a server gets them from the token), the receipts inside (it signs them).
 *
 *   bun bench/budget-seen-memory.ts [n=100000]
 */
import { BudgetTokens, MemorySeenTokens } from '../src/codemode/index.ts'

const n = Number(process.argv[2] ?? 100_000)
const gc = (globalThis as { Bun?: { gc(full: boolean): void } }).Bun?.gc
if (!gc) throw new Error('run it with bun (it forces a full GC before and after)')
const tokens = new BudgetTokens({ key: 'k'.repeat(32) })
const ids = Array.from({ length: n }, (_, i) => `bt_${String(i).padStart(22, '0')}`)

function measure(keepReceipts: boolean): MemorySeenTokens {
  gc!(true)
  const before = process.memoryUsage().heapUsed
  const seen = new MemorySeenTokens(n)
  const exp = Date.now() + 3_600_000
  for (const id of ids) {
    seen.claim(id, exp)
    if (keepReceipts) seen.answer(id, tokens.receipt({ id, fuel: 1000 }, 123.4567))
  }
  gc!(true)
  const bytes = process.memoryUsage().heapUsed - before
  console.log(`${keepReceipts ? 'ids + receipts' : 'ids only      '}: ${(bytes / seen.size).toFixed(0)} B per token, ${(bytes / 2 ** 20).toFixed(1)} MiB for ${seen.size}`)
  return seen
}

const held = [measure(false), measure(true)] // both alive while measuring the second
void held
