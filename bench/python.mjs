// `npm run bench -- --sections python`: loop-heavy code blocks and the code models write (classes,
// string formatting, re, json), each timed inside its own
// process on our VM (ajs-lang/python, bundled from src/ with esbuild) and in CPython (python3),
// as a ratio. Process start and compilation are not timed: each side compiles once, warms up, then
// times single runs (median). The results must be equal (json.dumps text) or the row is an error.
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { benchDir, buildDir, repoDir } from './lib/paths.mjs'

/**
 * The blocks: loop-heavy bodies over ints, strings/dicts and floats (`loop`: their geometric mean is
 * the issue's target), then bodies the way models write them (`model`): classes, format specs, re, json.
 */
export const PYTHON_BLOCKS = [
  {
    id: 'int-loop',
    kind: 'loop',
    what: '300k iterations of int arithmetic with an accumulator',
    body: 'total = 0\nfor i in range(n):\n    total += i * i % 7 - (i // 3)\nreturn {"total": total}',
    input: { n: 300000 },
  },
  {
    id: 'dict-count',
    kind: 'loop',
    what: '60k str() calls and dict updates, then a max over the counts',
    body: 'counts = {}\nfor i in range(n):\n    w = str(i % 97)\n    counts[w] = counts.get(w, 0) + 1\nreturn {"distinct": len(counts), "top": max(counts.values()), "keys": sorted(counts)[:3]}',
    input: { n: 60000 },
  },
  {
    id: 'float-pairs',
    kind: 'loop',
    what: 'a 300x300 nested loop over float tuples (90k distance computations)',
    body: 'pts = [(i * 0.5, (i * 7) % 13 * 1.5) for i in range(m)]\nbest = 0.0\nfor a in pts:\n    for b in pts:\n        d = (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2\n        if d > best:\n            best = d\nreturn {"best": best}',
    input: { m: 300 },
  },
  {
    id: 'classes',
    kind: 'model',
    what: 'a class with methods and attribute updates: 200 accounts, 40k method calls',
    body: [
      'class Account:',
      '    fee = 1',
      '    def __init__(self, owner, balance):',
      '        self.owner = owner',
      '        self.balance = balance',
      '        self.history = 0',
      '    def deposit(self, amount):',
      '        self.balance += amount',
      '        self.history += 1',
      '    def withdraw(self, amount):',
      '        if amount + Account.fee > self.balance:',
      '            return False',
      '        self.balance -= amount + Account.fee',
      '        self.history += 1',
      '        return True',
      'accounts = [Account(f"user{i}", i * 10) for i in range(200)]',
      'refused = 0',
      'for step in range(n):',
      '    a = accounts[step % 200]',
      '    if step % 3 == 0:',
      '        a.deposit(step % 50)',
      '    elif not a.withdraw(step % 70):',
      '        refused += 1',
      'richest = max(accounts, key=lambda a: a.balance)',
      'return {"refused": refused, "richest": richest.owner, "total": sum(a.balance for a in accounts), "ops": sum(a.history for a in accounts)}',
    ].join('\n'),
    input: { n: 40000 },
  },
  {
    id: 'format',
    kind: 'model',
    what: 'f-strings with format specs (widths, precision, thousands, %) over 20k rows, joined',
    body: [
      'lines = []',
      'for i in range(n):',
      '    name = f"item-{i % 37}"',
      '    price = (i * 7919 % 10000) / 100',
      '    qty = i % 13',
      '    lines.append(f"{i:>6} {name:<10} {price:>9.2f} x{qty:<3d} = {price * qty:>12,.2f} ({qty / 13:.1%})")',
      'text = "\\n".join(lines)',
      'return {"chars": len(text), "last": lines[-1], "first": lines[0]}',
    ].join('\n'),
    input: { n: 20000 },
  },
  {
    id: 're',
    kind: 'model',
    what: 're.compile/match/findall/sub over 4k generated log lines',
    body: [
      'import re',
      'LINE = re.compile(r"^(\\d{4}-\\d\\d-\\d\\d) (\\w+) user=(\\w+) ms=(\\d+)")',
      'levels = ["INFO", "WARN", "ERROR"]',
      'rows = [f"2024-05-{i % 28 + 1:02d} {levels[i % 3]} user=u{i % 17} ms={i * 37 % 900}" for i in range(n)]',
      'slow, by_level = 0, {}',
      'for row in rows:',
      '    m = LINE.match(row)',
      '    date, level, user, ms = m.groups()',
      '    by_level[level] = by_level.get(level, 0) + 1',
      '    if int(ms) > 500:',
      '        slow += 1',
      'text = "\\n".join(rows)',
      'users = set(re.findall(r"user=(\\w+)", text))',
      'masked = re.sub(r"user=\\w+", "user=***", text)',
      'return {"slow": slow, "by_level": by_level, "users": len(users), "masked": len(masked)}',
    ].join('\n'),
    input: { n: 4000 },
  },
  {
    id: 'json',
    kind: 'model',
    what: 'json.dumps (indent, sort_keys) and json.loads of 300 nested records, 10 round trips',
    body: [
      'import json',
      'records = [{"id": i, "name": f"user{i}", "score": i * 1.25, "tags": ["a", "b", str(i % 7)], "meta": {"active": i % 2 == 0, "ref": None}} for i in range(300)]',
      'size = 0',
      'for _ in range(rounds):',
      '    text = json.dumps(records, indent=2, sort_keys=True)',
      '    back = json.loads(text)',
      '    size += len(text) + len(back)',
      'return {"size": size, "compact": len(json.dumps(records, separators=(",", ":")))}',
    ].join('\n'),
    input: { rounds: 10 },
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
    clock = time.process_time if b.get("cpu") else time.perf_counter
    for _ in range(b["runs"]):
        t0 = clock()
        fn(initial={}, **b["input"])
        times.append((clock() - t0) * 1000)
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
    input: JSON.stringify(PYTHON_BLOCKS.map((b) => ({ ...b, runs, warmup, cpu: opts.cpu === true }))), encoding: 'utf8', maxBuffer: 16 << 20,
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
      const t0 = performance.now(), c0 = process.cpuUsage()
      await once()
      const c = process.cpuUsage(c0)
      times.push(opts.cpu ? (c.user + c.system) / 1000 : performance.now() - t0)
    }
    const theirs = cpython.blocks[b.id]
    const ms = median(times)
    const row = { id: b.id, kind: b.kind, what: b.what, oursMs: +ms.toFixed(2), cpythonMs: +theirs.ms.toFixed(2), ratio: +(ms / theirs.ms).toFixed(2), fuel: first.fuelUsed, same: first.result === theirs.result }
    rows.push(row)
    log(`  ${b.id.padEnd(12)} ours ${row.oursMs.toFixed(2).padStart(8)} ms   CPython ${row.cpythonMs.toFixed(2).padStart(8)} ms   ratio ×${row.ratio}${row.same ? '' : '   RESULTS DIFFER'}`)
  }
  const geo = (rs) => Math.exp(rs.reduce((s, r) => s + Math.log(r.ratio), 0) / rs.length)
  const kindOf = (r) => PYTHON_BLOCKS.find((b) => b.id === r.id).kind
  const loop = geo(rows.filter((r) => kindOf(r) === 'loop'))
  const model = geo(rows.filter((r) => kindOf(r) === 'model'))
  log(`  geometric mean ratio (ours / CPython): loop-heavy ×${loop.toFixed(2)}, model-style ×${model.toFixed(2)}, all ×${geo(rows).toFixed(2)}`)
  return { cpython: cpython.version, runs, warmup, rows, geomean: +loop.toFixed(2), geomeanModel: +model.toFixed(2), geomeanAll: +geo(rows).toFixed(2) }
}

