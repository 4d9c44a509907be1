// Where things live. The workloads are vendored in bench/workloads (a copy of
// the ones shared between projects, so a clone benchmarks on its own);
// AJS_BENCH_WORKLOADS overrides that.
import { fileURLToPath } from 'node:url'
import { dirname, join, resolve } from 'node:path'

export const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const repoDir = resolve(benchDir, '..')
export const buildDir = join(benchDir, '.build')
export const resultsDir = join(benchDir, 'results')
export const workloadsDir = resolve(
  process.env.AJS_BENCH_WORKLOADS ?? join(benchDir, 'workloads'),
)
export const workloadsIndex = join(workloadsDir, 'index.mjs')
// Bundles of our TypeScript, made by build.mjs (Node cannot import .ts).
export const oursBundle = join(buildDir, 'ajs.mjs')
export const oursVmBundle = join(buildDir, 'ajs-vm.mjs')
// Minified like the shipped dist/ (self-contained, dependencies inlined): what
// a user's cold `import` parses. The cold-start section uses these.
export const oursBundleMin = join(buildDir, 'ajs.min.mjs')
export const oursVmBundleMin = join(buildDir, 'ajs-vm.min.mjs')
// The code cache of ajs-lang/vm/cached (src/host/code-cache.ts), and the folder of its caches.
export const oursCodeCache = join(buildDir, 'ajs-code-cache.min.mjs')
export const codeCacheDir = join(buildDir, 'code-cache')

import { readFileSync } from 'node:fs'

/** Version of a package installed for the bench (or at the root as fallback). */
export function pkgVersion(name) {
  for (const base of [join(benchDir, 'node_modules'), join(repoDir, 'node_modules')]) {
    try {
      return JSON.parse(readFileSync(join(base, name, 'package.json'), 'utf8')).version
    } catch {}
  }
  return 'unknown'
}
