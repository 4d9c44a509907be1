/** `--trace`: the run's steps as an aligned table with fuel per step. */
import type { TraceEntry } from '../vm/index.ts'
import type { Palette } from './colors.ts'

const fmt = (n: number, digits: number) => n.toFixed(digits)

export function formatTrace(trace: readonly TraceEntry[], fuelUsed: number, c: Palette): string {
  const rows = trace.map((t, i) => [String(i + 1), t.op, t.location ?? '', fmt(t.fuel, 3), fmt(t.fuelTotal, 3), fmt(t.ms, 2), t.error ?? ''])
  const head = ['#', 'op', 'location', 'fuel', 'total', 'ms', '']
  const widths = head.map((h, col) => Math.max(h.length, ...rows.map((r) => r[col]!.length)))
  const right = new Set([0, 3, 4, 5])
  const line = (r: string[]) => r.map((cell, col) => (right.has(col) ? cell.padStart(widths[col]!) : cell.padEnd(widths[col]!))).join('  ').trimEnd()
  const body = rows.map((r) => (r[6] ? c.red(line(r)) : line(r)))
  return [c.bold(line(head)), ...body, `${c.dim('fuel used:')} ${fuelUsed} in ${trace.length} step${trace.length === 1 ? '' : 's'}`].join('\n') + '\n'
}
