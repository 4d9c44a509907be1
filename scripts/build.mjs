#!/usr/bin/env node
/**
 * Builds dist/ for Node (and any bundler) from src/:
 *
 *   dist/<entry>.js        ESM entry; code shared by entries lives once in dist/chunks/*.js
 *   dist/<entry>.cjs       CommonJS entry; shared code in dist/chunks/*.cjs (the same graph)
 *   dist/cli.js            the `ajsc` command (ESM, run by bin/ajsc.js), on the same chunks
 *   dist/browser/vm.min.js ./vm for browsers: one minified file, dependencies inlined
 *   dist/types/**.d.ts     declarations (tsc, emit only, no type check)
 *   dist/types-cjs/**.d.ts the same declarations as CommonJS (for the `require` conditions)
 *
 * One graph of shared chunks: a class (AgentVM, TranspileError, ...) exists
 * once, so `instanceof` holds across `ajs-lang`, `ajs-lang/vm` and
 * `ajs-lang/transpiler`. Minified with `keepNames`, so stack traces and
 * `err.name`/`constructor.name` stay readable, except in the VM core layer,
 * where the names cost cold start (scripts/vm-core.mjs; its public classes
 * name themselves). No source maps by default
 * (the tarball stays lean and bundlers do not warn about maps they cannot
 * find); `--sourcemap` writes linked ones into src/ for local debugging.
 *
 * npm dependencies: those the library entries use (acorn, tosijs-schema) are
 * inlined into the chunks (one file read per module instead of a package
 * graph at import time); the entries in EXTERNAL_DEPS (server side) and the
 * CLI keep theirs external, so their weight stays in node_modules.
 * Usage: node scripts/build.mjs [--no-types] [--sourcemap] [--quiet]
 */
import { build, transform } from 'esbuild'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { planVmLayers, linkLayers, linkLayerFiles } from './vm-core.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
const args = new Set(process.argv.slice(2))
const quiet = args.has('--quiet')
const log = (msg) => { if (!quiet) console.log(msg) }

/** Public entries: output name -> source. Entries whose source is missing (work in progress) are skipped. */
const ENTRIES = {
  index: 'src/index.ts',
  vm: 'src/vm/index.ts',
  transpiler: 'src/transpiler/index.ts',
  builder: 'src/builder/index.ts',
  batteries: 'src/batteries/index.ts',
  'plugins-esbuild': 'src/plugins/esbuild.ts',
  'plugins-bun': 'src/plugins/bun.ts',
  python: 'src/python/index.ts',
  flows: 'src/flows/index.ts',
  // The opt-in runtime libraries: importing one registers it for every AgentVM of the process.
  'runtime-python': 'src/python/library.ts',
  'runtime-flow': 'src/flows/library.ts',
  // The seed's AST dialect for ajs-lang/vm (the full entry includes it).
  'dialect-seed': 'src/vm/seed-dialect.ts',
  // The VM's opt-in parts (ajs-lang/vm stays small; the full entry, ajsc and the server include them).
  'vm-regex': 'src/vm/parts/regex.ts',
  'vm-schema': 'src/vm/parts/schema.ts',
  'vm-texts': 'src/vm/parts/texts.ts',
  'vm-hash': 'src/vm/parts/hash.ts',
  'vm-procedures': 'src/vm/parts/procedures.ts',
  'vm-dates': 'src/vm/parts/dates.ts',
  'vm-maps': 'src/vm/parts/maps.ts',
  flowlang: 'src/flowlang/index.ts',
  codemode: 'src/codemode/index.ts',
  workflows: 'src/workflows/index.ts',
  client: 'src/client/index.ts',
  server: 'src/server/index.ts',
  // The server's pool worker thread (dist/server.js and dist/cli.js load it from next to them).
  'server-worker': 'src/server/pool/worker.ts',
  // The server's workflow threads (live workflow executions; loaded like the pool worker).
  'server-workflow-thread': 'src/server/pool/workflow-thread.ts',
}

/** ajs-lang/vm/cached's loader (built apart from ENTRIES, below). */
const CACHED_VM_ENTRY = 'src/host/cached-vm.ts'

/** Entries that keep their npm dependencies external (server-side weight stays in node_modules, never inlined). */
const EXTERNAL_DEPS = new Set(['plugins-esbuild', 'plugins-bun', 'flowlang', 'codemode', 'server', 'server-worker', 'server-workflow-thread'])

