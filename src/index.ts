/**
 * ajs-lang: the public API. Re-exports only.
 */
export * from './ast/index.ts'
