/**
 * What the text of a top-level function's body shows, tested once per function: three source
 * rewrites ask it of the same bodies before anything is built, and each test is a regex pass over
 * every body (function-arguments.ts: may it declare a local function? function-tables.ts: a
 * function under a key? local-functions.ts: either). On a 260-line agent the repeated passes were
 * ~2% of a transpile. A body's text is its source slice, which no rewrite changes (a rewritten
 * function is marked in LowerContext.rewrittenFunctions, and looked into whatever its text shows).
 */
import type { FunctionDeclaration } from 'acorn'
import type { LowerContext } from './context.ts'

/** A local function declared: `function`, or `= (...) =>`, `= x =>`, `= async` after a name. */
const DECLARES_LOCAL = /\bfunction\b|[^=!<>]=\s*(?:async\b|\((?:[^()]|\([^()]*\))*\)\s*=>|[^\s=(),;]+\s*=>)/

/** A function under a key, `k: (…) =>`, `k: x =>`, `k: async`, `k: function` (an object of functions, function-tables.ts). */
const FUNCTION_UNDER_KEY = /:\s*(?:async\b|function\b|\((?:[^()]|\([^()]*\))*\)\s*=>|[^\s=(),;:]+\s*=>)/

/** What was found in one body's text (undefined: not tested yet). */
export interface BodyTextTests { local?: boolean; keyed?: boolean }

/**
 * The tests of `fn`'s body, kept on the transpile's context by where the body is in the source (the
 * answer depends on nothing else): a WeakMap keyed by a fresh node makes V8 give the node an identity
 * hash (~0.6 µs a function in a profile of a 12-line agent).
 */
function entry(ctx: LowerContext, fn: FunctionDeclaration): BodyTextTests {
  const tests = (ctx.bodyTextTests ??= new Map())
  const key = fn.body.start * (ctx.source.length + 1) + fn.end
  let t = tests.get(key)
  if (t === undefined) tests.set(key, (t = {}))
  return t
}

/** The text of `fn`'s body (a slice: V8 shares the source's characters). */
export const bodyText = (source: string, fn: FunctionDeclaration): string => source.slice(fn.body.start + 1, fn.end)

/** A body with neither `=>` nor `function` declares no function: two literal searches, before any pattern or cache. */
const mayHoldFunction = (text: string): boolean => text.includes('=>') || text.includes('function')

/**
 * Whether `fn`'s body may declare a local function: a declaration's start in its text. A comment
 * inside a declaration, or parameters nesting parentheses three deep, hide it from this test: such
 * a function is then refused as before (AJS2013).
 */
export function mayDeclareLocal(ctx: LowerContext, fn: FunctionDeclaration): boolean {
  const text = bodyText(ctx.source, fn)
  if (!mayHoldFunction(text)) return false
  const t = entry(ctx, fn)
  return (t.local ??= DECLARES_LOCAL.test(text))
}

/** Whether `fn`'s body may hold an object of functions: a function under a key in its text. */
export function mayHoldFunctionUnderKey(ctx: LowerContext, fn: FunctionDeclaration): boolean {
  const text = bodyText(ctx.source, fn)
  if (!mayHoldFunction(text)) return false
  const t = entry(ctx, fn)
  return (t.keyed ??= FUNCTION_UNDER_KEY.test(text))
}