/**
 * Hosts and engines shipped as ESM only (no CommonJS copy): `ajsc serve`'s server and pool worker,
 * FlowLang, code mode (MCP) and the workflow engine. Their users run Node services, where ESM (or
 * `await import()` from CommonJS) is the norm, and a second, CommonJS copy of them kept the tarball
 * over its 1 MB budget. The library entries (VM, transpiler, builder, flows, Python, runtime
 * libraries, client, plugins) keep both formats.
 */
const ESM_ONLY = new Set(['server', 'server-worker', 'server-workflow-thread', 'flowlang', 'codemode', 'workflows'])

const started = Date.now()
const present = Object.fromEntries(Object.entries(ENTRIES).filter(([, src]) => existsSync(join(root, src))))
const missing = Object.keys(ENTRIES).filter((k) => !(k in present))
rmSync(dist, { recursive: true, force: true })

const packageOf = (spec) => spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]
const isBare = (spec) => !spec.startsWith('.') && !spec.startsWith('/') && !spec.startsWith('node:')

// The npm packages the library entries (not EXTERNAL_DEPS, not the CLI) import: these are inlined.
const libraryEntries = Object.fromEntries(Object.entries(present).filter(([name]) => !EXTERNAL_DEPS.has(name)))
const scan = await build({ absWorkingDir: root, entryPoints: libraryEntries, bundle: true, write: false, outdir: dist, platform: 'node', format: 'esm', packages: 'external', metafile: true, logLevel: 'silent' })
const inlined = new Set()
for (const input of Object.values(scan.metafile.inputs)) {
  for (const imp of input.imports) if (imp.external && isBare(imp.path)) inlined.add(packageOf(imp.path))
}
// acorn is a dependency of the package (the transpiler's parser): required from node_modules, not
// inlined, so its 120 KB are not in the tarball twice (ESM and CJS) and an install dedupes it.
for (const dep of Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies ?? {})) inlined.delete(dep)

/**
 * Inlined packages shipped once for both formats: one CommonJS file, dist/chunks/<name>.cjs, that
 * the ESM chunks import as well (Node's ESM imports CommonJS on every version `engines` allows;
 * CommonJS may not require ESM before Node 20.19). Inlined into each format, croner (flow
 * schedules, 33 KB minified) was in the tarball twice. The VM's own dependencies stay ESM in ESM.
 */
const SHARED_CJS = new Set(['croner'].filter((name) => inlined.has(name)))
const sharedSpecifier = (name) => `__ajs_shared_${name.replace(/\W/g, '_')}__`

/**
 * Bare imports of packages the libraries do not use stay external (server-side dependencies,
 * commander, esbuild, bun). What an inlined package imports itself is inlined with it
 * (@lezer/python's @lezer/lr and @lezer/common): the published package depends on none of them.
 */
const externalDeps = {
  name: 'external-deps',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (a) => {
      if (a.path.startsWith('node:')) return { path: a.path, external: true }
      if (SHARED_CJS.has(a.path) && !/[\\/]node_modules[\\/]/.test(a.importer)) return { path: sharedSpecifier(a.path), external: true }
      if (inlined.has(packageOf(a.path)) || /[\\/]node_modules[\\/]/.test(a.importer)) return undefined
      return { path: a.path, external: true }
    })
  },
}

const common = {
  absWorkingDir: root,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Minified: import time is mostly V8 parsing the file, so fewer bytes start faster.
  minify: true,
  keepNames: true,
  logLevel: 'warning',
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [externalDeps],
  metafile: true,
}
const entryPoints = { ...present, cli: 'src/cli/main.ts' }

/**
 * One ESM file as CommonJS. `import.meta.url` has no CommonJS equivalent built in: give it the file's own URL.
 * Minified again: the conversion names each imported file (`import_chunk_KFTYBTUZ`) at every use of its
 * bindings. No keepNames here: the ESM input already carries the `__name` calls of the original names.
 */
async function toCjs(text) {
  const usesMeta = text.includes('import.meta')
  const { code } = await transform(text, {
    format: 'cjs', loader: 'js', minify: true, platform: 'node', target: 'node20', logLevel: 'warning',
    ...(usesMeta ? { define: { 'import.meta.url': '__ajsImportMetaUrl' }, banner: 'var __ajsImportMetaUrl=require("node:url").pathToFileURL(__filename).href;' } : {}),
  })
  return code
}

