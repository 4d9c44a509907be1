#!/usr/bin/env node
// The `ajsc` command: runs the bundled CLI (dist/cli.js). The published
// package ships dist/; in a fresh clone the first `npx ajsc` builds it
// (esbuild is a dev dependency there), so no install script is needed.
import { existsSync } from 'node:fs'
import module from 'node:module'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const cli = new URL('../dist/cli.js', import.meta.url)
if (!existsSync(cli)) {
  const build = fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))
  if (!existsSync(build)) {
    process.stderr.write('ajsc: dist/cli.js is missing from the ajs-lang package; reinstall it.\n')
    process.exit(1)
  }
  process.stderr.write('ajsc: building dist/ (first run in this checkout)...\n')
  // The CLI needs only the bundles; `npm run build` also writes the declarations.
  const r = spawnSync(process.execPath, [build, '--quiet', '--no-types'], { stdio: ['ignore', 'ignore', 'inherit'] })
  if (r.status !== 0) {
    process.stderr.write('ajsc: the build failed; run `npm run build` to see why.\n')
    process.exit(1)
  }
}
// Node >= 22.1 keeps V8's compiled code of the CLI's modules between runs (a folder under the OS's
// temp dir; NODE_DISABLE_COMPILE_CACHE=1 turns it off): `ajsc run` starts ~15% sooner. A CLI is an
// application and may choose this for its process; the library entries never do (docs/vm.md).
module.enableCompileCache?.()
await import(cli.href)
