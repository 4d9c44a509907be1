/**
 * docs/code-mode.md is executable: every ```ts block that imports 'ajs-lang'
 * or 'ajs-lang/codemode' runs (also importing 'ajs-lang/workflows', '/server', '/client') (imports pointed at src/; results asserted
 * inside the blocks with bun:test's expect).
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '../..')
const doc = readFileSync(join(ROOT, 'docs/code-mode.md'), 'utf8')
const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((code) => /from 'ajs-lang(\/codemode)?'/.test(code))
const dir = mkdtempSync(join(tmpdir(), 'ajs-codemode-doc-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('docs/code-mode.md', () => {
  test('has runnable examples', () => expect(blocks.length).toBeGreaterThanOrEqual(1))
  blocks.forEach((code, i) => {
    test(`example ${i + 1} runs`, async () => {
      const file = join(dir, `example-${i + 1}.ts`)
      writeFileSync(file, code
        .replaceAll(`from 'ajs-lang/codemode'`, `from ${JSON.stringify(join(ROOT, 'src/codemode/index.ts'))}`)
        .replaceAll(`from 'ajs-lang/workflows'`, `from ${JSON.stringify(join(ROOT, 'src/workflows/index.ts'))}`)
        .replaceAll(`from 'ajs-lang/server'`, `from ${JSON.stringify(join(ROOT, 'src/server/index.ts'))}`)
        .replaceAll(`from 'ajs-lang/client'`, `from ${JSON.stringify(join(ROOT, 'src/client/index.ts'))}`)
        .replaceAll(`from 'ajs-lang'`, `from ${JSON.stringify(join(ROOT, 'src/index.ts'))}`)
        .replaceAll(`'test/codemode/`, `'${ROOT}/test/codemode/`))
      await import(file)
    }, 20_000)
  })
})