/** Entries that do not run programs: what they share with the VM goes to the small base layer, not the core. */
const VM_LESS = ['transpiler', 'builder', 'batteries', 'plugins-esbuild', 'plugins-bun']
// The VM's modules as two files every entry imports (scripts/vm-core.mjs: 17 chunks cost ~10 ms of import).
const layers = await planVmLayers({
  root, dist, entry: ENTRIES.vm, light: VM_LESS.filter((k) => k in present).map((k) => present[k]), plugins: [externalDeps], cjs: toCjs,
  esbuildOptions: { platform: 'node', target: 'node20', minify: true, keepNames: true, legalComments: 'none', logLevel: 'warning' },
})
common.plugins = [...layers.plugins, externalDeps]

const [esm, cjsAsEsm] = await Promise.all([
  build({ ...common, entryPoints, outdir: dist, ...(args.has('--sourcemap') ? { sourcemap: 'linked', sourcesContent: false } : {}) }),
  // The same graph, written as ESM with .cjs names, then each file turned into CommonJS below
  // (esbuild splits only ESM; converting file by file keeps one module per chunk, so one class).
  build({ ...common, entryPoints: Object.fromEntries(Object.entries(present).filter(([name]) => !ESM_ONLY.has(name))), outdir: dist, outExtension: { '.js': '.cjs' }, write: false }),
  build({
    absWorkingDir: root,
    bundle: true,
    // Each its own file: a page loads vm.min.js, and a runtime library only for the programs that declare it.
    entryPoints: { 'vm.min': 'src/vm/index.ts', 'runtime-python.min': 'src/python/library.ts', 'runtime-flow.min': 'src/flows/library.ts', 'dialect-seed.min': 'src/vm/seed-dialect.ts', 'vm-regex.min': 'src/vm/parts/regex.ts', 'vm-schema.min': 'src/vm/parts/schema.ts', 'vm-texts.min': 'src/vm/parts/texts.ts', 'vm-hash.min': 'src/vm/parts/hash.ts', 'vm-procedures.min': 'src/vm/parts/procedures.ts', 'vm-dates.min': 'src/vm/parts/dates.ts', 'vm-maps.min': 'src/vm/parts/maps.ts' },
    outdir: join(dist, 'browser'),
    platform: 'browser',
    target: 'es2022',
    format: 'esm',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
  }).then((r) => {
    writeFileSync(join(dist, 'browser', 'meta.json'), JSON.stringify(r.metafile))
    // ajs-lang/vm/cached names each bundle's V8 code cache by its content, so a cache never meets another build.
    const keys = Object.fromEntries(Object.keys(r.metafile.outputs).filter((f) => f.endsWith('.min.js')).map((f) => [basename(f), createHash('sha256').update(readFileSync(join(root, f))).digest('hex').slice(0, 16)]))
    writeFileSync(join(dist, 'browser', 'scripts.json'), JSON.stringify(keys))
  }),
])
// The layer files, with the names the outputs import (before the placeholders are linked).
const esmFiles = Object.keys(esm.metafile.outputs).filter((f) => f.endsWith('.js')).map((f) => join(root, f))
const layerFiles = await layers.finish([...esmFiles.map((f) => readFileSync(f, 'utf8')), ...cjsAsEsm.outputFiles.map((f) => f.text)])
linkLayerFiles(esmFiles, dist, '.js')
for (const file of esmFiles) {
  const text = readFileSync(file, 'utf8')
  if (text.includes('__ajs_shared_')) writeFileSync(file, linkShared(text, file))
}
// ajs-lang/vm's entry re-exports straight from the core layer: in the split build its re-exports
// sit in a chunk shared with the full entry (plus a chunk of esbuild's name helper), two more files
// for every `import 'ajs-lang/vm'` to resolve and load (~0.5 ms of its ~8.5 ms CPU, issue 28).
const vmEntry = 'vm' in present ? layers.reexports(ENTRIES.vm) : undefined
if (vmEntry) writeFileSync(join(dist, 'vm.js'), linkLayers(vmEntry, join(dist, 'vm.js'), dist, '.js'))
for (const file of cjsAsEsm.outputFiles) {
  const text = vmEntry && file.path === join(dist, 'vm.cjs') ? vmEntry : file.text
  const code = await toCjs(linkShared(linkLayers(text, file.path, dist, '.cjs'), file.path))
  mkdirSync(dirname(file.path), { recursive: true })
  writeFileSync(file.path, code)
}
for (const name of SHARED_CJS) {
  await build({
    absWorkingDir: root, bundle: true, format: 'cjs', platform: 'node', target: 'node20', minify: true, keepNames: true, legalComments: 'none', logLevel: 'warning',
    stdin: { contents: `export * from ${JSON.stringify(name)}`, resolveDir: root, loader: 'js' },
    outfile: join(dist, 'chunks', `${name}.cjs`),
  })
}
// ajs-lang/vm/cached runs the browser bundles from a V8 code cache (Node and Bun). It is built alone,
// one file per format without keepNames: in the split build it would import esbuild's `__name`
// chunk, a second file to load (~1 ms of a cold start it exists to cut).
for (const [format, ext] of [['esm', '.js'], ['cjs', '.cjs']]) {
  await build({
    absWorkingDir: root, bundle: true, format, platform: 'node', target: 'node20', minify: true, legalComments: 'none', logLevel: 'warning',
    entryPoints: [CACHED_VM_ENTRY], outfile: join(dist, `vm-cached${ext}`),
    ...(format === 'cjs' ? { define: { 'import.meta.url': '__ajsImportMetaUrl' }, banner: { js: 'var __ajsImportMetaUrl=require("node:url").pathToFileURL(__filename).href;' } } : {}),
  })
}
writeFileSync(join(dist, 'meta.json'), JSON.stringify(esm.metafile))
log(`esbuild: ${Object.keys(present).length} entries + cli (ESM + CJS, shared chunks; VM layers ${layerFiles.map((f) => `${f.name} ${f.modules} modules ${f.bytes} B`).join(', ')}) + browser vm in ${Date.now() - started} ms${missing.length ? ` (skipped, no source yet: ${missing.join(', ')})` : ''}`)

