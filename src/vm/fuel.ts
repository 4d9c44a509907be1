/**
 * Fuel policy, in one place.
 *
 * Fuel is counted in integer micro-fuel (1 fuel = 1,000,000 units) so that
 * totals are exact and identical on every machine. Charges:
 * - every expression node evaluated: 0.01 (so `a + b` costs 0.03);
 * - every language step executed (declarations, assignments, if, return, ...)
 *   and every loop iteration: 0.01;
 * - library atoms: their cost from ATOM_COSTS (default 1), capability atoms more;
 * - allocation: strings 0.00001 per character, arrays/objects 0.0001 per element
 *   or property created by an operation, checked against `maxHeapBytes` before
 *   the value is built (SLOT_BYTES / PROP_BYTES / ENTRY_BYTES per item);
 * - native scans: 0.00001 per element or character a builtin reads
 *   (SCAN_COST), charged before the native call runs.
 * Costs are summed at compile time and charged per basic block: when a block
 * (a list of steps) is entered it is charged the static cost of all its steps
 * (STEP_COST each plus the expression nodes each step always evaluates);
 * branches (`&&`, `?:`, `?.`, taken `if` arms, loop iterations, lambda and
 * helper bodies) are charged when taken. So an expression costs exactly 0.01
 * per node, and a block that ends early (return, break, throw) is still
 * charged in full: deterministic, and one meter update per block instead of
 * one per node.
 */

export const UNIT = 1_000_000
export const NODE_COST = 10_000 // 0.01 fuel
export const STEP_COST = 10_000
export const ITERATION_COST = 10_000
export const CHAR_COST = 10 // 0.00001 fuel per character allocated
export const SLOT_COST = 100 // 0.0001 fuel per element/property allocated
/** 0.00001 fuel per element or character a builtin reads in one native call (includes, indexOf, Set.has, sort, ...). */
export const SCAN_COST = 10
/** 0.5 fuel: making a regex from a text at run time (`regexMatch`'s cost, and `new RegExp(p)`'s with REGEX_CHAR_COST). */
export const REGEX_MAKE_COST = 500_000
/** 0.001 fuel per character of a pattern `new RegExp(p)` makes at run time (its check reads it several times), beyond regexMatch's cost per regex. */
export const REGEX_CHAR_COST = 1_000
/** Heap estimate (bytes) of one array slot, one object property, one `[key, value]` pair: what `maxHeapBytes` is checked against. */
/** 0.0001 fuel per character of source text a run is given (`vm.run(source)`), charged on every such run. */
export const SOURCE_CHAR_COST = 100
export const SLOT_BYTES = 8
export const PROP_BYTES = 48
export const ENTRY_BYTES = 56

/** Default cost (in fuel) of atoms that are not language steps. */
export const DEFAULT_ATOM_COST = 1

/** Documented atom costs in fuel. Language steps cost STEP_COST and are listed as 0.01. */
export const ATOM_COSTS: Record<string, number> = {
  // language steps
  seq: 0.01, scope: 0.01, if: 0.01, while: 0.01, doWhile: 0.01, for: 0.01, forOf: 0.01, forIn: 0.01,
  switch: 0.01, break: 0.01, continue: 0.01, return: 0.01, throw: 0.01, try: 0.01, expr: 0.01,
  varSet: 0.01, constSet: 0.01, varsLet: 0.01, varGet: 0.01, varsImport: 0.01, varsExport: 0.01,
  destructure: 0.01, parallel: 0.1, Error: 0.01,
  // pure library atoms
  map: 0.1, filter: 0.1, reduce: 0.1, find: 0.1, push: 0.01, len: 0.01, split: 0.1, join: 0.1,
  pick: 0.1, omit: 0.1, merge: 0.1, keys: 0.1, template: 0.1, regexMatch: REGEX_MAKE_COST / UNIT,
  jsonParse: 0.1, jsonStringify: 0.1, random: 0.1, uuid: 0.1, hash: 0.5,
  memoize: 0.1, cache: 1, consoleLog: 0.1, consoleWarn: 0.1, consoleError: 0.1,
  // capability atoms
  httpFetch: 10, storeGet: 1, storeSet: 2, storeQuery: 5, storeVectorSearch: 10, llmPredict: 100,
  agentRun: 10,
  // procedures (plus per-byte / per-item parts charged by the atoms)
  storeProcedure: 1, releaseProcedure: 0.5, clearExpiredProcedures: 0.5,
}

/** Convert a fuel amount (possibly fractional) to integer micro-fuel. */
export const toUnits = (fuel: number): number => Math.round(fuel * UNIT)

/** Convert micro-fuel back to fuel (exact for the amounts we produce). */
export const fromUnits = (units: number): number => units / UNIT
