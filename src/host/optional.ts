/**
 * The optional peer dependencies of ajs-lang (package.json `peerDependenciesMeta`): the server's
 * and the MCP SDK's. `npm install ajs-lang` does not install them, so the VM, the transpiler and
 * the builder pull only `commander` (for `ajsc`); a feature that needs one loads it on use
 * through `loadOptional`, which turns "Cannot find package" into one message naming every
 * missing package of the feature and the command that installs them (docs/packaging.md).
 */
import { createRequire } from 'node:module'

/** What each feature needs, as the specifiers it imports (a package's root may not be exported). */
export const OPTIONAL_FEATURES = {
  server: {
    what: '`ajsc serve`, `ajsc worker` and ajs-lang/server',
    imports: ['fastify', 'pg', 'graphile-worker'],
  },
  python: {
    what: 'Transpiling Python (ajs-lang/python, flow code blocks)',
    imports: ['@lezer/python'],
  },
  mcp: {
    what: 'MCP (FlowLang tool routing, `ajsc flowlang serve-tools`, --mcp and ajs-lang/codemode mcpAtoms)',
    imports: ['@modelcontextprotocol/sdk/client/index.js', '@modelcontextprotocol/sdk/server/index.js'],
  },
} as const

export type OptionalFeature = keyof typeof OPTIONAL_FEATURES

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`). */
export const packageOf = (spec: string): string => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!)

/** The install command for some packages. */
export function installHint(packages: readonly string[]): string {
  return `npm install ${packages.join(' ')}`
}

/** Thrown when a feature's optional dependency is not installed; `packages` lists every missing one. */
export class MissingDependencyError extends Error {
  override name = 'MissingDependencyError'
  readonly code = 'MISSING_DEPENDENCY'
  constructor(readonly feature: OptionalFeature, readonly packages: string[], readonly hint: string) {
    super(`${OPTIONAL_FEATURES[feature].what} ${packages.length === 1 ? 'needs' : 'need'} ${packages.join(', ')}, ${packages.length === 1 ? 'an optional dependency' : 'optional dependencies'} of ajs-lang that ${packages.length === 1 ? 'is' : 'are'} not installed. Install with: ${hint}`)
  }
}

/** The package named by a module-not-found error, if that is what `e` is. */
export function missingPackageOf(e: unknown): string | undefined {
  const err = e as { code?: string; message?: string } | null
  if (!err || typeof err.message !== 'string') return undefined
  if (err.code !== undefined && err.code !== 'ERR_MODULE_NOT_FOUND' && err.code !== 'MODULE_NOT_FOUND') return undefined
  const m = err.message.match(/Cannot find (?:package|module) '([^']+)'/)
  return m && !m[1]!.startsWith('.') && !m[1]!.startsWith('/') ? packageOf(m[1]!) : undefined
}

/** Which of the feature's packages cannot be resolved from here (where the bundled code lives). */
export function missingFor(feature: OptionalFeature): string[] {
  const missing = new Set<string>()
  const require = createRequire(import.meta.url)
  for (const spec of OPTIONAL_FEATURES[feature].imports) {
    try {
      require.resolve(spec)
    } catch {
      missing.add(packageOf(spec))
    }
  }
  return [...missing]
}

/** Turn a module-not-found error of one of the feature's packages into a MissingDependencyError. */
function explain(feature: OptionalFeature, e: unknown): unknown {
  const pkg = missingPackageOf(e)
  const wanted: readonly string[] = OPTIONAL_FEATURES[feature].imports.map(packageOf)
  if (pkg === undefined || !wanted.includes(pkg)) return e
  const all = missingFor(feature)
  const packages = all.length > 0 ? all : [pkg]
  return new MissingDependencyError(feature, packages, installHint(packages))
}

/** `loadOptional` for a synchronous load (`require`). */
export function loadOptionalSync<T>(feature: OptionalFeature, load: () => T): T {
  try {
    return load()
  } catch (e) {
    throw explain(feature, e)
  }
}

/**
 * Load a module that imports a feature's optional dependencies. A missing one becomes a
 * MissingDependencyError naming all of the feature's missing packages; other errors pass through.
 */
export async function loadOptional<T>(feature: OptionalFeature, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (e) {
    throw explain(feature, e)
  }
}
