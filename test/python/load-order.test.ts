/**
 * Each module of the Python runtime loads first on its own: no import cycle reads a binding before
 * its module has run (a TDZ ReferenceError), whichever file a host or a test imports first.
 */
import { expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'

const DIR = resolve(import.meta.dir, '../../src/python/runtime')
const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'))

test('every runtime module loads as the first one imported', () => {
  expect(files.length).toBeGreaterThan(30)
  // One child process: each module in a fresh import graph would need one process each; instead each
  // is imported first in its own child, in batches of one import per child (cheap with Bun).
  const failures: string[] = []
  for (const f of files) {
    const r = spawnSync(process.execPath, ['-e', `await import(${JSON.stringify(join(DIR, f))})`], { encoding: 'utf8', timeout: 60_000 })
    if (r.status !== 0) failures.push(`${f}: ${(r.stderr || r.stdout).split('\n').find((l) => /Error/.test(l)) ?? r.status}`)
  }
  expect(failures).toEqual([])
}, 120_000)
