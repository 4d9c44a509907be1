/** The "ajs/1" wire format: types, vocabulary table, validation, walker. */
export * from './types.ts'
export { CORE_OPS, DECL_KINDS, EXPR_KINDS, FORBIDDEN_NAMES, IDENTIFIER, OPERATORS } from './nodes.ts'
export type { FieldKind, FieldSpec, OpSpec, OpCategory, ExprSpec } from './nodes.ts'
export { AJS_SCHEMA, buildAjsSchema } from './schema.ts'
export { walk, exprChildren, stepChildren, exprsOf, type Visitor, type AstPath } from './walk.ts'
