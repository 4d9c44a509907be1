// The VM of one revision as a fresh process imports it, for bench/cold-ab.mjs and bench/cold-profile.mjs.
import { build } from 'esbuild'
import { execSync } from 'node:child_process'
import { existsSync, symlinkSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { scratchDir } from './revision.mjs'

export const root = resolve(import.meta.dirname, '../..')

/** A temp folder with the repo's node_modules linked in. */
export const coldDir = () => scratchDir('ajs-cold-')

/**
 * Bundles `rev` ('.' = the working tree) into `dir`: `vm`, the minified VM entry with its dependencies
 * inlined (`names`: identifiers kept, for readable profiles), or with `dist` the revision's own
 * dist/vm.js (its scripts/build.mjs run in its folder); `full`, the full entry to transpile with;
 * with `cached`, `loader`: the revision's src/host/code-cache.ts (ajs-lang/vm/cached's loader), if it has one.
 */
export async function bundleRevision(rev, name, dir, { dist = false, names = false, cached = false } = {}) {
  let src = root
  if (rev !== '.') {
    execSync(`git archive --prefix=${name}/ ${rev} src scripts package.json tsconfig.json | tar -x -C ${dir}`, { cwd: root })
    src = join(dir, name)
    symlinkSync(join(root, 'node_modules'), join(src, 'node_modules'))
  }
  const common = { bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'error', nodePaths: [join(root, 'node_modules')] }
  let vm = join(dir, `${name}-vm.min.mjs`)
  if (dist) {
    execSync('node scripts/build.mjs --quiet --no-types', { cwd: src, stdio: 'inherit' })
    vm = join(src, 'dist/vm.js')
  } else {
    const minify = names ? { minifyWhitespace: true, minifySyntax: true } : { minify: true }
    await build({ ...common, ...minify, entryPoints: [join(src, 'src/vm/index.ts')], outfile: vm })
  }
  const full = join(dir, `${name}-full.mjs`)
  await build({ ...common, entryPoints: [join(src, 'src/index.ts')], outfile: full })
  let loader
  if (cached && existsSync(join(src, 'src/host/code-cache.ts'))) {
    loader = join(dir, `${name}-code-cache.min.mjs`)
    await build({ ...common, minify: true, entryPoints: [join(src, 'src/host/code-cache.ts')], outfile: loader })
  }
  return { vm, full, loader }
}
