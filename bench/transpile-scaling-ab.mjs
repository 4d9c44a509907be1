// A/B of transpile time per line on sources built of one statement shape repeated k times, for
// the shapes whose cost once grew with the source (a scan of the whole source, or of every
// helper name, per statement): each revision in its own process, CPU time, the best of 5 batches.
//   node bench/transpile-scaling-ab.mjs <rev-before> <rev-after|.|folder> [shape] [k,k,...]
// shapes: promise-all (Promise.all statements: temp names), late-atoms (calls of an undeclared
// atom among 200 helpers: the did-you-mean of its warning), lets (let statements: varsLet objects),
// else-if (one chain of k branches: a scope per `else`).
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { scratchDir } from './lib/revision.mjs'
import { bundleTranspiler } from './transpile-bundle.mjs'

const SHAPES = {
  'promise-all': (k) => `async function main({ n, xs }) {\n  let acc = 0\n${Array.from({ length: k }, (_, i) =>
    `  const [a${i}, b${i}] = await Promise.all([slow({ n: ${i} }), slow({ n })])\n  acc = acc + a${i} + b${i}`).join('\n')}\n  return acc\n}\n`,
  'late-atoms': (k) => `${Array.from({ length: 200 }, (_, h) => `function helper${h}(x) { return x + ${h} }`).join('\n')}\nfunction main({ n }) {\n  let acc = helper0(n)\n${Array.from({ length: k }, (_, i) =>
    `  acc = acc + fetchValue({ n: ${i} }) + helper${i % 200}(acc)`).join('\n')}\n  return acc\n}\n`,
  lets: (k) => `function main({ n }) {\n${Array.from({ length: k }, (_, i) => `  let v${i} = n + ${i}`).join('\n')}\n  return v0\n}\n`,
  'else-if': (k) => `function main({ n }) {\n  let acc = 0\n  if (n === -1) {\n    acc = 1\n${Array.from({ length: k }, (_, i) =>
    `  } else if (n === ${i}) {\n    acc = acc + Math.max(n, ${i})`).join('\n')}\n  }\n  return acc\n}\n`,
}

if (process.argv[2] === '--child') {
  const [bundle, shape, ks] = process.argv.slice(3)
  const { transpile } = await import(pathToFileURL(bundle).href)
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
  const out = []
  for (const k of ks.split(',').map(Number)) {
    const source = SHAPES[shape](k)
    for (let i = 0; i < 2; i++) transpile(source)
    const t = cpu(); transpile(source); const once = Math.max(cpu() - t, 0.1)
    const reps = Math.max(1, Math.round(100 / once))
    let best = Infinity
    for (let r = 0; r < 5; r++) { const t0 = cpu(); for (let j = 0; j < reps; j++) transpile(source); best = Math.min(best, (cpu() - t0) / reps) }
    out.push({ k, lines: source.split('\n').length - 1, ms: best })
  }
  process.stdout.write(JSON.stringify(out))
  process.exit(0)
}

const [revA, revB, shape = 'promise-all', ks = '500,1000,2000,4000'] = process.argv.slice(2)
if (!revA || !revB || !SHAPES[shape]) {
  console.error(`usage: node bench/transpile-scaling-ab.mjs <rev-before> <rev-after|.> [${Object.keys(SHAPES).join('|')}] [k,k,...]`)
  process.exit(2)
}
const dir = scratchDir('ajs-tscale-')
const bundles = [await bundleTranspiler(revA, dir, 'a'), await bundleTranspiler(revB, dir, 'b')]
const rows = bundles.map((b) => JSON.parse(execFileSync(process.execPath, [import.meta.filename, '--child', b, shape, ks], { encoding: 'utf8' })))
console.log(`${shape}: transpile CPU time (µs per line), ${revA} vs ${revB}`)
rows[0].forEach((a, i) => {
  const b = rows[1][i]
  const per = (r) => ((r.ms * 1000) / r.lines).toFixed(2)
  console.log(`k ${String(a.k).padStart(6)}  ${String(a.lines).padStart(7)} lines  ${a.ms.toFixed(1).padStart(9)} ms (${per(a)})  ${b.ms.toFixed(1).padStart(9)} ms (${per(b)})  B/A ${(b.ms / a.ms).toFixed(3)}`)
})
rmSync(dir, { recursive: true, force: true })
