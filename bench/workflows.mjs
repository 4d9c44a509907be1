// Workflows: the cost of replay and of journaling (issue 17).
//
//   1. resume time at ~1,000 and ~10,000 journal entries (a loop of agent calls,
//      every one resolved in the journal): replay is one run from the top, so the
//      ratio of the two should be ~10 (linear), never ~100;
//   2. a workflow of 1,000 agent calls answered at once, driven through
//      poll / takePendingRequests / resolveRequest: the plain VM with an instant
//      `agent` atom (no journal) vs the workflow runtime with its journal in
//      memory vs the durable default (file store, fsync per poll batch).
//
// Standalone: `node bench/workflows.mjs` (prints a table); `npm run bench --
// --sections workflows` runs it as a section of the full benchmark.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { buildDir, repoDir } from './lib/paths.mjs'
import { median, now } from './lib/timing.mjs'

async function loadOurs() {
  const outfile = join(buildDir, 'ajs-workflows.mjs')
  await build({
    absWorkingDir: repoDir,
    entryPoints: [join(repoDir, 'bench', 'workflows-entry.ts')],
    bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, logLevel: 'warning',
  })
  return import(`${pathToFileURL(outfile).href}?t=${Date.now()}`)
}

const LOOP = `for (let i = 0; i < args.n; i++) await agent('q' + i)\nexport default args.n`

async function driveInstantly(w, execution) {
  for (;;) {
    const p = await execution.poll()
    if (p === 'Pending') continue
    if ('Complete' in p) return p.Complete.result
    if ('Call' in p) continue
    for (const r of execution.takePendingRequests()) execution.resolveRequest(r.id, { Ok: r.prompt })
  }
}

async function journalOf(w, program, n) {
  const ex = w.startWorkflow(program, { args: { n } })
  await driveInstantly(w, ex)
  const journal = ex.journal()
  ex.dispose()
  return journal
}

/** Median of `rounds` timed calls, and the fastest (the least disturbed by other processes). */
async function timeMs(fn, rounds, { fastest = false } = {}) {
  const xs = []
  for (let i = 0; i < rounds; i++) {
    const t0 = now()
    await fn()
    xs.push(now() - t0)
  }
  return fastest ? Math.min(...xs) : median(xs)
}

export async function runWorkflowsBench({ quick = false, log = console.log } = {}) {
  const w = await loadOurs()
  const rounds = quick ? 3 : 9
  const program = w.compileWorkflow(LOOP, { sourceName: 'loop.ajs' })
  const out = { resume: [], journaling: {} }

  // Replay is timed by its fastest round: on a shared machine the median mostly measures other processes.
  log('  resume (replay of a journal where every request is resolved; fastest of ' + rounds + ')')
  for (const requests of [499, 4999, 9999]) {
    const journal = await journalOf(w, program, requests)
    await w.resumeWorkflow(program, journal).then((ex) => ex.dispose()) // warm-up
    const ms = await timeMs(async () => {
      const ex = await w.resumeWorkflow(program, journal)
      const p = await ex.poll()
      if (!(typeof p === 'object' && 'Complete' in p)) throw new Error('replay did not complete')
      ex.dispose()
    }, rounds, { fastest: true })
    out.resume.push({ entries: journal.length, ms: +ms.toFixed(2), usPerEntry: +((ms * 1000) / journal.length).toFixed(2) })
    log(`    ${String(journal.length).padStart(6)} entries: ${ms.toFixed(1).padStart(8)} ms  (${((ms * 1000) / journal.length).toFixed(2)} µs/entry)`)
  }
  const [r1, r10, r20] = out.resume
  out.resumeRatio = +(r10.ms / r1.ms).toFixed(2)
  out.resumeRatio20 = +(r20.ms / r10.ms).toFixed(2)
  // Fixed costs (compile, event-loop turns) weigh on the small journal; the marginal cost per entry shows the growth.
  out.marginalUsPerEntry = +(((r20.ms - r10.ms) * 1000) / (r20.entries - r10.entries)).toFixed(2)
  log(`    ratio 10k/1k: ${out.resumeRatio} (at most ~10: no super-linear growth), 20k/10k: ${out.resumeRatio20} (linear: ~2); marginal ${out.marginalUsPerEntry} µs/entry`)

  const n = 1000
  log(`  journaling overhead: ${n} agent calls answered at once (median of ${rounds})`)
  const vm = new w.AgentVM([w.defineAtom('agent', { type: 'object' }, undefined, async ({ prompt }) => prompt, { timeoutMs: 0 })])
  const plain = w.transpile(`function loop({ n }) { for (let i = 0; i < n; i++) agent({ prompt: 'q' + i })\nreturn n }`).ast
  const vmMs = await timeMs(async () => {
    const r = await vm.run(plain, { n }, { fuel: 1e7 })
    if (r.result !== n) throw new Error(JSON.stringify(r.error))
  }, rounds)
  const memMs = await timeMs(async () => {
    const ex = w.startWorkflow(program, { args: { n } })
    await driveInstantly(w, ex)
    ex.dispose()
  }, rounds)
  const dir = mkdtempSync(join(tmpdir(), 'ajs-wf-bench-'))
  let k = 0
  const fileMs = await timeMs(async () => {
    const ex = w.startWorkflow(program, { args: { n }, store: new w.FileJournalStore(dir), executionId: `run-${k++}` })
    await driveInstantly(w, ex)
    ex.dispose()
  }, quick ? 1 : 3)
  rmSync(dir, { recursive: true, force: true })
  out.journaling = {
    calls: n,
    vmMs: +vmMs.toFixed(2),
    memoryJournalMs: +memMs.toFixed(2),
    fileJournalMs: +fileMs.toFixed(2),
    memoryOverheadUsPerCall: +(((memMs - vmMs) * 1000) / n).toFixed(1),
    fileOverheadUsPerCall: +(((fileMs - vmMs) * 1000) / n).toFixed(1),
  }
  log(`    plain VM, instant agent atom:         ${vmMs.toFixed(1).padStart(8)} ms`)
  log(`    workflow, journal in memory:          ${memMs.toFixed(1).padStart(8)} ms  (+${out.journaling.memoryOverheadUsPerCall} µs per call)`)
  log(`    workflow, file journal (fsync/batch): ${fileMs.toFixed(1).padStart(8)} ms  (+${out.journaling.fileOverheadUsPerCall} µs per call)`)
  return out
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runWorkflowsBench({ quick: process.argv.includes('--quick') })
}
