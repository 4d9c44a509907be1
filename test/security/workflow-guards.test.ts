/**
 * Hardening round 3, class 8: a child workflow reference can never leave the
 * parent's directory (`..`, an absolute path elsewhere, a symlink out), on the
 * one path every child goes through.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startLocalRun } from '../../src/workflows/index.ts'

const root = mkdtempSync(join(tmpdir(), 'ajs-wf-guard-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
mkdirSync(join(root, 'flows', 'sub'), { recursive: true })
writeFileSync(join(root, 'secret.ajs'), 'export default "outside"\n')
writeFileSync(join(root, 'flows', 'sub', 'ok.ajs'), 'export default "inside"\n')
symlinkSync(join(root, 'secret.ajs'), join(root, 'flows', 'link.ajs'))

const run = async (ref: string) => {
  const file = join(root, 'flows', `main-${Math.random().toString(36).slice(2)}.ajs`)
  writeFileSync(file, `let r\ntry { r = await workflow(${ref}) } catch (e) { r = 'refused: ' + e.message }\nexport default r\n`)
  return (await startLocalRun({ file, runsDir: join(root, '.runs') } as never)).result as string
}

test.each([
  ['a parent-directory reference', `'../secret'`],
  ['an absolute path elsewhere', JSON.stringify(join(root, 'secret.ajs'))],
  ['a scriptPath with ..', `{ scriptPath: '../secret.ajs' }`],
  ['a symlink pointing out', `'link'`],
])('%s is refused', async (_name, ref) => {
  expect(await run(ref)).toMatch(/^refused: .*outside the workflow's directory/)
})

test('a child below the parent\'s directory still runs', async () => {
  expect(await run(`'sub/ok'`)).toBe('inside')
})
