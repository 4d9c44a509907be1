/**
 * Every example of docs/language.md runs: `js ajs` blocks are transpiled,
 * run on the VM and compared with plain JavaScript (unless the block shows a
 * documented difference) and with their `// =>` expected result;
 * `js ajs-reject CODE` blocks must be refused with that code.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { transpile } from '../../src/transpiler/index.ts'
import { loadVm, normalize, runNativeAsync, runVm } from './differential/harness.ts'

const doc = readFileSync(new URL('../../docs/language.md', import.meta.url), 'utf8')
const BLOCK = /```js (ajs|ajs-reject)(?: (\S+))?\n([\s\S]*?)```/g
const blocks = [...doc.matchAll(BLOCK)].map((m, i) => ({ kind: m[1]!, code: m[2], source: m[3]!, index: i }))
const Vm = await loadVm()

const line = (src: string, prefix: string): string | undefined =>
  src.split('\n').find((l) => l.startsWith(prefix))?.slice(prefix.length).trim()

describe('docs/language.md examples', () => {
  test('the doc has runnable and rejected examples', () => {
    expect(blocks.filter((b) => b.kind === 'ajs').length).toBeGreaterThanOrEqual(5)
    expect(blocks.filter((b) => b.kind === 'ajs-reject').length).toBeGreaterThanOrEqual(3)
  })

  for (const b of blocks) {
    if (b.kind === 'ajs-reject') {
      test(`example ${b.index} is refused with ${b.code}`, () => {
        let err: unknown
        try {
          transpile(b.source)
        } catch (e) {
          err = e
        }
        expect(err).toBeInstanceOf(TranspileError)
        expect((err as TranspileError).code).toBe(b.code!)
      })
      continue
    }
    test.skipIf(!Vm)(`example ${b.index} runs`, async () => {
      const args = JSON.parse(line(b.source, '// args:') ?? '{}')
      const expected = line(b.source, '// =>')
      const program = { name: `doc-${b.index}`, source: b.source, args }
      transpile(b.source)
      const vm = await runVm(program, Vm!)
      if (expected !== undefined) expect(vm).toEqual({ ok: true, value: normalize(JSON.parse(expected)) })
      // The "differences" example shows where AJS and JS part ways on purpose.
      if (!b.source.includes('function differences')) expect(vm).toEqual(await runNativeAsync(program))
    })
  }
})

// ```ts blocks that import 'ajs-lang' and assert with bun:test's expect run too (imports pointed at src/index.ts).
const tsBlocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
  .filter((code) => code.includes(`from 'ajs-lang'`) && code.includes(`from 'bun:test'`))
const tsDir = mkdtempSync(join(tmpdir(), 'ajs-langdoc-'))
afterAll(() => rmSync(tsDir, { recursive: true, force: true }))
describe('docs/language.md ts examples', () => {
  test('there are some', () => {
    expect(tsBlocks.length).toBeGreaterThanOrEqual(1)
  })
  tsBlocks.forEach((code, i) => {
    test(`ts example ${i + 1} runs`, async () => {
      const file = join(tsDir, `example-${i + 1}.ts`)
      writeFileSync(file, code.replaceAll(`from 'ajs-lang'`, `from ${JSON.stringify(resolve(import.meta.dir, '../../src/index.ts'))}`))
      await import(file)
    })
  })
})
