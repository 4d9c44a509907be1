/**
 * The differential corpus: every body runs on the VM and its result must equal CPython's, compared
 * as json.dumps(result, sort_keys=True) text, or raise the same exception class. CPython's outputs
 * are committed (corpus/expected.json; regenerate with `npx bun test/python/corpus/regen.ts`), so
 * this runs without python3.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { allCases, EXPECTED_PATH, MODEL_EXPECTED_PATH, type CorpusCase } from './corpus/cases.ts'
import { createPythonVM, pythonError, transpilePython } from '../../src/python/index.ts'

type Expected = { python: string; cases: Record<string, { json?: string; error?: string; message?: string }> }
const expected = JSON.parse(readFileSync(EXPECTED_PATH, 'utf8')) as Expected
Object.assign(expected.cases, (JSON.parse(readFileSync(MODEL_EXPECTED_PATH, 'utf8')) as Expected).cases)
const cases = allCases()
const vm = createPythonVM()

/** What our VM gives for a case, in the harness's terms. */
export async function observe(c: CorpusCase, profile: 'contract' | 'extended' = c.profile ?? 'contract'): Promise<{ json?: string; error?: string; message?: string; other?: string; log?: string }> {
  let ast
  try {
    ast = transpilePython(c.body, { params: c.params, jsonText: true, profile }).ast
  } catch (e) {
    // A syntax refusal at compile time is CPython's SyntaxError at compile time.
    if ((e as { code?: string }).code === 'AJS7001') return { error: 'SyntaxError' }
    return { other: `refused: ${String(e)}` }
  }
  const lines: string[] = []
  const r = await vm.run(ast, { initial: c.initial, ...c.input }, { fuel: 1e6, onLog: ({ message }) => { lines.push(`${message}\n`) } })
  const log = lines.length ? { log: lines.join('') } : {}
  if (r.error) {
    const err = pythonError(r.error)
    if (!err?.pythonType) return { other: `${r.error.code}: ${r.error.message}` }
    return c.messages ? { error: err.pythonType, message: err.message, ...log } : { error: err.pythonType, ...log }
  }
  return { json: r.result as string, ...log }
}

describe(`differential corpus against ${expected.python}`, () => {
  test('has at least 400 cases, at least 150 written by hand, at least 250 model-style, and an expected output for each', () => {
    expect(cases.length).toBeGreaterThanOrEqual(400)
    expect(cases.filter((c) => c.name.startsWith('hand/')).length).toBeGreaterThanOrEqual(150)
    // Issue 27: at least 600 bodies, half written the way models write code.
    expect(cases.filter((c) => c.name.startsWith('model/')).length).toBeGreaterThanOrEqual(Math.max(250, cases.length / 4))
    for (const c of cases) expect(expected.cases[c.name]).toBeDefined()
  })
  test.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    expect(await observe(c)).toEqual(expected.cases[c.name]!)
  })
  test('the contract bodies run the same in the extended profile (a superset)', async () => {
    for (const c of cases.filter((x) => !x.profile)) expect([c.name, await observe(c, 'extended')]).toEqual([c.name, expected.cases[c.name]!])
  })
  test('the contract profile refuses each extended body (hint naming the profile) or runs it exactly', async () => {
    let refused = 0
    for (const c of cases.filter((x) => x.profile === 'extended')) {
      try {
        transpilePython(c.body, { params: c.params, profile: 'contract' })
      } catch (e) {
        refused++
        // The contract checks a helper's arguments at compile time; CPython raises that TypeError at run time.
        if ((e as { codeName?: string }).codeName === 'PY_ARGUMENTS' && expected.cases[c.name]?.error === 'TypeError') continue
        expect([c.name, (e as { hint?: string }).hint]).toEqual([c.name, expect.stringContaining("profile: 'extended'")])
        continue
      }
      expect([c.name, await observe(c, 'contract')]).toEqual([c.name, expected.cases[c.name]!])
    }
    expect(refused).toBeGreaterThan(30)
  })
})
