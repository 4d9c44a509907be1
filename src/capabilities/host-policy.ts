/**
 * Host allowlists for the fetch capability.
 *
 * Patterns are normalised once, when the capability is created, with the same
 * WHATWG URL parser that normalises request URLs, so `0x7f.1`, `127.0.0.1` and
 * `EXAMPLE.com.` compare equal to what a request URL turns into.
 *
 * Pattern forms:
 * - `'*'`              any host (private addresses are still refused)
 * - `'*.example.com'`  any subdomain of example.com, not example.com itself
 * - `'api.example.com'`, `'127.0.0.1'`, `'[::1]'` / `'::1'`  exactly that host
 */

import { fail } from './errors.ts'

/** A compiled host allowlist. */
export interface HostMatcher {
  /** True when the (URL-normalised) host name is allowed. */
  matches(host: string): boolean
  /** The normalised patterns, for messages and docs. */
  readonly patterns: readonly string[]
}

/** Lowercase, strip one trailing dot and IPv6 brackets: the form patterns are compared in. */
export function normalizeHost(host: string): string {
  let h = host.toLowerCase()
  if (h.endsWith('.')) h = h.slice(0, -1)
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1)
  return h
}

/** Normalise one exact-host pattern through the URL parser (so IP tricks collapse). */
function normalizePattern(pattern: string, optionName: string): string {
  const raw = pattern.includes(':') && !pattern.startsWith('[') ? `[${pattern}]` : pattern
  let parsed: URL
  try {
    parsed = new URL(`http://${raw}/`)
  } catch {
    throw fail('FETCH_OPTIONS', `${optionName}: '${pattern}' is not a valid host`)
  }
  if (parsed.port !== '' || parsed.username !== '' || parsed.pathname !== '/') {
    throw fail('FETCH_OPTIONS', `${optionName}: '${pattern}' must be a bare host name (no port, path or credentials)`)
  }
  return normalizeHost(parsed.hostname)
}

/** Compile an allowlist; throws FETCH_OPTIONS for malformed patterns. */
export function compileHostPatterns(patterns: readonly string[], optionName: string): HostMatcher {
  if (!Array.isArray(patterns) || patterns.some((p) => typeof p !== 'string' || p.length === 0)) {
    throw fail('FETCH_OPTIONS', `${optionName} must be an array of non-empty host patterns`)
  }
  let any = false
  const exact = new Set<string>()
  const suffixes: string[] = []
  for (const p of patterns) {
    if (p === '*') {
      any = true
    } else if (p.startsWith('*.')) {
      const rest = normalizePattern(p.slice(2), optionName)
      if (rest.includes('*')) throw fail('FETCH_OPTIONS', `${optionName}: only one leading '*.' is allowed in '${p}'`)
      suffixes.push(`.${rest}`)
    } else {
      if (p.includes('*')) throw fail('FETCH_OPTIONS', `${optionName}: '*' may only appear as '*' or a leading '*.' in '${p}'`)
      exact.add(normalizePattern(p, optionName))
    }
  }
  const normalized = Object.freeze([...(any ? ['*'] : []), ...suffixes.map((s) => `*${s}`), ...exact])
  return Object.freeze({
    patterns: normalized,
    matches(host: string): boolean {
      const h = normalizeHost(host)
      if (any || exact.has(h)) return true
      return suffixes.some((s) => h.endsWith(s) && h.length > s.length)
    },
  })
}
