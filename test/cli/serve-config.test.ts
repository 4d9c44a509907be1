/**
 * `ajsc serve --config` and `ajsc worker --config`: a config file that is
 * JSON but not a valid config is a bad input file, as one that is not JSON:
 * CLI_CONFIG, exit 1 (it was CLI_USAGE, exit 2), located at the key to fix.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from './run-cli.ts'

setDefaultTimeout(30_000)

const HASH = 'a'.repeat(64)
let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajsc-serve-config-'))
  writeFileSync(join(dir, 'unknown-key.json'), `{\n  "tenants": [\n    {\n      "id": "team",\n      "tokenSha256": "${HASH}",\n      "limits": { "fuell": 5 }\n    }\n  ]\n}\n`)
  writeFileSync(join(dir, 'bad-value.json'), `{\n  "tenants": [\n    { "id": "team", "tokenSha256": "abc" }\n  ]\n}\n`)
  writeFileSync(join(dir, 'no-tenants.json'), '{ "limits": {} }\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('a config that parses but is wrong: CLI_CONFIG, exit 1, at the offending key', () => {
  test('an unknown key is marked at the key, with the key path and the keys allowed', () => {
    const r = ajsc(['serve', '--config', 'unknown-key.json', '--port', '0'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('unknown-key.json:6:19: error CLI_CONFIG: --config unknown-key.json: config.tenants[0].limits.fuell: unknown key')
    expect(r.stderr).toContain('> 6 |       "limits": { "fuell": 5 }\n    |                   ^')
    expect(r.stderr).toContain('hint: Fix the key the message names')
  })

  test('an unknown key names the key it is closest to, at every level of the file', () => {
    writeFileSync(join(dir, 'limits.json'), `{ "tenants": [{ "id": "team", "tokenSha256": "${HASH}", "limits": { "timeotMs": 5 } }] }\n`)
    const r = ajsc(['serve', '--config', 'limits.json', '--port', '0'], { cwd: dir })
    expect(r.stderr).toContain('limits.json:1:126: error CLI_CONFIG: --config limits.json: config.tenants[0].limits.timeotMs: unknown key (did you mean "timeoutMs"? expected one of: fuelPerRun,')
    writeFileSync(join(dir, 'misspelt.json'), `{ "tenant": [] }\n`)
    expect(ajsc(['serve', '--config', 'misspelt.json', '--port', '0'], { cwd: dir }).stderr).toContain('config.tenant: unknown key (did you mean "tenants"?')
    writeFileSync(join(dir, 'plan.json'), `{ "tenants": [{ "id": "team", "tokenSha256": "${HASH}", "plan": { "maxFule": 5 } }], "budgetTokens": {} }\n`)
    expect(ajsc(['serve', '--config', 'plan.json', '--port', '0'], { cwd: dir }).stderr).toContain('config.tenants[0].plan.maxFule: unknown key (did you mean "maxFuel"?')
    writeFileSync(join(dir, 'budget.json'), `{ "tenants": [{ "id": "team", "tokenSha256": "${HASH}" }], "budgetTokens": { "maxDeph": 2 } }\n`)
    expect(ajsc(['serve', '--config', 'budget.json', '--port', '0'], { cwd: dir }).stderr).toContain('config.budgetTokens.maxDeph: unknown key (did you mean "maxDepth"?')
    // Nothing close (unknown-key.json's "fuell"): the keys allowed only.
    expect(ajsc(['serve', '--config', 'unknown-key.json', '--port', '0'], { cwd: dir }).stderr).toContain('config.tenants[0].limits.fuell: unknown key (expected one of: fuelPerRun,')
  })

  test('a wrong value is marked at its key; a missing key at its parent', () => {
    const bad = ajsc(['serve', '--config', 'bad-value.json', '--port', '0'], { cwd: dir })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('bad-value.json:3:21: error CLI_CONFIG: --config bad-value.json: config.tenants[0].tokenSha256: must be the hex SHA-256')
    const missing = ajsc(['serve', '--config', 'no-tenants.json', '--port', '0'], { cwd: dir })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('no-tenants.json:1:1: error CLI_CONFIG: --config no-tenants.json: config.tenants: must be a non-empty array')
  })

  test('worker: the same code and exit status', () => {
    const r = ajsc(['worker', '--config', 'unknown-key.json', '--database', 'postgres://127.0.0.1:1/x'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('unknown-key.json:6:19: error CLI_CONFIG')
  })

  test('the same exit status as a config that is not JSON (CLI_BAD_JSON)', () => {
    writeFileSync(join(dir, 'not-json.json'), '{ "tenants": [ }\n')
    const notJson = ajsc(['serve', '--config', 'not-json.json', '--port', '0'], { cwd: dir })
    expect(notJson.stderr).toContain('error CLI_BAD_JSON')
    expect(notJson.code).toBe(ajsc(['serve', '--config', 'bad-value.json', '--port', '0'], { cwd: dir }).code)
  })
})
