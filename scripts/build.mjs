#!/usr/bin/env node
/**
 * Builds dist/ for Node (and any bundler) from src/:
 *
 *   dist/<entry>.js        ESM, one self-contained minified file per entry
 *   dist/<entry>.cjs       CommonJS, the same
 *   dist/cli.js            the `ajsc` command (ESM, run by bin/ajsc.js)
 *   dist/browser/vm.min.js ./vm for browsers: minified, dependencies inlined
 *   dist/types/**.d.ts     declarations (tsc, emit only, no type check)
 *
 * Library entries inline their dependencies; the plugins and the CLI keep
 * them external (esbuild, bun and commander come from the user's install). Runs as `npm run build` and as `prepare` (so `npm install` in a
 * fresh checkout leaves a working `npx ajsc`). Usage: node scripts/build.mjs
 * [--no-types] [--quiet]
 */
import { build } from 'esbuild'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

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
  flowlang: 'src/flowlang/index.ts',
  workflows: 'src/workflows/index.ts',
  client: 'src/client/index.ts',
  server: 'src/server/index.ts',
}

/** Entries that keep their npm dependencies external (server-side weight stays in node_modules, never inlined). */
const EXTERNAL_DEPS = new Set(['plugins-esbuild', 'plugins-bun', 'flowlang', 'server'])

const started = Date.now()
const present = Object.fromEntries(Object.entries(ENTRIES).filter(([, src]) => existsSync(join(root, src))))
const missing = Object.keys(ENTRIES).filter((k) => !(k in present))
rmSync(dist, { recursive: true, force: true })

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // Minified: import time is mostly V8 parsing the file, so fewer bytes start faster.
  // Linked source maps keep stack traces readable (node --enable-source-maps).
  minify: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  legalComments: 'none',
}

// The library entries are self-contained files with their dependencies
// (acorn, tosijs-schema) inlined: a cold `import 'ajs-lang/vm'` then reads
// one file instead of a graph of chunks and packages (measured: ~10 ms
// instead of ~25 ms to import on the bench machine). The entries share no
// module state: ASTs, atoms and schemas are plain data, so mixing entries works.
const libraries = Object.fromEntries(Object.entries(present).filter(([name]) => !EXTERNAL_DEPS.has(name)))
const plugins = Object.fromEntries(Object.entries(present).filter(([name]) => EXTERNAL_DEPS.has(name)))

await Promise.all([
  build({ ...common, entryPoints: libraries, outdir: dist, format: 'esm', packages: undefined }),
  build({ ...common, entryPoints: libraries, outdir: dist, format: 'cjs', packages: undefined, outExtension: { '.js': '.cjs' } }),
  build({ ...common, entryPoints: plugins, outdir: dist, format: 'esm' }),
  build({ ...common, entryPoints: plugins, outdir: dist, format: 'cjs', outExtension: { '.js': '.cjs' } }),
  build({ ...common, entryPoints: { cli: 'src/cli/main.ts' }, outdir: dist, format: 'esm' }),
  build({
    ...common,
    entryPoints: { 'vm.min': 'src/vm/index.ts' },
    outdir: join(dist, 'browser'),
    platform: 'browser',
    target: 'es2022',
    format: 'esm',
    packages: undefined,
    minify: true,
    metafile: true,
  }).then((r) => writeFileSync(join(dist, 'browser', 'meta.json'), JSON.stringify(r.metafile))),
])
log(`esbuild: ${Object.keys(present).length} entries + cli + browser vm in ${Date.now() - started} ms${missing.length ? ` (skipped, no source yet: ${missing.join(', ')})` : ''}`)

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
  let files = 0
  for (const file of walk(dts)) {
    if (!file.endsWith('.d.ts')) continue
    const text = readFileSync(file, 'utf8')
    const fixed = text.replace(/(from\s+|import\(\s*)(['"])(\.{1,2}\/[^'"]+?)\.ts\2/g, '$1$2$3.js$2')
    if (fixed !== text) writeFileSync(file, fixed)
    files++
  }
  log(`tsc: ${files} declaration files in ${Date.now() - t0} ms`)
}
log(`build: done in ${Date.now() - started} ms`)

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) yield* walk(p)
    else yield p
  }
}
