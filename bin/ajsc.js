#!/usr/bin/env node
// The `ajsc` command: runs the bundled CLI (dist/cli.js). The published
// package ships dist/; in a checkout (scripts/build.mjs beside bin/) the first
// `npx ajsc` builds it (esbuild is a dev dependency there), and a later one
// rebuilds it when a source is newer than the build, as after `git pull` or an
// edit: a checkout's `ajsc` runs the code in front of you, never a stale dist/.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import module from 'node:module'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const cli = new URL('../dist/cli.js', import.meta.url)
const build = `${root}scripts/build.mjs`

/** A source newer than `t` (ms), if any: what the build reads besides node_modules. */
function newerSource(t) {
  for (const top of ['package.json', 'scripts', 'src']) {
    const path = `${root}${top}`
    if (!statSync(path).isDirectory()) {
      if (statSync(path).mtimeMs > t) return top
      continue
    }
    for (const e of readdirSync(path, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue
      const file = `${e.parentPath ?? e.path}/${e.name}`
      if (statSync(file).mtimeMs > t) return file.slice(root.length)
    }
  }
  return undefined
}

/** Why dist/ must be (re)built before running, or undefined. */
function buildReason() {
  if (!existsSync(cli)) return existsSync(build) ? 'first run in this checkout' : 'missing'
  if (!existsSync(build)) return undefined // an installed package: dist/ is what was published
  const changed = newerSource(statSync(cli).mtimeMs)
  return changed === undefined ? undefined : `${changed} changed since dist/ was built`
}

const reason = buildReason()
if (reason === 'missing') {
  process.stderr.write('ajsc: dist/cli.js is missing from the ajs-lang package; reinstall it.\n')
  process.exit(1)
}
if (reason !== undefined) rebuild(reason)

/**
 * Builds dist/ once for every `ajsc` that finds it stale at the same time: the first takes a lock
 * (a folder: mkdir is atomic) and builds; the others wait for the lock and find dist/ fresh.
 */
function rebuild(why) {
  const lock = `${root}.ajsc-building`
  while (!tryLock(lock)) {
    // A lock older than any build is a crashed builder's.
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
    if (age > 180_000) rmSync(lock, { recursive: true, force: true })
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
  }
  let ok = true
  try {
    why = buildReason() === undefined ? undefined : why
    if (why !== undefined) {
      process.stderr.write(`ajsc: building dist/ (${why})...\n`)
      // The CLI needs only the bundles; `npm run build` also writes the declarations.
      ok = spawnSync(process.execPath, [build, '--quiet', '--no-types'], { stdio: ['ignore', 'ignore', 'inherit'] }).status === 0
    }
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
  if (!ok) {
    process.stderr.write('ajsc: the build failed; run `npm run build` to see why.\n')
    process.exit(1)
  }
}

function tryLock(lock) {
  try {
    mkdirSync(lock)
    return true
  } catch (e) {
    if (e.code === 'EEXIST') return false
    throw e
  }
}

// Node >= 22.1 keeps V8's compiled code of the CLI's modules between runs (a folder under the OS's
// temp dir; NODE_DISABLE_COMPILE_CACHE=1 turns it off): `ajsc run` starts ~15% sooner. A CLI is an
// application and may choose this for its process; the library entries never do (docs/vm.md).
module.enableCompileCache?.()
await import(cli.href)
