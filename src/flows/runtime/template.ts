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

/** The most characters a filled template may have (4 MiB of text: far beyond any prompt). */
export const MAX_TEMPLATE_CHARS = 4 * 1024 * 1024

/**
 * Fill a template; a missing `{{name}}` throws with `missing` set to its name.
 * Pay first (issue 23, class 4): each distinct placeholder's text is made once,
 * the filled length is summed before anything is joined, and `pay(chars)` is
 * called with it (the caller charges fuel) before the result is built; a
 * result over MAX_TEMPLATE_CHARS throws with `tooLong` set instead.
 */
export function renderTemplate(template: string, input: unknown, initial: unknown, pay?: (chars: number) => void): string {
  const texts = new Map<string, string | null>()
  const pieces: string[] = []
  let length = 0
  let last = 0
  for (const m of template.matchAll(PLACEHOLDER)) {
    const [whole, double, single] = m
    const name = (double ?? single)!
    let text = texts.get(name)
    if (text === undefined) {
      const parts = name.split('.')
      const hit = parts[0] === 'initial' ? lookup(initial, parts.slice(1)) : lookup(input, parts)
      if (!hit.found && double !== undefined) {
        throw Object.assign(new Error(`{{${name}}} is not in the block's ${parts[0] === 'initial' ? 'global input' : 'input'}`), { missing: name })
      }
      text = hit.found ? show(hit.value) : null
      texts.set(name, text)
    }
    const piece = text ?? whole
    pieces.push(template.slice(last, m.index), piece)
    length += m.index - last + piece.length
    last = m.index + whole.length
    if (length > MAX_TEMPLATE_CHARS) break
  }
  length += template.length - last
  if (length > MAX_TEMPLATE_CHARS) {
    throw Object.assign(new Error(`the filled template would be over ${MAX_TEMPLATE_CHARS} characters (a placeholder repeated over a large value?)`), { tooLong: length })
  }
  pay?.(length)
  pieces.push(template.slice(last))
  return pieces.join('')
}
