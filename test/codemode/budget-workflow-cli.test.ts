/**
 * A durable workflow (`ajsc workflow run --atoms`) mints a budget token, calls
 * another `ajsc serve` of the deployment with it and settles the receipt; the
 * workflow's process is killed (SIGKILL) and resumed in a new one
 * (`ajsc workflow resume`). Killed after the server's answer was journaled:
 * the resume neither mints nor calls again, and settles the journaled
 * receipt. Killed while the call runs (the server already spent the token):
 * the resumed call sends the same token, which the server does not run
 * again: it answers with the first run's receipt, which the workflow settles.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { tokenSha256 } from '../../src/server/index.ts'
import { BudgetTokens } from '../../src/codemode/index.ts'
import { startAjsc } from '../server/ajsc-process.ts'
import { spawnAjsc } from '../workflows/helpers.ts'

const KEY_ENV = 'AJS_TEST_BUDGET_KEY'
const KEY = 'workflow-budget-test-key-0123456789abcdef'
process.env[KEY_ENV] = KEY
const ATOMS = resolve(import.meta.dir, 'fixtures/budget-workflow-atoms.mjs')

const CHILD = 'function child({ n }) { let s = 0; for (let i = 0; i < n; i++) s += i; return s }'
const FLOW = `const token = await budgetToken({ fuel: 400 })
const child = await remoteRun({ source: ${JSON.stringify(CHILD)}, n: 50, token })
await hold({})
const settled = child.receipt ? await budgetSettle({ receipt: child.receipt }) : null
export default { token, sum: child.result, childUsed: child.fuelUsed, error: child.error, settled }
`

const children: ChildProcess[] = []
let dir: string
let B: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-budget-wf-'))
  writeFileSync(join(dir, 'budgeted.ajs'), FLOW)
  writeFileSync(join(dir, 'b.json'), JSON.stringify({ tenants: [{ id: 'child', tokenSha256: tokenSha256('b-token') }], budgetTokens: { keyEnv: KEY_ENV } }))
  B = (await startAjsc(['serve', '--config', join(dir, 'b.json'), '--port', '0', '--host', '127.0.0.1', '--pool-size', '1'], /listening on (http:\/\/\S+)/, children)).match[1]!
}, 60_000)

afterAll(() => {
  for (const c of children) c.kill()
  rmSync(dir, { recursive: true, force: true })
})

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [])

/** Run the workflow, kill it once the log shows `holding` in `where`, resume it in a new process; the log and the result. */
async function killAndResume(where: 'hold' | 'call', runsDir: string) {
  const log = join(dir, `${where}.log`)
  const holdFile = join(dir, `${where}.hold`)
  writeFileSync(holdFile, '')
  const env = { ...process.env, NO_COLOR: '1', AJS_BUDGET_WF_LOG: log, AJS_BUDGET_WF_HOLD: holdFile, AJS_BUDGET_WF_HOLD_IN: where, AJS_BUDGET_WF_URL: B }
  const first = spawnAjsc(dir, env, ['workflow', 'run', 'budgeted.ajs', '--atoms', ATOMS, '--runs-dir', runsDir])
  for (let i = 0; i < 1500 && !lines(log).includes(`${where} holding`); i++) await new Promise((r) => setTimeout(r, 20))
  first.child.kill('SIGKILL')
  expect((await first.done).signal).toBe('SIGKILL')
  rmSync(holdFile)
  const [runId] = readdirSync(join(dir, runsDir))
  const second = await spawnAjsc(dir, env, ['workflow', 'resume', runId!, '--atoms', ATOMS, '--runs-dir', runsDir, '--json']).done
  expect(second.stderr).toBe('')
  const report = JSON.parse(second.stdout)
  expect(report.ok).toBe(true)
  return { log: lines(log), result: report.result }
}

test('killed after the server answered: the resume neither mints nor spends again, and settles the journaled receipt', async () => {
  const { log, result } = await killAndResume('hold', 'runs-a')
  const tokens = new BudgetTokens({ key: KEY })
  const claims = tokens.read(result.token)
  expect(result.sum).toBe(1225)
  expect(result.error).toBeNull()
  // One mint (the token the server got is the one the workflow ends with), one call; only the pause ran twice.
  expect(log).toEqual([`call ${result.token}`, `answered ${result.childUsed}`, 'hold', 'hold holding', 'hold'])
  expect(result.settled).toEqual({ id: claims.id, fuel: 400, used: result.childUsed, returned: 400 - result.childUsed })
}, 60_000)

test('killed while the call ran (the token already spent): the resumed call sends the same token and is answered with the first receipt', async () => {
  const { log, result } = await killAndResume('call', 'runs-b')
  expect(log).toEqual([`call ${result.token}`, expect.stringMatching(/^answered \d/), 'call holding', `call ${result.token}`, 'answered BUDGET_TOKEN_ANSWERED', 'hold'])
  expect(result.error).toBe('BUDGET_TOKEN_ANSWERED')
  // The server ran the child once; the retry's receipt is the first run's: settled exactly what it used.
  const firstUsed = Number(log[1]!.split(' ')[1])
  expect(firstUsed).toBeGreaterThan(0)
  expect(result.settled).toEqual({ id: new BudgetTokens({ key: KEY }).read(result.token).id, fuel: 400, used: firstUsed, returned: 400 - firstUsed })
}, 60_000)
