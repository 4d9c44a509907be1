/**
 * Regenerates expected.json: runs every corpus body in CPython (python3, one process for all) via
 * cpython_harness.py. Run: npx bun test/python/corpus/regen.ts
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CORPUS_DIR, EXPECTED_PATH, allCases } from './cases.ts'

const cases = allCases()
const py = spawnSync('python3', [join(CORPUS_DIR, 'cpython_harness.py')], { input: JSON.stringify(cases), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
if (py.status !== 0) {
  process.stderr.write(py.stderr)
  process.exit(1)
}
const results = JSON.parse(py.stdout) as Record<string, unknown>
const version = spawnSync('python3', ['--version'], { encoding: 'utf8' }).stdout.trim()
writeFileSync(EXPECTED_PATH, JSON.stringify({ python: version, cases: results }, null, 1) + '\n')
console.log(`${Object.keys(results).length} cases -> ${EXPECTED_PATH} (${version})`)
