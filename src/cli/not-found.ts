/**
 * CLI_NOT_FOUND with a suggestion: a typo in a path (`exmaples/helo.ajs`)
 * is the most common way to meet it, so the hint names the nearest path that
 * exists, written as the user wrote theirs (relative stays relative).
 */
import { existsSync, readdirSync } from 'node:fs'
import { isAbsolute, join, normalize, parse, sep } from 'node:path'
import { closest } from '../diagnostics/suggest.ts'
import { CLI_CODES } from '../diagnostics/cli-codes.ts'

/** The existing path nearest to `path` (absolute): each missing segment replaced by its closest sibling. */
export function nearestPath(path: string): string | undefined {
  const root = parse(path).root
  const segments = path.slice(root.length).split(sep).filter(Boolean)
  let at = root
  let changed = false
  for (const segment of segments) {
    const next = join(at, segment)
    if (existsSync(next)) { at = next; continue }
    let names: string[]
    try { names = readdirSync(at) } catch { return undefined }
    const near = closest(segment, names)
    if (near === undefined) return undefined
    at = join(at, near)
    changed = true
  }
  return changed ? at : undefined
}

/** The existing path nearest to a missing `path`, written as `shown` (the path as typed) was: relative stays relative. */
export function suggestPath(path: string, shown: string): string | undefined {
  const near = nearestPath(path)
  if (near === undefined) return undefined
  const typed = normalize(shown)
  // Relative as typed: the suggestion keeps as many trailing segments as the typed path had.
  if (isAbsolute(shown) || typed.split(sep).includes('..')) return near
  const kept = near.split(sep).slice(-typed.split(sep).filter((s) => s !== '.').length).join(sep)
  return shown.startsWith(`.${sep}`) ? `.${sep}${kept}` : kept
}

/** The hint of CLI_NOT_FOUND for `shown` (the path as typed) of a missing `path`: "did you mean" when a near path exists. */
export function notFoundHint(path: string, shown: string): string {
  const near = suggestPath(path, shown)
  return near === undefined ? CLI_CODES.CLI_NOT_FOUND.hint : `Did you mean ${near}? (paths are resolved from the working directory)`
}