if (!args.has('--no-types')) {
  const t0 = Date.now()
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' })
  const dts = join(dist, 'types')
  // noCheck emits even when someone's work in progress has type errors; only a missing entry is fatal.
  const needed = Object.values(present).map((src) => join(dts, src.replace(/^src\//, '').replace(/\.ts$/, '.d.ts')))
  const lacking = needed.filter((f) => !existsSync(f))
  if (r.status !== 0) process.stderr.write(`tsc (declarations) reported problems:\n${r.stdout}${r.stderr}`)
  if (lacking.length > 0) {
    process.stderr.write(`build: declarations missing: ${lacking.join(', ')}\n`)
    process.exit(1)
  }
  // Sources import with `.ts` extensions; published declarations must point at `.js` (which resolves to .d.ts everywhere).
  // An internal module's leading comment followed by an import or a re-export is its overview for
  // the maintainers: no editor shows it (a hover shows a declaration's own comment, and it documents
  // none), so the published declarations leave it out (~13 KB of the tarball). The entries' (what
  // "go to definition" on `ajs-lang/...` opens) stay, and so does one that documents a declaration.
  const MODULE_OVERVIEW = /^\/\*\*(?:[^*]|\*(?!\/))*\*\/\n(?=import\b|export (?:type )?\{|export \*)/
  const entries = declarationEntries()
  let files = 0
  for (const file of walk(dts)) {
    if (!file.endsWith('.d.ts')) continue
    const text = readFileSync(file, 'utf8')
    const vendored = relative(dirname(file), join(dts, 'vendor/tosijs-schema/index.js')).split('\\').join('/')
    const fixed = (entries.has(file) ? text : text.replace(MODULE_OVERVIEW, '')).replace(/(from\s+|import\(\s*)(['"])(\.{1,2}\/[^'"]+?)\.ts\2/g, '$1$2$3.js$2')
      .replace(/(from\s+|import\(\s*)(['"])tosijs-schema\2/g, `$1$2${vendored.startsWith('.') ? vendored : `./${vendored}`}$2`)
    // `[Symbol.dispose]()` needs the disposable lib; name it so a consumer on an older `lib` still compiles.
    const withLib = /Symbol\.(async)?[dD]ispose/.test(fixed) ? `/// <reference lib="esnext.disposable" />\n${fixed}` : fixed
    if (withLib !== text) writeFileSync(file, withLib)
    files++
  }
  vendorSchemaTypes(join(dts, 'vendor/tosijs-schema'))
  // The same declarations as CommonJS for the `require` condition: under node16 a CommonJS consumer
  // may not `require` types that sit in a "type": "module" package, so they are CommonJS-format
  // declarations: the same files in dist/types-cjs/, whose package.json says "type": "commonjs"
  // (what `.d.cts` files would say). Same name and bytes as their ESM twins: npm packs files by
  // extension, then name, so each lies next to its twin and gzip stores it as a back-reference
  // (as `.d.cts` files, packed apart from their twins, they cost ~57 KB of the tarball).
  const dtsCjs = join(dist, 'types-cjs')
  // Every file: the vendored declarations' license goes with their copy.
  for (const file of walk(dts)) {
    const to = join(dtsCjs, relative(dts, file))
    mkdirSync(dirname(to), { recursive: true })
    copyFileSync(file, to)
  }
  writeFileSync(join(dtsCjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`)
  const pruned = pruneDeclarations([dts, dtsCjs])
  log(`tsc: ${files} declaration files (${pruned} no export reaches left out) in ${Date.now() - t0} ms`)
}
log(`build: done in ${Date.now() - started} ms`)

/** Point an output's placeholder imports of SHARED_CJS packages at their file, dist/chunks/<name>.cjs. */
function linkShared(text, file) {
  for (const name of SHARED_CJS) {
    const rel = relative(dirname(file), join(dist, 'chunks', `${name}.cjs`)).split('\\').join('/')
    text = text.split(JSON.stringify(sharedSpecifier(name))).join(JSON.stringify(rel.startsWith('.') ? rel : `./${rel}`))
  }
  return text
}

/**
 * tosijs-schema's declarations use extensionless relative imports, which
 * TypeScript refuses under `module: node16/nodenext` (TS2834, and then `s`
 * is not exported at all). Ship a copy of them with `.js` specifiers; our
 * declarations import that copy, so `s` keeps its types in every mode
 * (tosijs-schema is MIT; its license travels with the copy).
 */
function vendorSchemaTypes(to) {
  const from = resolve(dirname(createRequire(import.meta.url).resolve('tosijs-schema')), '..')
  mkdirSync(to, { recursive: true })
  const fix = (text) => text.replace(/(from\s+|import\(\s*)(['"])(\.{1,2}\/[^'"]+?)(?<!\.js)\2/g, '$1$2$3.js$2')
  writeFileSync(join(to, 'index.d.ts'), fix(readFileSync(join(from, 'dist/index.d.ts'), 'utf8')))
  mkdirSync(join(to, 'src'), { recursive: true })
  for (const name of readdirSync(join(from, 'dist/src'))) {
    if (name.endsWith('.d.ts')) writeFileSync(join(to, 'src', name), fix(readFileSync(join(from, 'dist/src', name), 'utf8')))
  }
  const license = ['LICENSE.md', 'LICENSE'].map((n) => join(from, n)).find((p) => existsSync(p))
  if (license) writeFileSync(join(to, 'LICENSE.md'), readFileSync(license))
}

/** The declaration files package.json names: each `types` target of its exports, and typesVersions'. */
function declarationEntries() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const starts = new Set()
  const collect = (v, key) => {
    if (typeof v === 'string') { if (key === 'types' || /\.d\.c?ts$/.test(v)) starts.add(resolve(root, v)) }
    else if (Array.isArray(v)) v.forEach((x) => collect(x, key))
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) collect(x, k)
  }
  collect(pkg.exports, '')
  for (const targets of Object.values(pkg.typesVersions?.['*'] ?? {})) for (const t of targets) if (!t.includes('*')) starts.add(resolve(root, t))
  return starts
}

/**
 * Keep only the declarations a consumer's TypeScript can reach: from each `types` target of
 * package.json's exports and typesVersions, through relative imports. The rest (the CLI's, internal
 * modules no public type mentions) is removed, so the tarball ships what types need and no more.
 */
function pruneDeclarations(roots) {
  const starts = declarationEntries()
  const seen = new Set()
  const visit = (file) => {
    if (seen.has(file) || !existsSync(file)) return
    seen.add(file)
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(/(?:from\s+|import\(\s*|reference path=)(['"])(\.{1,2}\/[^'"]+)\1/g)) {
      const target = resolve(dirname(file), m[2])
      visit(target.replace(/\.js$/, '.d.ts').replace(/\.cjs$/, '.d.cts').replace(/\.ts$/, '.d.ts').replace(/\.d\.d\.ts$/, '.d.ts'))
    }
  }
  for (const s of starts) visit(s)
  if (seen.size === 0) return 0
  let removed = 0
  for (const file of roots.flatMap((dir) => [...walk(dir)])) {
    if (/\.d\.c?ts$/.test(file) && !seen.has(file)) { rmSync(file); removed++ }
  }
  return removed
}

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) yield* walk(p)
    else yield p
  }
}
