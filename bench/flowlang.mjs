// FlowLang (issue 16): what validation, the sandboxed script frontend and one
// pipeline turn cost.
//
//   1. validateFlowGraph on the corpus's valid graph (6 nodes, 5 edges);
//   2. parseFlowText + validate of the corpus's ollama-qwen.flow;
//   3. runFlowScript of the seed's authoring example (transpile + AgentVM run
//      + validation: the whole cost of a flow script, the sandbox included);
//   4. one FlowSession turn against a local streaming SSE model (127.0.0.1,
//      no tools): the pipeline's own overhead around one HTTP round trip.
//
// Standalone: `node bench/flowlang.mjs` (prints a table); `npm run bench --
// --sections flowlang` runs it as a section of the full benchmark.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { buildDir, repoDir } from './lib/paths.mjs'
import { median, now } from './lib/timing.mjs'

async function loadOurs() {
  const outfile = join(buildDir, 'ajs-flowlang.mjs')
  await build({
    absWorkingDir: repoDir, entryPoints: [join(repoDir, 'src', 'flowlang', 'index.ts')],
    bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, logLevel: 'warning', packages: 'external',
  })
  return import(`${pathToFileURL(outfile).href}?t=${Date.now()}`)
}

/** Median µs per call over `rounds` batches of `batch` calls. */
async function perCall(fn, batch, rounds) {
  const xs = []
  for (let r = 0; r < rounds; r++) {
    const t0 = now()
    for (let i = 0; i < batch; i++) await fn()
    xs.push(((now() - t0) * 1000) / batch)
  }
  return median(xs)
}

function sseModel() {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const t of ['Hel', 'lo', '.']) res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: t } }] })}\n\n`)
      res.end('data: [DONE]\n\n')
    })
  })
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ url: `http://127.0.0.1:${server.address().port}/v1`, close: () => new Promise((c) => server.close(c)) })))
}

export async function runFlowlangBench({ quick = false, log = console.log } = {}) {
  const f = await loadOurs()
  const corpus = join(repoDir, 'test', 'fixtures', 'vendor', 'flowlang')
  const graph = JSON.parse(readFileSync(join(corpus, 'graph-json/valid/lmstudio-qwen-functions.graph.json'), 'utf8'))
  const text = readFileSync(join(corpus, 'ollama-qwen.flow'), 'utf8')
  const script = readFileSync(join(repoDir, 'examples', 'flowlang', 'lmstudio-qwen-functions.flow.js'), 'utf8')
  const rounds = quick ? 3 : 9
  const results = {}
  results.validateUs = await perCall(() => f.validateFlowGraph(graph), quick ? 200 : 2000, rounds)
  results.flowTextUs = await perCall(() => f.loadFlowSource(text, { kind: 'text' }), quick ? 200 : 2000, rounds)
  results.scriptUs = await perCall(() => f.runFlowScript(script), quick ? 20 : 200, rounds)
  const model = await sseModel()
  const g = f.validateFlowGraph(graph).graph
  g.nodes.find((n) => n.id === 'p').options.baseUrl = model.url
  const session = await f.FlowSession.open({ graph: g })
  results.turnUs = await perCall(() => session.turn('hi'), quick ? 10 : 50, rounds)
  await session.close()
  await model.close()
  log(`| measure | median per call |\n| --- | --- |`)
  log(`| validateFlowGraph (6 nodes, 5 edges) | ${results.validateUs.toFixed(1)} µs |`)
  log(`| .flow text → validated graph | ${results.flowTextUs.toFixed(1)} µs |`)
  log(`| flow script → validated graph (transpile + sandbox run) | ${results.scriptUs.toFixed(1)} µs |`)
  log(`| one turn, local SSE model, no tools | ${(results.turnUs / 1000).toFixed(2)} ms |`)
  return results
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await runFlowlangBench({ quick: process.argv.includes('--quick') })
