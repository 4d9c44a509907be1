#!/usr/bin/env node
// `npm run bench`: the whole benchmark (see bench/README.md). Runs on Node:
// our TypeScript is bundled with esbuild first, the peers come from
// bench/package.json (installed here when missing).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import os from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { benchDir, buildDir, repoDir, resultsDir, workloadsDir, workloadsIndex } from './lib/paths.mjs'
import { parseArgs } from './lib/options.mjs'
import { rng } from './lib/timing.mjs'
import { machine, commandLine, gitState } from './lib/machine.mjs'

const opts = parseArgs(process.argv.slice(2))
if (opts.help) {
  console.log(opts.help)
  process.exit(0)
}
opts.rand = rng(opts.seed)
const log = (s) => console.log(s)

ensurePeers()
if (!existsSync(join(repoDir, 'node_modules', 'esbuild'))) {
  console.error('Root dependencies are missing: run `npm install` (or `npm ci`) at the repo root first.')
  process.exit(1)
}
if (!existsSync(workloadsIndex)) {
  console.error(`Workloads not found at ${workloadsIndex} (set AJS_BENCH_WORKLOADS to their folder).`)
  process.exit(1)
}

// Imported only now: they need the peers installed.
const { buildOurs, bundleSizes, snapshotRev } = await import('./lib/build.mjs')
const { loadSystems } = await import('./lib/systems/index.mjs')
const { runExecution } = await import('./lib/exec.mjs')
const { runColdStart } = await import('./lib/coldstart.mjs')
const { SMALL_NAMES } = await import('./lib/transpile-small.mjs')
const { runHeap } = await import('./lib/heap.mjs')
const { renderMarkdown } = await import('./lib/report.mjs')
const { workloads, pickWorkloads } = await import(pathToFileURL(workloadsIndex).href)

const snapshot = opts.rev ? snapshotRev(opts.rev) : undefined
const srcRoot = snapshot?.root ?? repoDir
const results = {
  date: new Date().toISOString(),
  command: commandLine(process.argv.slice(2)),
  machine: machine(),
  git: gitState(snapshot),
  options: { quick: opts.quick, only: opts.only ?? null, rev: opts.rev ?? null, systems: opts.systems, sections: opts.sections, seed: opts.seed, exec: opts.exec, transpile: opts.transpile, cold: opts.cold, heap: opts.heap },
  notes: [],
}
log(`${results.machine.line}\n${results.command}\n`)

const ours = opts.systems.includes('ours') ? await buildOurs(srcRoot) : { ok: false, reason: 'not selected (--systems)' }
if (!ours.ok) {
  results.notes.push(`ours skipped: ${ours.reason}`)
  log(`ours: SKIPPED — ${ours.reason}\n`)
}
const systems = await loadSystems(opts.systems, ours)
results.systems = systems.map((s) => ({ id: s.id, label: s.label, version: s.version }))

const agent = workloads.find((w) => w.id === 'agent-typical')
const arith = workloads.find((w) => w.id === 'arith-loop')

if (opts.sections.includes('exec')) {
  log('== 1. execution (median per run; × = slowdown vs native)')
  results.exec = await runExecution({ workloads: pickWorkloads(opts.only), systems, opts, log })
}
if (opts.sections.includes('transpile')) {
  log('\n== 2. transpile vs acorn.parse (locations on) on the generated large source')
  const spec = { genLarge: join(workloadsDir, 'gen-large.mjs'), oursBundle: ours.ok ? ours.bundle : undefined, transpile: opts.transpile, seed: opts.seed }
  results.transpile = await runTranspileSizes(spec)
  if (ours.ok) results.transpile.small = runTranspileSmall(ours.bundle)
}
// Cold start and heap run in child processes that are given what they need.
const childSpec = async (w) => {
  const spec = { es5Source: await (await import('./lib/systems/jsinterp.mjs')).toEs5(w.source) }
  if (ours.ok) {
    spec.oursBundle = ours.bundle
    spec.oursVmBundle = ours.vmBundle
    spec.oursBundleMin = ours.bundleMin
    spec.oursVmBundleMin = ours.vmBundleMin
    spec.oursCodeCache = ours.codeCache
    try {
      spec.astText = JSON.stringify(ours.mod.transpile(w.source, { filename: `${w.id}.ajs` }).ast)
    } catch {}
  }
  return spec
}
const nativeResult = (w) => new Function(`${w.source}\nreturn ${w.entry}`)()(w.args)
const childSystems = (extra) => opts.systems.flatMap((id) => (id === 'ours' ? (ours.ok ? extra : []) : [id]))

