/**
 * JavaScript's methods of two Sets (ES2025) that give a new Set: they lower to `Set.merge` (lower/set-vars.ts),
 * and a name given one holds a Set (collection-params.ts, by the program's text and by its nodes).
 */
export const SET_MERGE_METHODS = ['union', 'intersection', 'difference', 'symmetricDifference'] as const

export const SET_MERGES: ReadonlySet<string> = new Set(SET_MERGE_METHODS)
