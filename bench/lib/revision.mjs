// A revision of src/ for the one-process A/B scripts (ab, alloc, python-ab, transpile-ab,
// transpile-lower-ab): extracted with `git archive` into a scratch folder and bundled with esbuild.
import { build } from 'esbuild'
import { execSync } from 'node:child_process'
import { mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { repoDir } from './paths.mjs'

/** A temp folder with the repo's node_modules linked in (the caller removes it). */
export function scratchDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  symlinkSync(join(repoDir, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

/** The src/ folder of `rev`: extracted under dir/name, or with '.' the working tree (uncommitted edits included). */
export function revisionSrc(rev, dir, name) {
  if (rev === '.') return join(repoDir, 'src')
  execSync(`git archive --prefix=${name}/ ${rev} src | tar -x -C ${dir}`, { cwd: repoDir })
  return join(dir, name, 'src')
}

/** `entry` (a path inside src/) of `rev` bundled as dir/name.mjs (ESM for Node, packages left external unless `options` say); returns the file. */
export async function bundleRevision(rev, dir, name, entry, options = {}) {
  const outfile = join(dir, `${name}.mjs`)
  await build({ entryPoints: [join(revisionSrc(rev, dir, name), entry)], bundle: true, format: 'esm', platform: 'node', outfile, logLevel: 'error', packages: 'external', ...options })
  return outfile
}
