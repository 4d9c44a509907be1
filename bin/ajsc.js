#!/usr/bin/env node
// The `ajsc` command. The CLI is bundled to dist/cli.js by `npm run build`
// (which also runs on `npm install` via `prepare`); this launcher only
// explains what to do when that has not happened yet.
import { existsSync } from 'node:fs'

const cli = new URL('../dist/cli.js', import.meta.url)
if (!existsSync(cli)) {
  process.stderr.write('ajsc: dist/cli.js is missing. Run `npm run build` in the ajs-lang package first.\n')
  process.exit(1)
}
await import(cli.href)
