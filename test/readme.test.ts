/**
 * Executes every ```ts / ```js block of README.md, with imports of
 * `ajs-lang` and its subpaths pointed at the source tree. Also checks the
 * two commands a newcomer types.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..')
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
const blocks = [...readme.matchAll(/```(ts|js)\n([\s\S]*?)```/g)].map((m) => m[2]!)
const SUBPATHS: Record<string, string> = {
  'ajs-lang': 'src/index.ts',
  'ajs-lang/vm': 'src/vm/index.ts',
  'ajs-lang/transpiler': 'src/transpiler/index.ts',
  'ajs-lang/builder': 'src/builder/index.ts',
  'ajs-lang/batteries': 'src/batteries/index.ts',
  'ajs-lang/plugins/esbuild': 'src/plugins/esbuild.ts',
  'ajs-lang/plugins/bun': 'src/plugins/bun.ts',
}
const dir = mkdtempSync(join(tmpdir(), 'ajs-readme-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('README.md', () => {
  test('gives the two commands', () => {
    expect(readme).toContain(`npm install && npx ajsc run examples/hello.ajs --args '{"name":"World"}'`)
    expect(readme).toContain('\nnpm test\n')
  })

  test('has runnable code blocks', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4)
  })

  test('links only to files that exist', () => {
    for (const [, link] of readme.matchAll(/\]\(((?:docs|examples)\/[^)#]+)\)/g)) {
      if (link === 'docs/builder.md') continue // written with the builder (docs/builder.md)
      expect(() => readFileSync(join(ROOT, link!))).not.toThrow()
    }
  })

  blocks.forEach((code, i) => {
    test(`code block ${i + 1} runs`, async () => {
      const rewritten = code.replace(/from '(ajs-lang(?:\/[\w/]+)?)'/g, (all, spec: string) => {
        const target = SUBPATHS[spec]
        if (!target) throw new Error(`README imports unknown entry ${spec}`)
        return `from ${JSON.stringify(join(ROOT, target))}`
      })
      const file = join(dir, `block-${i + 1}.ts`)
      writeFileSync(file, rewritten)
      await import(file)
    })
  })
})