if (opts.sections.includes('cold')) {
  log(`\n== 3. cold start: fresh node process, import → first result of agent-typical (median of ${opts.cold.spawns})`)
  const ids = childSystems(['ours-source', ...(ours.vmBundle ? ['ours-ast'] : []), ...(ours.codeCache ? ['ours-ast-cached'] : [])])
  results.cold = await runColdStart({ workload: agent, systemIds: ids, spec: await childSpec(agent), expected: nativeResult(agent), opts, log })
}
if (opts.sections.includes('heap')) {
  log('\n== 4. V8 heap allocated by one arith-loop run')
  const ids = childSystems(['ours']).filter((id) => id !== 'quickjs') // QuickJS allocates in wasm memory, not the V8 heap
  results.heap = await runHeap({ workload: arith, systemIds: ids, spec: await childSpec(arith), expected: nativeResult(arith), opts, log })
}
if (opts.sections.includes('bundle')) {
  log('\n== 5. bundle sizes (esbuild, minified, gzip -9)')
  results.bundle = await bundleSizes(srcRoot)
  for (const k of ['vm', 'full']) {
    const b = results.bundle[k]
    log(`  ${k.padEnd(5)} ${b.entry}: ${b.error ? b.error : `${b.platform}: ${b.minBytes} B min, ${b.gzipBytes} B gzip  [${b.packages.join(', ') || 'no packages'}]`}`)
  }
}

if (opts.sections.includes('python')) {
  log('\n== 6. Python code blocks: ajs-lang/python on the VM vs CPython (bench/python.mjs)')
  results.python = await (await import('./python.mjs')).runPythonSection({ opts, log })
}
if (opts.sections.includes('serve')) {
  log('\n== 9. ajsc serve: POST /v1/runs under load (bench/loadtest.mjs; full figures: npm run loadtest)')
  const out = join(buildDir, 'loadtest.json')
  mkdirSync(buildDir, { recursive: true })
  const r = spawnSync(process.execPath, [join(benchDir, 'loadtest.mjs'), '--no-write', '--duration', opts.quick ? '2' : '5', '--json', out], { stdio: 'inherit' })
  if (r.status === 0) results.serve = JSON.parse(readFileSync(out, 'utf8'))
  else results.notes.push('serve section failed (see the log)')
}
if (opts.sections.includes('workflows')) {
  log('\n== 7. workflows: resume cost by journal size, journaling overhead (bench/workflows.mjs)')
  results.workflows = await (await import('./workflows.mjs')).runWorkflowsBench({ quick: opts.quick, log })
}
if (opts.sections.includes('workflows-pg')) {
  log('\n== 10. workflow steps through ajsc serve in memory and ajsc worker processes on PostgreSQL (bench/workflow-pg.mjs)')
  results.workflowsPg = await (await import('./workflow-pg.mjs')).runWorkflowPgBench({ quick: opts.quick, ...(opts.wfSteps ? { steps: opts.wfSteps } : {}), log })
}
if (opts.sections.includes('flowlang')) {
  log('\n== 8. FlowLang: validation, .flow text, flow scripts, one pipeline turn (bench/flowlang.mjs)')
  results.flowlang = await (await import('./flowlang.mjs')).runFlowlangBench({ quick: opts.quick, log })
}
if (opts.sections.includes('codemode')) {
  log('\n== 11. code mode: MCP tool calls through atoms vs the client, describeAtoms for 100 / 1,000 tools (bench/codemode.mjs)')
  results.codemode = await (await import('./codemode.mjs')).runCodemodeBench({ quick: opts.quick, log })
}

results.machine.loadEnd = os.loadavg().map((x) => +x.toFixed(2))
const md = renderMarkdown(results) + (results.python ? (await import('./python.mjs')).renderPythonSection(results.python) : '') + (results.serve ? `\n## 9. ajsc serve under load\n\n${results.serve.markdown.split('\n').slice(2).join('\n')}` : '')
  + (results.workflowsPg ? (await import('./workflow-pg.mjs')).renderWorkflowPg(results.workflowsPg) : '')
  + (results.codemode ? (await import('./codemode.mjs')).renderCodemode(results.codemode) : '')
