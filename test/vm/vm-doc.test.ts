/**
 * docs/vm.md is executable: every ```ts block that imports 'ajs-lang' runs
 * (imports pointed at src/index.ts; results are asserted inside the blocks
 * with bun:test's expect), and its generated tables are current.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { VM_DOC_PATH, renderVmDoc } from '../../scripts/gen-vm-doc.ts'
import { RUNTIME_CODES } from '../../src/diagnostics/runtime-codes.ts'
import { ATOM_COSTS } from '../../src/vm/fuel.ts'

const doc = readFileSync(VM_DOC_PATH, 'utf8')
const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((code) => code.includes(`from 'ajs-lang'`))
const entry = resolve(import.meta.dir, '../../src/index.ts')
const dir = mkdtempSync(join(tmpdir(), 'ajs-vmdoc-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('docs/vm.md', () => {
  test('has runnable examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(7)
  })
  blocks.forEach((code, i) => {
    test(`example ${i + 1} runs`, async () => {
      const file = join(dir, `example-${i + 1}.ts`)
      writeFileSync(file, code.replaceAll(`from 'ajs-lang'`, `from ${JSON.stringify(entry)}`))
      await import(file)
    })
  })
  test('the generated tables are current (run `npx bun scripts/gen-vm-doc.ts`)', () => {
    expect(doc).toBe(renderVmDoc(doc))
  })
  test('every error code and every atom cost is in the doc', () => {
    for (const code of Object.keys(RUNTIME_CODES)) expect(doc).toContain(`| \`${code}\` |`)
    for (const op of Object.keys(ATOM_COSTS)) expect(doc).toContain(`| \`${op}\` |`)
  })
})
