/**
 * The guest's console reaches the host (issue 11, point 6): the `onLog` run
 * option, trace entries, warnings, and stderr in `ajsc run`.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AgentVM, ajs, type LogEntry } from '../../src/index.ts'
import { ajsc } from '../cli/run-cli.ts'

const vm = new AgentVM()
const LOUD = ajs`
  function loud({ n }) {
    console.log('n is', n, { n })
    console.info('info')
    console.warn('careful')
    console.error('bad', [1])
    consoleLog({ message: 'atom' })
    return { n }
  }
`

describe('onLog', () => {
  test('gets every line with its level, as it happens', async () => {
    const lines: LogEntry[] = []
    const r = await vm.run(LOUD, { n: 2 }, { onLog: (entry) => lines.push(entry) })
    expect(r.result).toEqual({ n: 2 })
    expect(lines).toEqual([
      { level: 'log', message: 'n is 2 {"n":2}' },
      { level: 'info', message: 'info' },
      { level: 'warn', message: 'careful' },
      { level: 'error', message: 'bad [1]' },
      { level: 'log', message: 'atom' },
    ])
    expect(r.warnings).toEqual(['careful'])
  })

  test('a throwing onLog does not fail the run; a non-function is refused', async () => {
    expect((await vm.run(LOUD, { n: 1 }, { onLog: () => { throw new Error('sink down') } })).result).toEqual({ n: 1 })
    expect((await vm.run(LOUD, { n: 1 }, { onLog: 'stderr' as any })).error?.code).toBe('OPTIONS_INVALID')
  })

  test('lines of a child agent (agentRun) reach the same onLog', async () => {
    const child = ajs`function child() { console.log('from child'); return 1 }`
    const parent = ajs`function parent({ child }) { console.log('from parent'); return agentRun({ agentId: child }) }`
    const lines: string[] = []
    const r = await vm.run(parent, { child }, { onLog: ({ message }) => lines.push(message) })
    expect(r.result).toBe(1)
    expect(lines).toEqual(['from parent', 'from child'])
  })
})

describe('trace', () => {
  test('console lines are trace entries between the steps', async () => {
    const r = await vm.run(LOUD, { n: 3 }, { trace: true })
    const logs = r.trace!.filter((t) => t.op.startsWith('console.'))
    expect(logs.map((t) => [t.op, t.message])).toEqual([
      ['console.log', 'n is 3 {"n":3}'], ['console.info', 'info'], ['console.warn', 'careful'], ['console.error', 'bad [1]'], ['console.log', 'atom'],
    ])
    expect(logs.every((t) => t.fuel === 0 && t.fuelTotal > 0)).toBe(true)
  })
})

describe('ajsc run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ajs-console-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  test('console output goes to stderr, the result alone to stdout', () => {
    const file = join(dir, 'log.ajs')
    writeFileSync(file, 'function f({ n = 1 }) { console.log("working on", n); console.error("oops"); return { n } }\n')
    const r = ajsc(['run', file])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ n: 1 })
    expect(r.stderr).toContain('working on 1')
    expect(r.stderr).toContain('oops')
  })
})
