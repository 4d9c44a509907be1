/**
 * Each module of the Python runtime loads first on its own: no import cycle reads a binding before
 * its module has run (a TDZ ReferenceError), whichever file a host or a test imports first.
 */
import { expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'

const SRC = resolve(import.meta.dir, '../../src/python')
const files = ['runtime', '.'].flatMap((d) => readdirSync(join(SRC, d)).filter((f) => f.endsWith('.ts')).map((f) => join(SRC, d, f)))

test('every module of the Python frontend and runtime loads as the first one imported', () => {
  expect(files.length).toBeGreaterThan(50)
  // A child process for each: only a fresh process imports a given file first.
  const failures: string[] = []
  for (const f of files) {
    const r = spawnSync(process.execPath, ['-e', `await import(${JSON.stringify(f)})`], { encoding: 'utf8', timeout: 60_000 })
    if (r.status !== 0) failures.push(`${f}: ${(r.stderr || r.stdout).split('\n').find((l) => /Error/.test(l)) ?? r.status}`)
  }
  expect(failures).toEqual([])
}, 120_000)
