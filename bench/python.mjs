// `npm run bench -- --sections python`: three loop-heavy code blocks, each timed inside its own
// process on our VM (ajs-lang/python, bundled from src/ with esbuild) and in CPython (python3),
// as a ratio. Process start and compilation are not timed: each side compiles once, warms up, then
// times single runs (median). The results must be equal (json.dumps text) or the row is an error.
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { benchDir, buildDir, repoDir } from './lib/paths.mjs'

/** The blocks: loop-heavy bodies over ints, strings/dicts and floats. */
export const PYTHON_BLOCKS = [
  {
    id: 'int-loop',
    what: '300k iterations of int arithmetic with an accumulator',
    body: 'total = 0\nfor i in range(n):\n    total += i * i % 7 - (i // 3)\nreturn {"total": total}',
    input: { n: 300000 },
  },
  {
    id: 'dict-count',
    what: '60k str() calls and dict updates, then a max over the counts',
    body: 'counts = {}\nfor i in range(n):\n    w = str(i % 97)\n    counts[w] = counts.get(w, 0) + 1\nreturn {"distinct": len(counts), "top": max(counts.values()), "keys": sorted(counts)[:3]}',
    input: { n: 60000 },
  },
  {
    id: 'float-pairs',
    what: 'a 300x300 nested loop over float tuples (90k distance computations)',
    body: 'pts = [(i * 0.5, (i * 7) % 13 * 1.5) for i in range(m)]\nbest = 0.0\nfor a in pts:\n    for b in pts:\n        d = (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2\n        if d > best:\n            best = d\nreturn {"best": best}',
    input: { m: 300 },
  },
]

const CPYTHON_TIMER = String.raw`
import ast, json, sys, time
blocks = json.load(sys.stdin)
out = {}
for b in blocks:
    params = ["initial"] + list(b["input"].keys())
    wrapper = ast.parse("def _block(%s):\n    pass\n" % ", ".join(params))
    wrapper.body[0].body = ast.parse(b["body"]).body
    env = {}
    exec(compile(wrapper, "<block>", "exec"), env)
    fn = env["_block"]
    result = json.dumps(fn(initial={}, **b["input"]), sort_keys=True)
    for _ in range(b["warmup"]):
        fn(initial={}, **b["input"])
    times = []
    for _ in range(b["runs"]):
        t0 = time.perf_counter()
        fn(initial={}, **b["input"])
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    out[b["id"]] = {"ms": times[len(times) // 2], "result": result}
print(json.dumps({"version": sys.version.split()[0], "blocks": out}))
`

async function buildPython() {
  const { build } = await import('esbuild')
  mkdirSync(buildDir, { recursive: true })
  const outfile = join(buildDir, 'ajs-python.mjs')
  await build({ entryPoints: [join(repoDir, 'src/python/index.ts')], outfile, bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'silent', nodePaths: [join(repoDir, 'node_modules')] })
  return import(pathToFileURL(outfile).href)
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

export async function runPythonSection({ opts, log }) {
  const runs = opts.quick ? 3 : 9
  const warmup = opts.quick ? 1 : 3
  const py = spawnSync('python3', ['-c', CPYTHON_TIMER], {
    input: JSON.stringify(PYTHON_BLOCKS.map((b) => ({ ...b, runs, warmup }))), encoding: 'utf8', maxBuffer: 16 << 20,
  })
  if (py.status !== 0) {
    log(`  python section skipped: python3 failed (${(py.stderr || py.error?.message || '').trim().split('\n').pop()})`)
    return { skipped: 'python3 is not available' }
  }
  const cpython = JSON.parse(py.stdout)
  const { transpilePython, createPythonVM } = await buildPython()
  const vm = createPythonVM()
  const rows = []
  for (const b of PYTHON_BLOCKS) {
    const params = ['initial', ...Object.keys(b.input)]
    const { ast } = transpilePython(b.body, { params, jsonText: true })
    const args = { initial: {}, ...b.input }
    const once = async () => {
      const r = await vm.run(ast, args, { fuel: 1e9, timeoutMs: 120_000 })
      if (r.error) throw new Error(`${b.id}: ${r.error.code} ${r.error.message}`)
      return r
    }
    const first = await once()
    for (let i = 0; i < warmup; i++) await once()
    const times = []
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now()
      await once()
      times.push(performance.now() - t0)
    }
    const theirs = cpython.blocks[b.id]
    const ms = median(times)
    const row = { id: b.id, what: b.what, oursMs: +ms.toFixed(2), cpythonMs: +theirs.ms.toFixed(2), ratio: +(ms / theirs.ms).toFixed(2), fuel: first.fuelUsed, same: first.result === theirs.result }
    rows.push(row)
    log(`  ${b.id.padEnd(12)} ours ${row.oursMs.toFixed(2).padStart(8)} ms   CPython ${row.cpythonMs.toFixed(2).padStart(8)} ms   ratio ×${row.ratio}${row.same ? '' : '   RESULTS DIFFER'}`)
  }
  const geomean = Math.exp(rows.reduce((s, r) => s + Math.log(r.ratio), 0) / rows.length)
  log(`  geometric mean ratio (ours / CPython): ×${geomean.toFixed(2)}`)
  return { cpython: cpython.version, runs, warmup, rows, geomean: +geomean.toFixed(2) }
}

/** The section as markdown for the results file. */
export function renderPythonSection(p) {
  if (!p) return ''
  if (p.skipped) return `\n## Python code blocks\n\nSkipped: ${p.skipped}.\n`
  const lines = [
    '', '## Python code blocks (ours vs CPython)', '',
    `Each block timed inside its process (median of ${p.runs} runs after ${p.warmup} warm-up runs; compile and process start not timed). CPython ${p.cpython}.`, '',
    '| block | what | ours (ms) | CPython (ms) | ours / CPython | same result |', '| --- | --- | --- | --- | --- | --- |',
    ...p.rows.map((r) => `| ${r.id} | ${r.what} | ${r.oursMs} | ${r.cpythonMs} | ×${r.ratio} | ${r.same ? 'yes' : '**no**'} |`),
    '', `Geometric mean of the ratios: ×${p.geomean}.`, '',
  ]
  return lines.join('\n')
}

// Standalone: node bench/python.mjs [--quick]
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const quick = process.argv.includes('--quick')
  const result = await runPythonSection({ opts: { quick }, log: (s) => console.log(s) })
  if (process.argv.includes('--write')) writeFileSync(join(benchDir, 'results', 'python-latest.json'), JSON.stringify(result, null, 2) + '\n')
}
