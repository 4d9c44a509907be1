// Bundles app.ts with esbuild and the ajs plugin, then runs the bundle.
// Run: bun examples/bundler/main.ts
import { build } from 'esbuild'
import { fileURLToPath } from 'node:url'
import { ajsPlugin } from 'ajs-lang/plugins/esbuild'

export async function main() {
  const outfile = fileURLToPath(new URL('./out/app.mjs', import.meta.url))
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./app.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'node',
    external: ['ajs-lang', 'ajs-lang/*'],
    outfile,
    plugins: [ajsPlugin()],
    logLevel: 'silent',
  })
  const app = (await import(outfile)) as { run(lead: unknown): Promise<{ result: unknown }> }
  const run = await app.run({ email: 'dean@uni.edu', employees: 250 })
  return { warnings: result.warnings.length, result: run.result }
}

if (import.meta.main) console.log(JSON.stringify(await main(), null, 2))
