/**
 * Regenerates expected.json and expected_model.json: runs every corpus body in CPython (python3, one process for all) via
 * cpython_harness.py. Run: npx bun test/python/corpus/regen.ts
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CORPUS_DIR, EXPECTED_PATH, MODEL_EXPECTED_PATH, allCases } from './cases.ts'

const cases = allCases()
const py = spawnSync('python3', [join(CORPUS_DIR, 'cpython_harness.py')], { input: JSON.stringify(cases), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
if (py.status !== 0) {
  process.stderr.write(py.stderr)
  process.exit(1)
}
const results = JSON.parse(py.stdout) as Record<string, unknown>
const version = spawnSync('python3', ['--version'], { encoding: 'utf8' }).stdout.trim()
const pick = (model: boolean) => Object.fromEntries(Object.entries(results).filter(([name]) => name.startsWith('model/') === model))
for (const [path, part] of [[EXPECTED_PATH, pick(false)], [MODEL_EXPECTED_PATH, pick(true)]] as const) {
  writeFileSync(path, JSON.stringify({ python: version, cases: part }, null, 1) + '\n')
  console.log(`${Object.keys(part).length} cases -> ${path} (${version})`)
}
