/** The "ajs/1" wire format: types, vocabulary table, validation. */
export * from './types.ts'
export { CORE_OPS, EXPR_KINDS, FORBIDDEN_NAMES, IDENTIFIER } from './nodes.ts'
export type { FieldKind, FieldSpec, OpSpec, OpCategory, ExprSpec } from './nodes.ts'
export { AJS_SCHEMA, buildAjsSchema } from './schema.ts'
