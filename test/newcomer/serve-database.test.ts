/** Issue 29, item 5: an unreachable PostgreSQL is the user's CLI_DATABASE with a hint, not CLI_INTERNAL and a stack. */
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from '../cli/run-cli.ts'

describe('5. ajsc serve --database with the database down', () => {
  test('serve: exit 1, CLI_DATABASE, the password redacted, no stack, no token shown', () => {
    const r = ajsc(['serve', '--port', '0', '--database', 'postgres://ajs:s3cret@127.0.0.1:1/ajs'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('error CLI_DATABASE: cannot use the database postgres://ajs:***@127.0.0.1:1/ajs: connect ECONNREFUSED 127.0.0.1:1 (ECONNREFUSED)')
    expect(r.stderr).toContain('hint: Check that PostgreSQL runs')
    expect(r.stderr).not.toContain('s3cret')
    expect(r.stderr).not.toContain('CLI_INTERNAL')
    expect(r.stderr).not.toMatch(/\n\s+at /)
    expect(r.stderr).not.toContain('token (shown once)')
  })
  test('worker: the same', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ajs-db-')), 'serve.json')
    writeFileSync(file, JSON.stringify({ tenants: [{ id: 't', tokenSha256: 'a'.repeat(64) }] }))
    const r = ajsc(['worker', '--config', file, '--database', 'postgres://ajs@127.0.0.1:1/ajs'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('error CLI_DATABASE')
  })
})
