/**
 * `validateBlockFlow`: every problem of a Block flow document, each with its
 * rule (see FLOW_RULES), a JSON pointer and a message. Shape and meaning are
 * checked in one pass, in document order (global schema, steps tree,
 * blocks), then the cross-references (unknown steps, blocks without a step,
 * duplicate ids). Never throws, whatever the value.
 */
import { problem, type FlowProblem } from '../problems.ts'
import { FIELD_TYPES } from '../runtime/llm.ts'
import { templateVariables } from '../runtime/template.ts'
import { CONTAINER_TYPES, FIELD_NAME, PROCESSOR_TYPES, type BlockField } from './model.ts'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const describe = (v: unknown): string => v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`
const at = (base: string, key: string | number): string => `${base}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`
const FORBIDDEN_IDS = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * How deep containers may nest. The tree is walked by recursion here and when compiling: 10,000
 * levels overflowed the host stack (a RangeError, no rule). Each level is two levels of the
 * program's AST, so past ~490 a VM with the default limits refuses the program anyway (AST_TOO_DEEP).
 */
export const MAX_CONTAINER_NESTING = 400

class Checker {
  readonly out: FlowProblem[] = []
  /** Step references in tree order: id → pointers. */
  readonly refs = new Map<string, string[]>()
  readonly containerIds = new Map<string, string>()

  add(rule: string, path: string, message: string, hint?: string): void {
    this.out.push(problem(rule, path, message, hint))
  }

  optionalString(obj: Record<string, unknown>, key: string, path: string): void {
    if (obj[key] !== undefined && typeof obj[key] !== 'string') this.add('WrongType', at(path, key), `"${key}" must be a string, not ${describe(obj[key])}`)
  }

  /** A schema node `{ fields: [...] }`; returns the valid field names. */
  schema(value: unknown, path: string, what: string): string[] | undefined {
    if (value === undefined) return undefined
    if (!isObject(value)) { this.add('WrongType', path, `${what} must be an object { "fields": [...] }, not ${describe(value)}`); return undefined }
    const fields = value['fields']
    if (fields === undefined) { this.add('MissingField', at(path, 'fields'), `${what} needs "fields" (a list of { "name": … })`); return undefined }
    if (!Array.isArray(fields)) { this.add('WrongType', at(path, 'fields'), `"fields" must be a list, not ${describe(fields)}`); return undefined }
    const names: string[] = []
    // A Set beside the list: a schema of k fields was k² comparisons (80,000 fields took 15 s).
    const seen = new Set<string>()
    fields.forEach((f: unknown, i) => {
      const fp = at(at(path, 'fields'), i)
      if (!isObject(f)) return this.add('WrongType', fp, `a field must be an object { "name": … }, not ${describe(f)}`)
      const field = f as BlockField
      if (field.name === undefined) return this.add('MissingField', at(fp, 'name'), 'a field needs a "name"')
      if (typeof field.name !== 'string') return this.add('WrongType', at(fp, 'name'), `"name" must be a string, not ${describe(field.name)}`)
      if (!FIELD_NAME.test(field.name) || FORBIDDEN_IDS.has(field.name)) {
        this.add('InvalidFieldName', at(fp, 'name'), `field name ${JSON.stringify(field.name)} is not a name (letters, digits and "_", not starting with a digit)`,
          `rename it, e.g. ${JSON.stringify(field.name.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^(?=\d)/, '_') || 'field')}`)
      } else if (seen.has(field.name)) {
        this.add('DuplicateFieldName', at(fp, 'name'), `field "${field.name}" appears twice in ${what}`)
      }
      if (!seen.has(field.name)) {
        seen.add(field.name)
        names.push(field.name)
      }
      if (field.type !== undefined && (typeof field.type !== 'string' || !Object.hasOwn(FIELD_TYPES, field.type))) {
        this.add('UnknownFieldType', at(fp, 'type'), `field "${field.name}": type ${JSON.stringify(field.type)} is not one of ${Object.keys(FIELD_TYPES).join(', ')}`)
      }
      this.optionalString(field, 'description', fp)
      if (field.required !== undefined && typeof field.required !== 'boolean') this.add('WrongType', at(fp, 'required'), '"required" must be true or false')
    })
    return names
  }

  step(node: unknown, path: string, depth = 1): void {
    if (typeof node === 'string') {
      const list = this.refs.get(node)
      if (list) list.push(path)
      else this.refs.set(node, [path])
      return
    }
    if (!isObject(node)) return this.add('WrongType', path, `a step must be a block id (string) or a container { "type": "h" | "v" | "loop", "children": [...] }, not ${describe(node)}`)
    if (depth > MAX_CONTAINER_NESTING) {
      return this.add('NestedTooDeep', path, `containers nest deeper than ${MAX_CONTAINER_NESTING} levels here`, 'flatten the steps: a container whose only child is another container of the same type can be that one container')
    }
    const type = node['type']
    if (type === undefined) this.add('MissingField', at(path, 'type'), 'a container needs "type": "h", "v" or "loop"')
    else if (!(CONTAINER_TYPES as readonly unknown[]).includes(type)) {
      this.add('UnknownContainerType', at(path, 'type'), `container type ${JSON.stringify(type)} is not "h" (sequential), "v" (parallel) or "loop"`)
    }
    const cid = node['id']
    if (cid !== undefined) {
      if (typeof cid !== 'string') this.add('WrongType', at(path, 'id'), `"id" must be a string, not ${describe(cid)}`)
      else if (cid === '' || FORBIDDEN_IDS.has(cid)) this.add('InvalidStepId', at(path, 'id'), `${JSON.stringify(cid)} cannot be a step id`)
      else if (this.containerIds.has(cid)) this.add('DuplicateStepId', at(path, 'id'), `container id "${cid}" is used twice`)
      else this.containerIds.set(cid, at(path, 'id'))
    }
    const arrayField = node['arrayField'] ?? node['array_field']
    const arrayKey = node['arrayField'] !== undefined ? 'arrayField' : 'array_field'
    if (type === 'loop') {
      if (arrayField === undefined) this.add('MissingArrayField', path, 'a loop needs "arrayField": the input key holding the list to iterate')
      else if (typeof arrayField !== 'string' || arrayField === '') this.add('WrongType', at(path, arrayKey), '"arrayField" must be a non-empty string')
    } else if (arrayField !== undefined && typeof type === 'string') {
      this.add('WrongType', at(path, arrayKey), `"${arrayKey}" belongs on loops, not on a "${type}" container`)
    }
    const children = node['children']
    if (children === undefined) return this.add('MissingField', at(path, 'children'), 'a container needs "children" (a list of steps)')
    if (!Array.isArray(children)) return this.add('WrongType', at(path, 'children'), `"children" must be a list, not ${describe(children)}`)
    if (children.length === 0) this.add('EmptyContainer', at(path, 'children'), `this ${typeof type === 'string' ? `"${type}" ` : ''}container has no children`, 'add a step, or remove the container')
    children.forEach((c, i) => this.step(c, at(at(path, 'children'), i), depth + 1))
  }

  block(id: string, block: unknown, path: string, globals: string[] | undefined): void {
    if (id === '' || FORBIDDEN_IDS.has(id)) this.add('InvalidStepId', path, `${JSON.stringify(id)} cannot be a step id`)
    if (!isObject(block)) return this.add('WrongType', path, `block "${id}" must be an object, not ${describe(block)}`)
    const type = block['processor_type']
    if (type === undefined) this.add('MissingField', at(path, 'processor_type'), `block "${id}" needs "processor_type": "llm", "code" or "passthrough"`)
    else if (!(PROCESSOR_TYPES as readonly unknown[]).includes(type)) {
      this.add('UnknownProcessorType', at(path, 'processor_type'), `block "${id}": processor_type ${JSON.stringify(type)} is not "llm", "code" or "passthrough"`)
    }
    for (const key of ['name', 'description', 'model', 'prompt', 'content']) this.optionalString(block, key, path)
    if (block['config'] !== undefined && !isObject(block['config'])) this.add('WrongType', at(path, 'config'), `"config" must be an object, not ${describe(block['config'])}`)
    const inputs = this.schema(block['input_schema'], at(path, 'input_schema'), `the input_schema of "${id}"`)
    const outputs = this.schema(block['output_schema'], at(path, 'output_schema'), `the output_schema of "${id}"`)
    if (type === 'llm') {
      const promptKey = block['prompt'] !== undefined ? 'prompt' : 'content'
      const prompt = block[promptKey]
      if (typeof prompt !== 'string' || prompt.trim() === '') this.add('MissingPrompt', at(path, 'prompt'), `llm block "${id}" needs a "prompt"`)
      else this.templates(prompt, at(path, promptKey), id, inputs, globals)
      if (outputs === undefined || outputs.length === 0) {
        this.add('MissingOutputSchema', at(path, 'output_schema'), `llm block "${id}" needs output_schema fields: its output is a dict of them`,
          'add "output_schema": { "fields": [{ "name": "answer", "type": "string" }] }')
      }
    } else if (type === 'code') {
      const body = block['content']
      if (typeof body !== 'string' || body.trim() === '') {
        this.add('MissingCodeBody', at(path, 'content'), `code block "${id}" needs "content": the Python function body`, 'write the body only, ending in `return { … }`; the runtime writes the `def`')
      }
      if (inputs?.includes('initial')) {
        const i = (block['input_schema'] as { fields: BlockField[] }).fields.findIndex((f) => f.name === 'initial')
        this.add('ReservedFieldName', at(at(at(path, 'input_schema'), 'fields'), i), `code block "${id}": an input field cannot be named "initial" (the wrapper's first parameter)`)
      }
    }
  }

  templates(prompt: string, path: string, id: string, inputList: string[] | undefined, globalList: string[] | undefined): void {
    const inputs = inputList && new Set(inputList)
    const globals = globalList && new Set(globalList)
    for (const v of templateVariables(prompt)) {
      if (!v.double) continue
      const [head, next] = v.name.split('.')
      const known = head === 'initial' ? (next === undefined || globals === undefined || globals.has(next)) : (inputs === undefined || inputs.has(head!))
      if (!known) {
        const where = head === 'initial' ? 'global_input_schema' : 'input_schema'
        this.add('UnknownTemplateVariable', path, `llm block "${id}": {{${v.name}}} is not a field of the ${where}`, `add "${head === 'initial' ? next : head}" to the ${where}, or fix the name`)
      }
    }
  }
}

