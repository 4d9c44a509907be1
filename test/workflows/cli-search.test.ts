/**
 * Issue 24, listing and search on the local file store: `ajsc workflow run --name --tag --attr`,
 * upsertAttributes in the workflow, and `ajsc workflow ls --status --tag --attr --name` (text and --json);
 * bad flags are refused with their code before any run directory exists.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajscIn } from './helpers.ts'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-wf-search-'))
  writeFileSync(join(dir, 'digest.ajs'), `upsertAttributes({ stage: 'sent', items: args.items })
if (args.fail) throw new Error('no feed')
export default args.items
`)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ajsc = (...argv: string[]) => ajscIn(dir, argv)
const ids = async (...filters: string[]) => {
  const r = await ajsc('workflow', 'ls', '--json', ...filters)
  expect(r.code).toBe(0)
  return (JSON.parse(r.out).runs as Array<{ runId: string; name?: string }>).map((x) => x.name)
}

test('runs are listed by state, tags, attributes (given at start or upserted by the workflow) and name', async () => {
  const run = async (name: string, ...more: string[]) => (await ajsc('workflow', 'run', 'digest.ajs', '--name', name, ...more)).code
  expect(await run('acme-eu', '--tag', 'digest', '--tag', 'eu', '--attr', 'customer=acme', '--args', '{"items":3}')).toBe(0)
  expect(await run('acme-us', '--tag', 'digest', '--attr', 'customer=acme', '--attr', 'priority=2', '--args', '{"items":5}')).toBe(0)
  expect(await run('globex-eu', '--tag', 'eu', '--attr', 'customer=globex', '--args', '{"items":1,"fail":true}')).toBe(1)

  expect(await ids()).toEqual(['acme-eu', 'acme-us', 'globex-eu'])
  expect(await ids('--status', 'failed')).toEqual(['globex-eu'])
  expect(await ids('--tag', 'eu')).toEqual(['acme-eu', 'globex-eu'])
  expect(await ids('--tag', 'eu', '--tag', 'digest')).toEqual(['acme-eu'])
  expect(await ids('--attr', 'customer=acme')).toEqual(['acme-eu', 'acme-us'])
  expect(await ids('--attr', 'customer=acme', '--attr', 'priority=2')).toEqual(['acme-us'])
  expect(await ids('--attr', 'items=5')).toEqual(['acme-us']) // upserted by the workflow, a number matched by its text
  expect(await ids('--attr', 'stage=sent', '--status', 'complete')).toEqual(['acme-eu', 'acme-us'])
  expect(await ids('--name', 'globex-eu', '--tag', 'eu')).toEqual(['globex-eu'])
  expect(await ids('--tag', 'nope')).toEqual([])

  const text = await ajsc('workflow', 'ls', '--tag', 'digest', '--attr', 'priority=2')
  expect(text.out).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}  complete  phase -  budget 0 spent  \S+digest\.ajs  "acme-us" #digest\n$/)
  const [listed] = JSON.parse((await ajsc('workflow', 'ls', '--json', '--name', 'acme-us')).out).runs
  expect(listed).toMatchObject({ name: 'acme-us', tags: ['digest'], attributes: { customer: 'acme', priority: 2, stage: 'sent', items: 5 } })
  const show = await ajsc('workflow', 'show', listed.runId)
  expect(show.out).toContain('tags      digest\nattrs     customer="acme" priority=2 stage="sent" items=5\n')
})

test('bad flags: a code, exit 1, and no run directory', async () => {
  const before = readdirSync(join(dir, '.ajs', 'runs')).length
  const tooMany = Array.from({ length: 17 }, (_, i) => ['--tag', `t${i}`]).flat()
  const r = await ajsc('workflow', 'run', 'digest.ajs', '--json', ...tooMany)
  expect(r.code).toBe(1)
  expect(JSON.parse(r.out).diagnostics[0]).toMatchObject({ code: 'SEARCH_ATTRIBUTES_LIMIT' })
  const bad = await ajsc('workflow', 'run', 'digest.ajs', '--json', '--attr', 'no-equals-sign')
  expect(JSON.parse(bad.out).diagnostics[0]).toMatchObject({ code: 'SEARCH_ATTRIBUTES_INVALID' })
  expect(readdirSync(join(dir, '.ajs', 'runs')).length).toBe(before)
  const status = await ajsc('workflow', 'ls', '--json', '--status', 'done')
  // A wrong flag value is a usage error: exit 2, as for every command (README, Exit codes).
  expect([status.code, JSON.parse(status.out).diagnostics[0].code]).toEqual([2, 'CLI_USAGE'])
  const attr = await ajsc('workflow', 'ls', '--json', '--attr', '=x')
  expect([attr.code, JSON.parse(attr.out).diagnostics[0].code]).toEqual([1, 'SEARCH_ATTRIBUTES_INVALID'])
})
