/**
 * A value shared by every copy of the VM in one JavaScript realm, under a registered symbol
 * (`Symbol.for('ajs-lang.<name>')`): an opt-in part (schema, regex, hash, texts), a runtime library
 * or the seed dialect may be bundled apart from the VM that uses it (two browser scripts, or a host
 * that bundles its own copy), and what one copy registers must reach the others.
 */
export function processSlot<T extends object>(name: string, init: () => T): T {
  const g = globalThis as Record<symbol, T | undefined>
  return (g[Symbol.for(`ajs-lang.${name}`)] ??= init())
}
