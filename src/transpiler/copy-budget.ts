/**
 * How much source text the transpiler may write out again: copies of helpers given functions
 * (function-arguments.ts), the functions factories make, at their calls (function-factories.ts), a
 * table's functions at a computed call (function-tables.ts). Four characters per source character,
 * at least 64 K: a program stays a few times its source, never the product of two of its sizes.
 */
export const copyBudget = (source: string): number => Math.max(65_536, source.length * 4)
