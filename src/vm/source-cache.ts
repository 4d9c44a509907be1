/**
 * `vm.run(source)`: the transpile step, bounded and metered like the run,
 * and the cache of its results.
 *
 * Transpiling is one synchronous host call that neither fuel nor the
 * deadline can interrupt, so it is bounded before it starts: a source longer
 * than the run's time limit allows (at a conservative transpile speed) or its
 * fuel pays for is refused (TIMEOUT / FUEL_EXHAUSTED), and a transpile that
 * still overran the limit counts as a TIMEOUT. Every run from source is
 * charged per character (SOURCE_CHAR_COST), cache hit or not, so fuel stays
 * deterministic. Only sources whose AST compiled are cached, within an entry
 * and a character budget.
 */
import type { AjsProgram } from '../ast/types.ts'
import { vmError } from './errors.ts'
import { SOURCE_CHAR_COST, toUnits } from './fuel.ts'

/** Slowest transpile speed assumed (characters per ms; measured 500–3,000 on a loaded 2-core machine). */
export const MIN_TRANSPILE_CHARS_PER_MS = 200
export const MAX_CACHED_SOURCES = 256
/** Total characters of source the cache keeps; a longer single source is never cached. */
export const MAX_CACHED_SOURCE_CHARS = 4_000_000
export const MAX_CACHED_SOURCE_LENGTH = 256_000

/** Refuse (before transpiling) a source the run cannot afford; returns the transpile's time budget in ms. */
export function checkSourceBudget(source: string, fuel: number, timeoutMs: number): void {
  if (source.length * SOURCE_CHAR_COST > toUnits(fuel)) {
    throw vmError('FUEL_EXHAUSTED', `Compiling ${source.length} characters of source costs more than the fuel budget (${fuel})`)
  }
  if (source.length > timeoutMs * MIN_TRANSPILE_CHARS_PER_MS) {
    throw vmError('TIMEOUT', `A source of ${source.length} characters cannot be compiled within the run's time limit of ${timeoutMs} ms`)
  }
}

/** Sources that compiled, by text: oldest dropped first when an entry or character budget is full. */
export class SourceCache {
  private readonly map = new Map<string, AjsProgram>()
  private chars = 0

  get(source: string): AjsProgram | undefined {
    return this.map.get(source)
  }

  add(source: string, ast: AjsProgram): void {
    if (source.length > MAX_CACHED_SOURCE_LENGTH || this.map.has(source)) return
    while (this.map.size >= MAX_CACHED_SOURCES || (this.map.size > 0 && this.chars + source.length > MAX_CACHED_SOURCE_CHARS)) {
      const oldest = this.map.keys().next().value!
      this.chars -= oldest.length
      this.map.delete(oldest)
    }
    this.map.set(source, ast)
    this.chars += source.length
  }

  get size(): number {
    return this.map.size
  }
}
