/**
 * `import 'ajs-lang/vm'` reads few files (issue 28, cold start): Node's module loader pays per file,
 * and esbuild's statement-level splitting had cut the VM into 17 chunks (17-20 ms to import against
 * 7 ms for the same code in one file). scripts/vm-core.mjs puts the VM in two layer files,
 * dist/chunks/vm-core and vm-base; this counts the files each format's graph reaches (no timing),
 * and checks that the transpiler loads the small base layer, never the whole VM.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { ensureBuilt, ROOT } from './built.ts'

/** The files an entry's static import (ESM) or require (CJS) graph reaches inside dist/. */
function graph(entry: string): string[] {
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*|\brequire\(\s*)"(\.{1,2}\/[^"]+)"/g)) {
      const target = resolve(dirname(file), m[1]!)
      if (existsSync(target)) visit(target)
    }
  }
  visit(join(ROOT, 'dist', entry))
  return [...seen].map((f) => f.slice(join(ROOT, 'dist').length + 1)).sort()
}

/** The files per import of ajs-lang/vm: the entry and the two layers (the entry re-exports straight from the core: scripts/build.mjs). */
const MAX_VM_FILES = 3

describe('dist/: the files behind ajs-lang/vm', () => {
  ensureBuilt()
  for (const entry of ['vm.js', 'vm.cjs']) {
    test(`${entry} reaches at most ${MAX_VM_FILES} files, the VM core among them`, () => {
      const files = graph(entry)
      console.log(`${entry}: ${files.length} files (${files.join(', ')})`)
      expect(files.length).toBeLessThanOrEqual(MAX_VM_FILES)
      expect(files).toContain(`chunks/vm-core${entry.slice(2)}`)
    })
  }
  test('the transpiler loads the base layer, not the VM core', () => {
    const files = graph('transpiler.js')
    expect(files).toContain('chunks/vm-base.js')
    expect(files).not.toContain('chunks/vm-core.js')
  })
})
