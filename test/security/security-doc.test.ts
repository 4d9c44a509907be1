/**
 * docs/security.md is executable: its ```ts blocks importing 'ajs-lang' run
 * (assertions inside them), and the cost-model table names the constants
 * src/vm/fuel.ts actually uses.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { CHAR_COST, ENTRY_BYTES, PROP_BYTES, SCAN_COST, SLOT_BYTES, SLOT_COST, SOURCE_CHAR_COST, fromUnits } from '../../src/vm/fuel.ts'
import { FREE_COPY_NODES } from '../../src/vm/membrane.ts'
import { MIN_TRANSPILE_CHARS_PER_MS } from '../../src/vm/source-cache.ts'

const doc = readFileSync(resolve(import.meta.dir, '../../docs/security.md'), 'utf8')
const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((code) => code.includes(`from 'ajs-lang'`))
const entry = resolve(import.meta.dir, '../../src/index.ts')
const dir = mkdtempSync(join(tmpdir(), 'ajs-secdoc-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('docs/security.md', () => {
  test('has a runnable example', () => expect(blocks.length).toBeGreaterThanOrEqual(1))
  blocks.forEach((code, i) => {
    test(`example ${i + 1} runs`, async () => {
      const file = join(dir, `example-${i + 1}.ts`)
      writeFileSync(file, code.replaceAll(`from 'ajs-lang'`, `from ${JSON.stringify(entry)}`))
      await import(file)
    })
  })
  test('the cost model states the constants in use', () => {
    const table = doc.slice(doc.indexOf('## Cost model'), doc.indexOf('## Notable defences'))
    expect(table).toContain(`${fromUnits(CHAR_COST).toFixed(5)} per character (\`CHAR_COST\`)`)
    expect(table).toContain(`${fromUnits(SLOT_COST).toFixed(4)} per element or property (\`SLOT_COST\`)`)
    expect(table).toContain(`${fromUnits(SCAN_COST).toFixed(5)} per element or character read (\`SCAN_COST\`)`)
    expect(table).toContain(`${fromUnits(SOURCE_CHAR_COST).toFixed(4)} per source character (\`SOURCE_CHAR_COST\`)`)
    expect(table).toContain(`${SLOT_BYTES} bytes per element, ${PROP_BYTES} per object property`)
    expect(table).toContain(`${ENTRY_BYTES} per \`[key, value]\` pair`)
    expect(table).toContain(`beyond the first ${FREE_COPY_NODES} (\`FREE_COPY_NODES\`)`)
    expect(table).toContain(`\`timeoutMs\` × ${MIN_TRANSPILE_CHARS_PER_MS} characters`)
  })
})
