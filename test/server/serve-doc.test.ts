/**
 * docs/serve.md is executable and current: its ts examples run (imports
 * pointed at src/), its config example is accepted, its tables of flags,
 * defaults and routes match the code.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DEFAULT_SERVER_LIMITS, DEFAULT_TENANT_LIMITS, createServer, parseServeConfig, singleTenantConfig } from '../../src/server/index.ts'
import { SERVER_CODES } from '../../src/diagnostics/server-codes.ts'
import { ajsc } from '../cli/run-cli.ts'

const doc = readFileSync(resolve(import.meta.dir, '../../docs/serve.md'), 'utf8')
const src = (p: string) => JSON.stringify(resolve(import.meta.dir, '../../src', p))
const examples = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
const dir = mkdtempSync(join(tmpdir(), 'ajs-servedoc-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('docs/serve.md', () => {
  test('has runnable examples', () => expect(examples.length).toBeGreaterThanOrEqual(3))
  examples.forEach((code, i) => {
    test(`example ${i + 1} runs`, async () => {
      const file = join(dir, `example-${i + 1}.ts`)
      writeFileSync(file, code.replaceAll(`from 'ajs-lang/server'`, `from ${src('server/index.ts')}`).replaceAll(`from 'ajs-lang/client'`, `from ${src('client/index.ts')}`))
      await import(file)
    }, 20_000)
  })

  test('the config example is a valid serve config', () => {
    const configs = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!)).filter((j) => 'tenants' in j)
    expect(configs.length).toBe(1)
    const config = parseServeConfig(configs[0])
    expect(config.tenants[0]!.limits.fuelPerRun).toBe(5000)
  })

  test('the one-process example answers as shown (fuel: the run and the source, 0.0001 per character)', async () => {
    const section = doc.slice(doc.indexOf('### One process'), doc.indexOf('### N workers'))
    expect(section).toContain('AJS_SERVE_TOKEN=change-me')
    const body = /-d '(\{.*\})'/.exec(section)![1]!
    const answer = /^# (\{.*\})$/m.exec(section)![1]!
    const server = await createServer({ config: singleTenantConfig('change-me'), pool: { size: 1 } })
    try {
      const r = await server.app.inject({ method: 'POST', url: '/v1/runs', headers: { authorization: 'Bearer change-me', 'content-type': 'application/json' }, payload: body })
      expect(r.json()).toEqual(JSON.parse(answer))
    } finally {
      await server.close()
    }
  })

  test('the custom atoms example: the module, named in the config example, serves the documented answer', async () => {
    const section = doc.slice(doc.indexOf('## Custom atoms'), doc.indexOf('## API'))
    const module = /```js\n([\s\S]*?)```/.exec(section)![1]!
    writeFileSync(join(dir, 'atoms.mjs'), module.replaceAll(`from 'ajs-lang'`, `from ${src('index.ts')}`))
    const configJson = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!)).find((j) => 'tenants' in j)
    expect(configJson.atoms).toEqual(['./atoms.mjs'])
    const body = /-d '(\{.*\})'/.exec(section)![1]!
    const answer = /^# (\{.*\})$/m.exec(section)![1]!
    const server = await createServer({ config: parseServeConfig(configJson, { baseDir: dir }), pool: { size: 1 } })
    try {
      const r = await server.app.inject({ method: 'POST', url: '/v1/runs', headers: { authorization: 'Bearer test', 'content-type': 'application/json' }, payload: body })
      expect(r.json()).toEqual(JSON.parse(answer))
      // The "batch" tenant of the example narrows the atoms to none (its token is not in the doc; atoms.test.ts runs such a tenant).
      const batch = parseServeConfig(configJson, { baseDir: dir }).tenants.find((t) => t.id === 'batch')!
      expect(batch.atoms).toEqual([])
    } finally {
      await server.close()
    }
  })

  test('the limit tables show the defaults of the code', () => {
    const rows = new Map([...doc.matchAll(/^\| `(\w+)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()]))
    for (const [k, v] of Object.entries({ ...DEFAULT_TENANT_LIMITS, ...DEFAULT_SERVER_LIMITS })) expect([k, rows.get(k)]).toEqual([k, String(v)])
  })

  test('every flag in the tables exists in `ajsc serve --help` / `ajsc worker --help`', () => {
    const help = ajsc(['serve', '--help']).stdout + ajsc(['worker', '--help']).stdout
    const flags = [...doc.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]!)
    expect(flags.length).toBeGreaterThan(10)
    for (const f of new Set(flags)) expect([f, help.includes(f)]).toEqual([f, true])
  })

  test('every flag of `ajsc serve --help` has a row in the table, and every flag of `ajsc worker --help` is named', () => {
    const flagsOf = (help: string) => [...help.matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm)].map((m) => m[1]!).filter((f) => f !== '--help')
    const rows = new Set([...doc.matchAll(/^\| `(--[a-z-]+)/gm)].map((m) => m[1]!))
    const serve = flagsOf(ajsc(['serve', '--help']).stdout)
    expect(serve.length).toBeGreaterThan(10)
    expect(serve.filter((f) => !rows.has(f))).toEqual([])
    const workerLine = /`ajsc worker` accepts ([\s\S]*?)\. Both/.exec(doc)![1]!
    expect(flagsOf(ajsc(['worker', '--help']).stdout).filter((f) => !workerLine.includes(`\`${f}\``))).toEqual([])
  })

  test('the status table lists every code of the HTTP API under its status', () => {
    const rows = new Map([...doc.matchAll(/^\| (\d{3}) \| (.*) \|$/gm)].map((m) => [Number(m[1]), m[2]!]))
    // status 0: the client's own codes (no answer from the server).
    const missing = Object.entries(SERVER_CODES).filter(([code, spec]) => spec.status !== 0 && !rows.get(spec.status)?.includes(`\`${code}\``))
    expect(missing.map(([code, spec]) => `${spec.status} ${code}`)).toEqual([])
  })

  test('the route table lists exactly the routes of /openapi.json', async () => {
    const server = await createServer({ config: singleTenantConfig('t'), pool: { size: 1 } })
    const openapi = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> }
    await server.close()
    const real = Object.entries(openapi.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)).sort()
    const documented = [...doc.matchAll(/^\| `((?:GET|POST|PATCH|DELETE) \/[^`]*)` \|/gm)].map((m) => m[1]!).sort()
    expect(documented).toEqual(real)
  })
})
