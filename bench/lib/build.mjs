// esbuild bundles of our TypeScript: Node cannot import .ts, and the timing
// runs must happen on Node (the peers' reference figures were taken on Node
// 20). Also measures the shipped bundle sizes (minified, gzip -9).
import { mkdirSync, existsSync, readFileSync, rmSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { buildDir, repoDir, oursBundle, oursVmBundle, oursBundleMin, oursVmBundleMin, oursCodeCache, pkgVersion } from './paths.mjs'

// root: the repo (working tree) or a snapshot of src/ from git (--rev).
const entriesFor = (root) => ({
  full: join(root, 'src', 'index.ts'),
  vm: join(root, 'src', 'vm', 'index.ts'),
})
// A snapshot lives outside the repo: packages resolve from the repo's node_modules.
const nodePaths = [join(repoDir, 'node_modules')]

/**
 * Extract src/ of a git revision into a temp folder, so a committed state can
 * be measured while others edit the working tree. Returns { root, commit }.
 */
export function snapshotRev(rev) {
  const commit = execFileSync('git', ['rev-parse', '--short', `${rev}^{commit}`], { cwd: repoDir, encoding: 'utf8' }).trim()
  const root = join(tmpdir(), `ajs-bench-src-${commit}`)
  rmSync(root, { recursive: true, force: true })
  mkdirSync(root, { recursive: true })
  execFileSync('sh', ['-c', `git archive ${commit} src | tar -x -C "${root}"`], { cwd: repoDir })
  return { root, commit }
}

async function esbuild() {
  try {
    return await import('esbuild')
  } catch {
    throw new Error('esbuild is missing: run `npm install` at the repo root first')
  }
}

/**
 * Bundle src/index.ts (and src/vm/index.ts when present) for Node.
 * Returns { ok, mod?, reason?, vmBundle? } and never throws: the harness
 * keeps going without "ours" when our code is not there or does not build.
 */
export async function buildOurs(root = repoDir) {
  const entries = entriesFor(root)
  // Harness self-test hook: use a prebuilt module (e.g. a stub) instead of src/.
  const override = process.env.AJS_BENCH_OURS
  if (override) return loadOurs(override, override, `override ${override}`)
  const { build } = await esbuild()
  mkdirSync(buildDir, { recursive: true })
  const common = { bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'silent', nodePaths }
  try {
    await build({ ...common, entryPoints: [entries.full], outfile: oursBundle })
  } catch (e) {
    return { ok: false, reason: `src/index.ts does not build: ${firstLine(e)}` }
  }
  let vmBundle
  let vmBundleMin
  if (existsSync(entries.vm)) {
    try {
      await build({ ...common, entryPoints: [entries.vm], outfile: oursVmBundle })
      vmBundle = oursVmBundle
      await build({ ...common, minify: true, entryPoints: [entries.vm], outfile: oursVmBundleMin })
      vmBundleMin = oursVmBundleMin
    } catch {}
  }
  // ajs-lang/vm/cached's code cache (src/host/code-cache.ts), to start the minified VM bundle from a V8 code cache.
  let codeCache
  const codeCacheSrc = join(root, 'src', 'host', 'code-cache.ts')
  if (vmBundleMin && existsSync(codeCacheSrc)) {
    try {
      await build({ ...common, minify: true, entryPoints: [codeCacheSrc], outfile: oursCodeCache })
      codeCache = oursCodeCache
    } catch {}
  }
  let bundleMin
  try {
    await build({ ...common, minify: true, entryPoints: [entries.full], outfile: oursBundleMin })
    bundleMin = oursBundleMin
  } catch {}
  const ours = await loadOurs(oursBundle, vmBundle, oursVersion())
  return ours.ok ? { ...ours, bundleMin, vmBundleMin, codeCache } : ours
}

async function loadOurs(bundle, vmBundle, version) {
  let mod
  try {
    mod = await import(pathToFileURL(bundle).href)
  } catch (e) {
    return { ok: false, reason: `the bundle of src/index.ts fails to load: ${firstLine(e)}` }
  }
  const missing = ['AgentVM', 'transpile'].filter((k) => typeof mod[k] !== 'function')
  if (missing.length) {
    return { ok: false, reason: `src/index.ts does not export ${missing.join(' and ')} yet` }
  }
  return { ok: true, mod, bundle, vmBundle, version }
}

function oursVersion() {
  return JSON.parse(readFileSync(join(repoDir, 'package.json'), 'utf8')).version
}

/** Minified + gzip -9 sizes of the VM entry and the full entry (browser build). */
export async function bundleSizes(root = repoDir) {
  const entries = entriesFor(root)
  const rel = (p) => p.slice(root.length + 1)
  const { build } = await esbuild()
  const out = {}
  for (const [key, entry] of Object.entries(entries)) {
    if (!existsSync(entry)) {
      out[key] = { entry: rel(entry), error: 'entry file does not exist yet' }
      continue
    }
    // Browser first (the VM must run there); an entry that needs Node
    // builtins (e.g. capabilities using node:dns) is measured as a Node build.
    let lastError
    for (const platform of ['browser', 'node']) {
      try {
        const r = await build({
          entryPoints: [entry],
          bundle: true,
          minify: true,
          format: 'esm',
          platform,
          target: platform === 'node' ? 'node20' : 'es2022',
          write: false,
          metafile: true,
          logLevel: 'silent',
          nodePaths,
        })
        const code = r.outputFiles[0].contents
        const packages = [...new Set(Object.keys(r.metafile.inputs).map(pkgOf).filter(Boolean))].sort()
        out[key] = {
          entry: rel(entry),
          platform,
          minBytes: code.length,
          gzipBytes: gzipSync(code, { level: 9 }).length,
          packages,
          composition: composition(r.metafile),
          ...(platform === 'node' ? { note: `not bundleable for browsers: ${firstLine(lastError)}` } : {}),
        }
        break
      } catch (e) {
        lastError = e
        out[key] = { entry: rel(entry), error: firstLine(e) }
      }
    }
  }
  out.esbuild = pkgVersion('esbuild')
  return out
}

/** Minified bytes per part of the bundle (a source folder, or a package), largest first. */
function composition(metafile) {
  const parts = new Map()
  for (const out of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(out.inputs)) {
      const part = pkgOf(input) ?? input.replace(/^.*?(src\/)/, '$1').split('/').slice(0, -1).join('/')
      parts.set(part, (parts.get(part) ?? 0) + bytesInOutput)
    }
  }
  return [...parts].map(([part, bytes]) => ({ part, bytes })).sort((a, b) => b.bytes - a.bytes)
}

const pkgOf = (input) => input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1]
const firstLine = (e) => String(e?.errors?.[0]?.text ?? e?.message ?? e).split('\n')[0]
