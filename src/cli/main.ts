/**
 * `ajsc` entry point: the only place that calls process.exit. Bundled to
 * dist/cli.js by scripts/build.mjs and started by bin/ajsc.js.
 */
import { runCli } from './program.ts'
import { processIO } from './io.ts'

const code = await runCli(process.argv.slice(2), processIO())
// Let stdout drain before exiting (a pipe may still hold a large result).
process.stdout.write('', () => process.exit(code))
