/**
 * `ajsc help <name>` for a name that is no command printed the whole help
 * with exit 2 and no 'unknown command' line; now the CLI_USAGE error of
 * `ajsc frobnicate`, with did-you-mean, in groups too (`ajsc flow help rn`).
 * `ajsc help flow validate` showed flow's help; now flow validate's.
 */
import { describe, expect, test, setDefaultTimeout } from 'bun:test'
import { ajsc } from './run-cli.ts'

setDefaultTimeout(30_000)

describe('ajsc help <unknown>', () => {
  test.each([
    [['help', 'frob'], "unknown command 'frob'", 'Run `ajsc --help` for the commands.'],
    [['help', 'rn'], "unknown command 'rn' (did you mean run?)", 'Run `ajsc --help` for the commands.'],
    [['flow', 'help', 'rn'], "unknown command 'rn' (did you mean run?)", 'Run `ajsc flow --help` for the options.'],
    [['help', 'flow', 'valdate'], "unknown command 'valdate' (did you mean validate?)", 'Run `ajsc flow --help` for the options.'],
  ])('%p: CLI_USAGE, exit 2, as an unknown command', (args, message, hint) => {
    const r = ajsc(args)
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(`error CLI_USAGE: ${message}\nhint: ${hint}\n`)
    expect(r.stdout).toBe('')
    const j = ajsc([...args, '--json'])
    expect(j.code).toBe(2)
    expect(JSON.parse(j.stdout).diagnostics).toEqual([{ severity: 'error', code: 'CLI_USAGE', message, hint }])
  })

  test('a known topic still prints its help on stdout, exit 0', () => {
    for (const [args, usage] of [[['help', 'run'], 'Usage: ajsc run '], [['help', 'flow', 'validate'], 'Usage: ajsc flow validate '], [['flow', 'help', 'run'], 'Usage: ajsc flow run '], [['help'], 'Usage: ajsc ']] as const) {
      const r = ajsc([...args])
      expect([args, r.code, r.stdout.startsWith(usage)]).toEqual([args, 0, true])
    }
  })
})
