/**
 * OpenAI-style tool definitions from atom and agent schemas, so an LLM can
 * be offered a VM's atoms, or whole agents, as callable tools.
 */
import type { AjsProgram } from '../ast/types.ts'
import type { AtomDef } from './atoms/types.ts'

export interface ToolDefinition {
  type: 'function'
  function: {
    name: string
    description: string
    parameters: Record<string, unknown>
  }
}

function fieldsSchema(def: AtomDef): Record<string, unknown> {
  if (def.inputSchema) return def.inputSchema
  const properties: Record<string, unknown> = {}
  const required: string[] = []
  for (const [k, spec] of Object.entries(def.fields)) {
    properties[k] = spec.doc ? { description: spec.doc } : {}
    if (!spec.optional) required.push(k)
  }
  return { type: 'object', properties, required }
}

export function atomTools(atoms: Iterable<AtomDef>): ToolDefinition[] {
  const out: ToolDefinition[] = []
  for (const def of atoms) {
    if (def.expression === false) continue
    out.push({ type: 'function', function: { name: def.op, description: def.docs ?? def.op, parameters: fieldsSchema(def) } })
  }
  return out
}

/** Tool definitions for agents: `{ name: ast }` → one tool per agent, from its inputSchema. */
export function getToolDefinitions(agents: Record<string, AjsProgram>): ToolDefinition[] {
  return Object.entries(agents).map(([name, ast]) => ({
    type: 'function' as const,
    function: {
      name,
      description: ast.description ?? ast.name ?? name,
      parameters: ast.inputSchema ?? { type: 'object', properties: {} },
    },
  }))
}