/** Every problem of a Block flow document (an empty array when it is valid). */
export function validateBlockFlow(value: unknown): FlowProblem[] {
  const c = new Checker()
  if (!isObject(value)) {
    c.add('WrongType', '', `a Block flow must be a JSON object, not ${describe(value)}`)
    return c.out
  }
  c.optionalString(value, 'name', '')
  c.optionalString(value, 'description', '')
  const globals = c.schema(value['global_input_schema'], '/global_input_schema', 'the global_input_schema')
  if (value['steps'] === undefined) c.add('MissingField', '/steps', 'a Block flow needs "steps": the root container (or a list, run in sequence)')
  else if (Array.isArray(value['steps'])) {
    if (value['steps'].length === 0) c.add('EmptyContainer', '/steps', 'the flow has no steps')
    value['steps'].forEach((s, i) => c.step(s, `/steps/${i}`))
  } else c.step(value['steps'], '/steps')
  const blocks = value['blocks']
  if (blocks === undefined) c.add('MissingField', '/blocks', 'a Block flow needs "blocks": { "<step id>": { "processor_type": … } }')
  else if (!isObject(blocks)) c.add('WrongType', '/blocks', `"blocks" must be an object keyed by step id, not ${describe(blocks)}`)
  else for (const [id, block] of Object.entries(blocks)) c.block(id, block, at('/blocks', id), globals)
  const blockIds = isObject(blocks) ? new Set(Object.keys(blocks)) : new Set<string>()
  for (const [ref, paths] of c.refs) {
    if (!blockIds.has(ref)) for (const p of paths) c.add('UnknownStep', p, `step "${ref}" has no block in "blocks"`, `add "blocks": { "${ref}": { "processor_type": … } }, or fix the reference`)
    for (const p of paths.slice(1)) c.add('DuplicateStepId', p, `block "${ref}" is referenced more than once (first at ${paths[0]})`, 'copy the block under a new id; every step has its own block')
  }
  for (const [cid, p] of c.containerIds) if (blockIds.has(cid)) c.add('DuplicateStepId', p, `container id "${cid}" is also a block id`)
  for (const id of blockIds) {
    if (!c.refs.has(id)) c.add('BlockWithoutStep', at('/blocks', id), `block "${id}" is not used by any step`, `reference "${id}" in the steps tree, or delete the block`)
  }
  return c.out
}
