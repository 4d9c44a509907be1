/**
 * docs/workflows.md is executable: every ```ts block runs (imports of
 * 'ajs-lang/workflows' and 'ajs-lang' pointed at src/), and every ```js block is a workflow
 * module that compiles.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { compileWorkflow } from '../../src/workflows/index.ts'
import { WORKFLOW_CODES } from '../../src/diagnostics/workflow-codes.ts'

const doc = readFileSync(resolve(import.meta.dir, '../../docs/workflows.md'), 'utf8')
const blocks = (lang: string) => [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!)
const entry = resolve(import.meta.dir, '../../src/workflows/index.ts')
const root = resolve(import.meta.dir, '../../src/index.ts')
const dir = mkdtempSync(join(tmpdir(), 'ajs-wfdoc-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('docs/workflows.md', () => {
  const ts = blocks('ts')
  test('has runnable examples', () => expect(ts.length).toBeGreaterThanOrEqual(3))
  ts.forEach((code, i) => {
    test(`example ${i + 1} runs`, async () => {
      const file = join(dir, `example-${i + 1}.ts`)
      writeFileSync(file, code.replaceAll(`from 'ajs-lang/workflows'`, `from ${JSON.stringify(entry)}`).replaceAll(`from 'ajs-lang'`, `from ${JSON.stringify(root)}`))
      await import(file)
    })
  })
  test('every workflow module shown compiles', () => {
    const modules = blocks('js')
    expect(modules.length).toBeGreaterThanOrEqual(1)
    for (const m of modules) expect(compileWorkflow(m).ast.ajs).toBe(1)
  })
  test('every workflow error code is documented in docs/errors.md', () => {
    const errors = readFileSync(resolve(import.meta.dir, '../../docs/errors.md'), 'utf8')
    for (const code of Object.keys(WORKFLOW_CODES)) expect(errors).toContain(`| \`${code}\` |`)
  })
})
