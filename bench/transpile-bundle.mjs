// The transpiler of a revision for the transpile A/B scripts (transpile-ab, transpile-growth-ab):
// a git revision, `.` (the working tree), or a folder holding a src/ tree (a change measured
// before it is committed, e.g. HEAD's src/ with only one's own edits), bundled with esbuild.
import { build } from 'esbuild'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { bundleRevision } from './lib/revision.mjs'

export async function bundleTranspiler(rev, dir, name) {
  if (rev === '.' || !existsSync(join(rev, 'src'))) return bundleRevision(rev, dir, name, 'transpiler/index.ts')
  const outfile = join(dir, `${name}.mjs`)
  await build({ entryPoints: [join(rev, 'src/transpiler/index.ts')], bundle: true, format: 'esm', platform: 'node', outfile, logLevel: 'error', packages: 'external' })
  return outfile
}
