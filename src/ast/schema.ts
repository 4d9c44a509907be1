/**
 * The JSON Schema (draft 2020-12) of the "ajs/1" wire format, built from the
 * vocabulary table (CORE_OPS, EXPR_KINDS) so it cannot drift from it.
 * `scripts/gen-schema.ts` writes it to `schema/ajs-1.json` (shipped in the
 * package); a test checks the committed file equals this object.
 *
 * The schema checks structure; `validateAst` additionally checks what JSON
 * Schema cannot say well (non-finite numbers, template quasi counts) and
 * reports every problem with a JSON pointer.
 */
import { ATOM_NAME, CORE_OPS, DECL_KINDS, EXPR_KINDS, FORBIDDEN_NAMES, IDENTIFIER, OPERATORS, type ExprSpec, type FieldSpec, type OpSpec } from './nodes.ts'
import { EXPR_DOCS, fieldDoc, opDoc } from './docs.ts'
import { LIBRARIES, LIBRARY_NAME } from './libraries.ts'

type Schema = Record<string, unknown>

const ref = (name: string): Schema => ({ $ref: `#/$defs/${name}` })

/** A node with a fixed discriminator, its fields, and no other keys. */
function node(tag: '$expr' | '$pattern' | 'op', kind: string, properties: Schema, required: string[], doc?: string): Schema {
  const s: Schema = {
    type: 'object',
    properties: { [tag]: { const: kind }, ...properties },
    required: [tag, ...required],
    additionalProperties: false,
  }
  if (doc) s.description = doc
  return s
}

const loc = { loc: ref('loc') }

/** The schema of one field, from its kind (and for `op` fields its operator set). */
function fieldSchema(fs: FieldSpec): Schema {
  switch (fs.kind) {
    case 'value': return ref('value')
    case 'expr': return ref('expr')
    case 'name': return ref('name')
    case 'names': return { type: 'array', items: ref('name') }
    case 'string': return { type: 'string' }
    case 'steps': return ref('steps')
    case 'branches': return { type: 'array', items: ref('steps') }
    case 'pattern': return ref('pattern')
    case 'bindings': return { type: 'object', propertyNames: ref('name'), additionalProperties: ref('value') }
    case 'cases': return { type: 'array', items: ref('case') }
    case 'declKind': return { enum: [...DECL_KINDS] }
    case 'json': return true as unknown as Schema
    case 'exprs': return { type: 'array', items: ref('expr') }
    case 'items': return { type: 'array', items: ref('exprOrSpread') }
    case 'args': return { type: 'array', items: { anyOf: [ref('expr'), ref('spread'), ref('lambda')] } }
    case 'key': return ref('key')
    case 'keyOrExpr': return { anyOf: [ref('key'), ref('expr')] }
    case 'flag': return { type: 'boolean' }
    case 'strings': return { type: 'array', items: { type: 'string' } }
    case 'regexFlags': return { type: 'string', pattern: '^[gimsuy]*$' }
    case 'patterns': return { type: 'array', items: ref('pattern') }
    case 'properties': return { type: 'array', items: { anyOf: [ref('property'), ref('spread')] } }
    case 'lvalue': return { anyOf: [ref('expr_ident'), ref('expr_member')] }
    case 'assignTarget': return { anyOf: [ref('expr_ident'), ref('expr_member'), ref('patternNode')] }
    case 'op': return { enum: [...OPERATORS[fs.ops!]] }
  }
}

/** One shape per form: its required fields present, every other form's fields absent. */
function formsSchema(forms: NonNullable<OpSpec['forms']>): Schema[] {
  return forms.map((form) => {
    const own = new Set([...form.required, ...(form.optional ?? [])])
    const others = forms.flatMap((f) => [...f.required, ...(f.optional ?? [])]).filter((k) => !own.has(k))
    return { required: [...form.required], not: { anyOf: [...new Set(others)].map((k) => ({ required: [k] })) } }
  })
}

