#!/usr/bin/env node
// The `ajsc` command: runs the bundled CLI (dist/cli.js). The published
// package ships dist/; in a fresh clone the first `npx ajsc` builds it
// (esbuild is a dev dependency there), so no install script is needed.
import { existsSync } from 'node:fs'
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
await import(cli.href)
