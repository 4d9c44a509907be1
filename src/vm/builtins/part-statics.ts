/**
 * Namespace statics that are an opt-in part: `Date`'s (`new Date(...)` lowers to `Date.time(...)`, each
 * Date method to a `Date` static of its name; builtins/dates.ts, `ajs-lang/vm/dates`), `Map`'s (a Map
 * variable's methods; builtins/maps.ts, `ajs-lang/vm/maps`) and the `Set` statics of a Set variable's methods
 * (builtins/set-vars.ts, the same part; the core has the other `Set.*` helpers). A part registers its statics here when
 * imported, so `ajs-lang/vm` stays small; the full entry, `ajsc`, the server and the Python and flow
 * entries import every part. Without it a program naming a static the core lacks is refused when it is
 * compiled, with FEATURE_MISSING naming the import (`Date.now`, `Date.parse`, `Date.UTC`,
 * `Date.toISOString` are core).
 */
import type { Run } from '../runtime.ts'
import { partMissing } from '../atoms/part-hook.ts'
import { processSlot } from '../process-slot.ts'

type Static = (rt: Run, args: any[]) => unknown

/** The namespaces whose statics a part supplies: the part's import name, and what it runs, for the refusal. */
const PARTS: Readonly<Record<string, readonly [part: string, what: string]>> = { Date: ['dates', 'Dates'], Map: ['maps', 'Maps'], Set: ['maps', 'Sets'] }

const slot = processSlot<Record<string, Readonly<Record<string, Static>> | undefined>>('vm.part-statics', () => ({}))

/** Called by a part when it is imported. */
export function registerStatics(namespace: string, statics: Readonly<Record<string, Static>>): void {
  slot[namespace] = statics
}

/**
 * The static `method` of `namespace` that a part supplies (undefined when the part has none of that name,
 * or no part supplies the namespace), or the refusal naming the part when it is not imported.
 */
export function partStatic(namespace: string, method: string): Static | undefined {
  const part = Object.hasOwn(PARTS, namespace) ? PARTS[namespace] : undefined
  if (!part) return undefined
  const statics = slot[namespace]
  if (!statics) throw partMissing(part[0], `The program uses \`${namespace}.${method}\` (a ${namespace}), and this VM was built without ${part[1]}`, part[1])
  return Object.hasOwn(statics, method) ? statics[method] : undefined
}