/** Build the schema object. Deterministic: same vocabulary, same JSON. */
export function buildAjsSchema(): Schema {
  const defs: Schema = {}
  const forbidden = [...FORBIDDEN_NAMES]
  defs.name = { type: 'string', pattern: IDENTIFIER.source, not: { enum: forbidden }, description: 'A variable name.' }
  defs.key = { type: 'string', not: { enum: forbidden }, description: 'A property or method name.' }
  defs.loc = { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 2, maxItems: 2, description: '[line (1-based), column (0-based)]' }
  defs.value = {
    description: 'A JSON literal or an $expr node; objects and arrays are templates whose nested $expr nodes are evaluated.',
    anyOf: [
      ref('expr'),
      { type: ['null', 'boolean', 'number', 'string'] },
      { type: 'array', items: ref('value') },
      { type: 'object', not: { required: ['$expr'] }, propertyNames: { not: { enum: forbidden } }, additionalProperties: ref('value') },
    ],
  }
  const exprKinds = Object.keys(EXPR_KINDS)
  const exprSpecs = EXPR_KINDS as Record<string, ExprSpec>
  for (const kind of exprKinds) {
    const spec = exprSpecs[kind]!
    const properties: Schema = {}
    const required: string[] = []
    for (const [field, fs] of Object.entries(spec.fields)) {
      properties[field] = fieldSchema(fs)
      if (!fs.optional) required.push(field)
    }
    const expr = node('$expr', kind, { ...properties, ...loc }, required, EXPR_DOCS[kind])
    if (spec.forms) expr.oneOf = formsSchema(spec.forms)
    defs[`expr_${kind}`] = expr
  }
  defs.expr = {
    description: 'An expression node, discriminated by `$expr`.',
    type: 'object',
    required: ['$expr'],
    oneOf: exprKinds.filter((k) => !exprSpecs[k]!.only).map((k) => ref(`expr_${k}`)),
  }
  defs.spread = ref('expr_spread')
  defs.lambda = ref('expr_lambda')
  defs.exprOrSpread = { anyOf: [ref('expr'), ref('spread')] }
  defs.property = {
    type: 'object',
    properties: { key: { anyOf: [ref('key'), ref('expr')] }, computed: { type: 'boolean' }, value: ref('expr') },
    required: ['key', 'value'],
    additionalProperties: false,
  }
  defs.pattern = { description: 'A binding name or a pattern node.', anyOf: [ref('name'), ref('patternNode')] }
  defs.patternNode = {
    type: 'object',
    required: ['$pattern'],
    oneOf: [ref('pattern_object'), ref('pattern_array'), ref('pattern_default'), ref('pattern_target')],
  }
  defs.pattern_object = node('$pattern', 'object', {
    properties: { type: 'array', items: { type: 'object', properties: { key: { anyOf: [ref('key'), ref('expr')] }, computed: { type: 'boolean' }, value: ref('pattern') }, required: ['key', 'value'], additionalProperties: false } },
    rest: ref('name'),
  }, ['properties'])
  defs.pattern_array = node('$pattern', 'array', {
    elements: { type: 'array', items: { anyOf: [ref('pattern'), { type: 'null' }] } },
    rest: ref('pattern'),
  }, ['elements'])
  defs.pattern_default = node('$pattern', 'default', { target: ref('pattern'), default: ref('expr') }, ['target', 'default'])
  defs.pattern_target = node('$pattern', 'target', { target: { anyOf: [ref('expr_ident'), ref('expr_member')] } }, ['target'])
  defs.case = {
    type: 'object',
    properties: { test: { anyOf: [ref('expr'), { type: 'null' }] }, body: ref('steps') },
    required: ['body'],
    additionalProperties: false,
  }
  const opNames = Object.keys(CORE_OPS)
  for (const op of opNames) {
    const spec = CORE_OPS[op]!
    const properties: Schema = { result: ref('name'), ...loc }
    const required: string[] = []
    for (const [field, fs] of Object.entries(spec.fields)) {
      const doc = fieldDoc(op, field)
      properties[field] = doc ? { ...fieldSchema(fs), description: doc } : fieldSchema(fs)
      if (!fs.optional) required.push(field)
    }
    const step = node('op', op, properties, required, opDoc(op))
    if (spec.forms) {
      // One shape per form: its required fields present, every other form's fields absent.
      step.oneOf = formsSchema(spec.forms)
    }
    defs[`step_${op}`] = step
  }
  defs.step_custom = {
    description: 'A custom atom (defineAtom): every field is a value.',
    type: 'object',
    properties: {
      op: { type: 'string', pattern: ATOM_NAME.source, not: { enum: [...opNames, ...forbidden] } },
      result: ref('name'),
      ...loc,
    },
    required: ['op'],
    additionalProperties: ref('value'),
  }
  defs.step = {
    description: 'A step, discriminated by `op`.',
    type: 'object',
    required: ['op'],
    oneOf: [...opNames.map((op) => ref(`step_${op}`)), ref('step_custom')],
  }
  defs.steps = { type: 'array', items: ref('step') }
  defs.function = {
    type: 'object',
    properties: { params: { type: 'array', items: ref('pattern') }, steps: ref('steps'), ...loc },
    required: ['params', 'steps'],
    additionalProperties: false,
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://ajs-lang.dev/schema/ajs-1.json',
    title: 'AJS program, wire format ajs/1',
    description: 'Generated from src/ast/nodes.ts by scripts/gen-schema.ts. See docs/ast.md.',
    type: 'object',
    properties: {
      ajs: { const: 1 },
      op: { const: 'seq' },
      steps: ref('steps'),
      params: ref('pattern'),
      functions: { type: 'object', propertyNames: ref('name'), additionalProperties: ref('function') },
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object' },
      name: { type: 'string' },
      description: { type: 'string' },
      file: { type: 'string' },
      atoms: { type: 'array', items: { type: 'string', pattern: ATOM_NAME.source, not: { enum: forbidden } }, description: 'Custom (non-core) atoms the program calls.' },
      libraries: {
        type: 'object',
        propertyNames: { pattern: LIBRARY_NAME.source },
        additionalProperties: { type: 'integer', minimum: 1 },
        description: 'Runtime libraries the program calls, name: version (known: ' + Object.keys(LIBRARIES).join(', ') + ').',
      },
      result: ref('name'),
      ...loc,
    },
    required: ['ajs', 'op', 'steps'],
    additionalProperties: false,
    $defs: defs,
  }
}

/** The schema of "ajs/1" as an object (the same as `schema/ajs-1.json`). */
export const AJS_SCHEMA: Readonly<Schema> = buildAjsSchema()
