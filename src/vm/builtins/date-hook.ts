/**
 * The VM's side of Dates. `new Date(...)` lowers to `Date.time(...)` and each Date method to a `Date`
 * static of its name (ast/globals.ts DATE_METHODS); their implementations (builtins/dates.ts) are an
 * opt-in part, `ajs-lang/vm/dates` (src/vm/parts/dates.ts), that registers them here when imported, so
 * `ajs-lang/vm` stays small. The full entry, `ajsc`, the server and the Python and flow entries import
 * it. Without it a program naming a Date static the core lacks is refused when it is compiled, with
 * FEATURE_MISSING naming the import (`Date.now`, `Date.parse`, `Date.UTC`, `Date.toISOString` are core).
 */
import type { Run } from '../runtime.ts'
import { partMissing } from '../atoms/part-hook.ts'
import { processSlot } from '../process-slot.ts'

type DateStatic = (rt: Run, args: any[]) => unknown

const slot = processSlot<{ statics?: Readonly<Record<string, DateStatic>> }>('vm.dates', () => ({}))

/** Called by the dates part when it is imported. */
export function registerDates(statics: Readonly<Record<string, DateStatic>>): void {
  slot.statics = statics
}

/** The `Date` static `method` of the dates part (undefined when it has none of that name), or the refusal naming the part. */
export function dateStatic(method: string): DateStatic | undefined {
  const statics = slot.statics
  if (!statics) throw partMissing('dates', `The program uses \`Date.${method}\` (a Date), and this VM was built without Dates`, 'Dates')
  return Object.hasOwn(statics, method) ? statics[method] : undefined
}
