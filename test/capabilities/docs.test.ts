/**
 * Executes every ```ts block of docs/capabilities.md. Imports from 'ajs-lang'
 * are pointed at the source tree; the block that needs the VM runs once
 * src/index.ts exports AgentVM.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import * as root from '../../src/index.ts'

const docPath = resolve(import.meta.dir, '../../docs/capabilities.md')
const blocks = [...readFileSync(docPath, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
const dir = mkdtempSync(join(tmpdir(), 'ajs-capdocs-'))
const shim = join(dir, 'ajs-lang.ts')
writeFileSync(shim, [
  `export * from ${JSON.stringify(resolve(import.meta.dir, '../../src/capabilities/index.ts'))}`,
  `export * from ${JSON.stringify(resolve(import.meta.dir, '../../src/index.ts'))}`,
].join('\n'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('docs/capabilities.md', () => {
  test('has runnable examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5)
  })

  blocks.forEach((code, i) => {
    const needsVm = code.includes('AgentVM')
    test.skipIf(needsVm && !('AgentVM' in root))(`example ${i + 1} runs`, async () => {
      const file = join(dir, `example-${i + 1}.ts`)
      writeFileSync(file, code.replaceAll(`from 'ajs-lang'`, `from ${JSON.stringify(shim)}`))
      await import(file)
    })
  })
})
