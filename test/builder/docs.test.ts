/**
 * Executes every ```ts block of docs/builder.md (the blocks assert their own
 * results with node:assert). Imports from 'ajs-lang' point at src/index.ts.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const docPath = resolve(import.meta.dir, '../../docs/builder.md')
const blocks = [...readFileSync(docPath, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
const dir = mkdtempSync(join(tmpdir(), 'ajs-builderdocs-'))
const entry = JSON.stringify(resolve(import.meta.dir, '../../src/index.ts'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('docs/builder.md', () => {
  test('has runnable examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6)
  })
  blocks.forEach((code, i) => {
    test(`example ${i + 1} runs`, async () => {
      const file = join(dir, `example-${i + 1}.ts`)
      writeFileSync(file, code.replaceAll(`from 'ajs-lang'`, `from ${entry}`))
      await import(file)
    })
  })
})