/** The section as markdown for the results file. */
export function renderPythonSection(p) {
  if (!p) return ''
  if (p.skipped) return `\n## Python code blocks\n\nSkipped: ${p.skipped}.\n`
  const lines = [
    '', '## Python code blocks (ours vs CPython)', '',
    `Each block timed inside its process (median of ${p.runs} runs after ${p.warmup} warm-up runs; compile and process start not timed). CPython ${p.cpython}.`, '',
    '| block | kind | what | ours (ms) | CPython (ms) | ours / CPython | same result |', '| --- | --- | --- | --- | --- | --- | --- |',
    ...p.rows.map((r) => `| ${r.id} | ${r.kind ?? 'loop'} | ${r.what} | ${r.oursMs} | ${r.cpythonMs} | ×${r.ratio} | ${r.same ? 'yes' : '**no**'} |`),
    '', `Geometric mean of the ratios: loop-heavy ×${p.geomean}${p.geomeanModel === undefined ? '' : `, model-style ×${p.geomeanModel}, all ×${p.geomeanAll}`}.`, '',
  ]
  return lines.join('\n')
}

// Standalone: node bench/python.mjs [--quick] [--cpu]
// --cpu: each side timed by its process's CPU time instead of the wall clock (steadier on a loaded machine).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const quick = process.argv.includes('--quick')
  const cpu = process.argv.includes('--cpu')
  const result = await runPythonSection({ opts: { quick, cpu }, log: (s) => console.log(s) })
  if (process.argv.includes('--write')) writeFileSync(join(benchDir, 'results', 'python-latest.json'), JSON.stringify(result, null, 2) + '\n')
}