if (opts.write) {
  mkdirSync(resultsDir, { recursive: true })
  const day = results.date.slice(0, 10)
  const base = join(resultsDir, opts.partial ? `${day}-partial` : day)
  writeFileSync(`${base}.md`, md)
  writeFileSync(`${base}.json`, JSON.stringify(results, null, 2) + '\n')
  log(`\nwrote ${base.slice(repoDir.length + 1)}.md and .json`)
}

/** Section 2 in a fresh process (see lib/transpile-child.mjs); its progress lines pass through. */
/**
 * Section 2 with each source size in its own fresh process: the garbage of a
 * smaller size's parses would otherwise be on the heap while the next size is
 * timed, and the growth exponent would measure the heap, not the work.
 */
async function runTranspileSizes(spec) {
  const { SIZES, summarize } = await import('./lib/transpile.mjs')
  const rows = []
  let last
  for (const size of SIZES) {
    last = runTranspileInChild({ ...spec, only: [size.label] })
    rows.push(...last.sizes)
    // A super-linear transpiler could take minutes on the next size: stop early.
    if (last.sizes.at(-1)?.transpileMs > opts.transpile.maxRunMs) {
      log(`  stopping scaling: one transpile took over ${opts.transpile.maxRunMs} ms`)
      break
    }
  }
  return summarize(rows, last.acornVersion, last.parseOptions)
}

/**
 * The same ratio on the sources an agent is (12 to 3,336 lines; bench/lib/transpile-small.mjs, as
 * bench/transpile-ab.mjs measures): least CPU time per call of each over the rounds, in fresh
 * processes; the median over them.
 */
function runTranspileSmall(bundle) {
  const processes = opts.quick ? 1 : 3
  const runs = []
  for (let p = 0; p < processes; p++) {
    const r = spawnSync(process.execPath, [join(benchDir, 'lib', 'transpile-small-child.mjs'), bundle, opts.quick ? '5' : '25'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    if (r.status !== 0) throw new Error(`transpile section (small sources) failed (exit ${r.status})`)
    runs.push(JSON.parse(r.stdout.trim().split('\n').pop()))
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
  const rows = SMALL_NAMES.map((name, i) => ({ name, lines: runs[0][i].lines, acornUs: median(runs.map((x) => x[i].acorn)) * 1000, transpileUs: median(runs.map((x) => x[i].transpile)) * 1000, ratio: median(runs.map((x) => x[i].transpile / x[i].acorn)) }))
  for (const x of rows) log(`  ${x.name.padEnd(15)} ${String(x.lines).padStart(5)} lines  acorn ${x.acornUs.toFixed(1)} µs  transpile ${x.transpileUs.toFixed(1)} µs  (×${x.ratio.toFixed(2)})`)
  return { processes, rows }
}

function runTranspileInChild(spec) {
  const specPath = join(buildDir, 'transpile-spec.json')
  mkdirSync(buildDir, { recursive: true })
  writeFileSync(specPath, JSON.stringify(spec))
  const child = join(benchDir, 'lib', 'transpile-child.mjs')
  const r = spawnSync(process.execPath, [child, specPath], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 << 20 })
  if (r.status !== 0) throw new Error(`transpile section failed (exit ${r.status})`)
  return JSON.parse(r.stdout.trim().split('\n').pop())
}

/** Install bench/package.json's peers when they are not there yet. */
function ensurePeers() {
  const need = ['sval', 'js-interpreter', 'quickjs-emscripten-core', '@jitl/quickjs-wasmfile-release-sync']
  const have = need.every((p) => existsSync(join(benchDir, 'node_modules', p, 'package.json')))
  if (have) return
  const ci = existsSync(join(benchDir, 'package-lock.json'))
  log(`installing benchmark peers: npm --prefix bench ${ci ? 'ci' : 'install'}`)
  const r = spawnSync('npm', ['--prefix', benchDir, ci ? 'ci' : 'install', '--no-audit', '--no-fund'], { stdio: 'inherit' })
  if (r.status !== 0) {
    console.error('could not install the benchmark peers (see above)')
    process.exit(1)
  }
}
