/**
 * Prompt templates of `llm` blocks (Block Runtime Contract): `{{field}}`
 * reads the block's pipeline input, `{{initial.field}}` the flow's global
 * input, and dotted paths go deeper (`{{user.name}}`). The single-brace form
 * `{field}` that people also write is accepted, but only where it names
 * something: prompts often contain literal braces (JSON examples), so an
 * unresolved `{x}` stays as written while an unresolved `{{x}}` is an error.
 */

const PLACEHOLDER = /\{\{\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\}\}|\{([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\}/g

/** Own-property lookup along a dotted path (never the prototype chain). */
function lookup(root: unknown, path: string[]): { found: boolean; value?: unknown } {
  let v = root
  for (const key of path) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, key)) return { found: false }
    v = (v as Record<string, unknown>)[key]
  }
  return { found: true, value: v }
}

const show = (v: unknown): string => typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v)

export interface TemplateVariable { name: string; double: boolean }

/** The variables a template names, in order. */
export function templateVariables(template: string): TemplateVariable[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => ({ name: (m[1] ?? m[2])!, double: m[1] !== undefined }))
}

/** Fill a template; a missing `{{name}}` throws with `missing` set to its name. */
export function renderTemplate(template: string, input: unknown, initial: unknown): string {
  return template.replace(PLACEHOLDER, (whole, double: string | undefined, single: string | undefined) => {
    const name = (double ?? single)!
    const parts = name.split('.')
    const hit = parts[0] === 'initial' ? lookup(initial, parts.slice(1)) : lookup(input, parts)
    if (hit.found) return show(hit.value)
    if (double === undefined) return whole
    throw Object.assign(new Error(`{{${name}}} is not in the block's ${parts[0] === 'initial' ? 'global input' : 'input'}`), { missing: name })
  })
}
