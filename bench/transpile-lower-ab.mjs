// A/B of the transpiler's lowering phase alone (new LowerContext + lowerProgram on a parse done
// once), both revisions in ONE process (no parser runs while timing, so they share no hot call
// sites): ~5 ms batches of A and B alternate, after a 1 s warm-up; prints the minima.
//   node bench/transpile-lower-ab.mjs <rev-before> <rev-after|.> [rounds] [--large 250,1000,2000]   (also: npx bun ...)
// The commits of issue 28's transpile work quote it ("lowering alone").
import { build } from 'esbuild'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { generateLargeSource } from './workloads/gen-large.mjs'
import { revisionSrc, scratchDir } from './lib/revision.mjs'
const root = resolve(import.meta.dirname, '..')
const dir = scratchDir('ajs-lowab-')
async function load(rev, name) {
  // A folder holding a src/ tree stands for a change not committed yet (see transpile-bundle.mjs).
  const src = rev !== '.' && existsSync(join(rev, 'src')) ? resolve(rev, 'src') : revisionSrc(rev, dir, name)
  const entry = join(dir, `${name}-entry.ts`)
  writeFileSync(entry, `import { parseProgram } from '${src}/transpiler/parse.ts'
import { LowerContext } from '${src}/transpiler/context.ts'
import { atomTable } from '${src}/transpiler/globals.ts'
import { lowerProgram } from '${src}/transpiler/lower/program.ts'
import { transpile } from '${src}/transpiler/index.ts'
export { transpile }
export const parseOnce = (s: string) => parseProgram(s, new LowerContext(s, '<ajs>', atomTable(undefined)))
export function lowerOnly(s: string, parsed: any) { const ctx: any = new LowerContext(s, '<ajs>', atomTable(undefined)); ctx.lateBound = true; if ('fileInAst' in ctx) ctx.fileInAst = false; return lowerProgram(parsed, ctx) }
`)
  const outfile = join(dir, `${name}.mjs`)
  await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'node', outfile, logLevel: 'error', packages: 'external' })
  return import(pathToFileURL(outfile).href)
}
const argv = process.argv.slice(2)
const largeAt = argv.indexOf('--large')
// --large 250,1000,2000: also the generated source with these many blocks (3k, 12k, 24k lines), for growth.
const large = largeAt === -1 ? [] : argv.splice(largeAt, 2)[1].split(',').map(Number)
const [revA, revB, rounds = '40'] = argv
if (!revA || !revB) { console.error('usage: node bench/transpile-lower-ab.mjs <rev-before> <rev-after|.> [rounds] [--large blocks,...]'); process.exit(2) }
const A = await load(revA, 'a'), B = await load(revB, 'b')
const read = (f) => readFileSync(join(root, 'bench/workloads', f), 'utf8')
const sources = [['arith-loop', read('arith-loop.ajs')], ['helper-fib', read('helper-fib.ajs')], ['agent-typical', read('agent-typical.ajs')], ['rules', read('rules.ajs')], ['generated', generateLargeSource({ blocks: 100 })],
  ...large.map((blocks) => { const s = generateLargeSource({ helpers: Math.max(1, Math.round(blocks * 0.096)), blocks }); return [`${s.split('\n').length - 1} lines`, s] })]
const fns = sources.map(([, s]) => { const pa = A.parseOnce(s), pb = B.parseOnce(s); return [() => A.lowerOnly(s, pa), () => B.lowerOnly(s, pb)] })
for (const t0 = performance.now(); performance.now() - t0 < 1000;) for (const [a, b] of fns) { a(); b() }
sources.forEach(([id], k) => {
  const [a, b] = fns[k]
  const reps = [a, b].map((fn) => { for (let n = 1; ; n *= 2) { const t = performance.now(); for (let i = 0; i < n; i++) fn(); if (performance.now() - t > 5) return n } })
  const best = [Infinity, Infinity]
  for (let r = 0; r < Number(rounds); r++) for (const i of r % 2 ? [1, 0] : [0, 1]) {
    const f = i ? b : a; const t0 = performance.now(); for (let j = 0; j < reps[i]; j++) f(); best[i] = Math.min(best[i], (performance.now() - t0) / reps[i])
  }
  console.log(`${id.padEnd(14)} lowering ${revA}: ${(best[0] * 1000).toFixed(2)} µs  ${revB}: ${(best[1] * 1000).toFixed(2)} µs  B/A ${(best[1] / best[0]).toFixed(3)}`)
})
rmSync(dir, { recursive: true, force: true })
