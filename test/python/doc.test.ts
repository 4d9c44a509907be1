/**
 * docs/python.md is executable: every ```ts block runs, with `ajs-lang`, `ajs-lang/python` and `ajs-lang/workflows`
 * imports pointed at the source tree (results are asserted inside the blocks).
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '../..')
const doc = readFileSync(join(ROOT, 'docs/python.md'), 'utf8')
const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
const dir = mkdtempSync(join(tmpdir(), 'ajs-pydoc-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('docs/python.md', () => {
  test('has runnable examples', () => expect(blocks.length).toBeGreaterThanOrEqual(4))
  blocks.forEach((code, i) => {
    test(`example ${i + 1} runs`, async () => {
      const file = join(dir, `example-${i + 1}.ts`)
      writeFileSync(file, code
        .replaceAll(`from 'ajs-lang/python'`, `from ${JSON.stringify(join(ROOT, 'src/python/index.ts'))}`)
        .replaceAll(`from 'ajs-lang/workflows'`, `from ${JSON.stringify(join(ROOT, 'src/workflows/index.ts'))}`)
        .replaceAll(`from 'ajs-lang'`, `from ${JSON.stringify(join(ROOT, 'src/index.ts'))}`))
      await import(file)
    })
  })
})
