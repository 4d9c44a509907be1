/**
 * A value as `ajsc eval -p` and `ajsc repl` print it: JSON laid out as JSON.stringify(v, null, 2)
 * does, except for what JSON cannot say and would print wrong: NaN, Infinity, -Infinity and -0 as
 * JavaScript writes them (JSON gives null and 0), and undefined where it stands (JSON gives null in
 * an array and leaves an object's key out). Someone trying the language sees what it computed.
 */
export function valueText(value: unknown, indent = ''): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value)
  if (value === undefined) return 'undefined'
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? String(value)
  const inner = `${indent}  `
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    return `[\n${Array.from(value, (v) => inner + valueText(v, inner)).join(',\n')}\n${indent}]`
  }
  const keys = Object.keys(value)
  if (keys.length === 0) return '{}'
  return `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${valueText((value as Record<string, unknown>)[k], inner)}`).join(',\n')}\n${indent}}`
}
