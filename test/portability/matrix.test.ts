/**
 * One AST, any host: the portability matrix. One program per frontend
 * (programs.ts), each run on every host that runs ASTs:
 *
 * - the main entry's AgentVM in-process;
 * - `ajs-lang/vm` in headless Chromium, with the opt-in runtime libraries
 *   (`runtime-python.min.js`, `runtime-flow.min.js`) and without them;
 * - `ajsc run` on the built JSON (the packaged CLI, dist/cli.js);
 * - `ajsc serve` (`POST /v1/runs` with the AST);
 * - `ajsc worker` on PostgreSQL (`POST /v1/runs?async=1`, run by the worker).
 *
 * Every host gives the same result, or, where it lacks a library, the clear
 * refusal (LIBRARY_MISSING naming how to supply it). The table in
 * docs/ast.md ("Which host runs what") is checked against what the hosts did.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext } from 'playwright-core'
import { AgentVM } from '../../src/index.ts'
import { tokenSha256 } from '../../src/server/index.ts'
import { ensureBuilt, ROOT } from '../package/built.ts'
import { haveChromium, launchChromium, type TestBrowser } from '../package/chromium.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from '../server/postgres.ts'
import { portablePrograms, type PortableProgram } from './programs.ts'

const havePostgres = postgresAvailable()
if (!haveChromium) console.warn('portability matrix: the Chromium hosts are skipped (no /usr/bin/chromium; .ci/run installs it)')
if (!havePostgres) console.warn('portability matrix: the ajsc worker host is skipped (no initdb; .ci/run installs PostgreSQL)')

interface Outcome {
  result: unknown
  code: string | null
  hint: string | null
}

const programs = portablePrograms()
/** host → frontend → what it did, for the docs table check. */
const observed = new Map<string, Map<string, Outcome>>()

function record(host: string, p: PortableProgram, o: Outcome): void {
  if (!observed.has(host)) observed.set(host, new Map())
  observed.get(host)!.set(p.frontend, o)
}

/** The program ran to its expected result, or was refused the way a host without its engine must refuse it. */
function expectPortable(host: string, p: PortableProgram, o: Outcome, kind: 'library' | 'cli' | 'server' = 'library'): void {
  record(host, p, o)
  if (p.refused) {
    expect({ frontend: p.frontend, code: o.code }).toEqual({ frontend: p.frontend, code: p.refused.code })
    expect(o.hint ?? '').toContain(p.refused.hint[kind])
  } else {
    expect({ frontend: p.frontend, code: o.code, result: o.result }).toEqual({ frontend: p.frontend, code: null, result: p.result })
  }
}

const CLI = join(ROOT, 'dist/cli.js')
const children: ChildProcess[] = []
let dir: string

/** `node dist/cli.js <args>` as a long-running child; resolves when stdout matches `ready`. */
function startCli(args: string[], ready: RegExp): Promise<RegExpExecArray> {
  const child = spawn('node', [CLI, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let out = ''
  let err = ''
  child.stderr!.on('data', (c) => { err += c })
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`ajsc ${args[0]} not ready after 60 s: ${out}${err}`)), 60_000)
    child.stdout!.on('data', (c) => {
      out += c
      const m = ready.exec(out)
      if (m) { clearTimeout(timer); ok(m) }
    })
    child.once('exit', (code) => { clearTimeout(timer); fail(new Error(`ajsc ${args[0]} exited (${code}): ${err}`)) })
  })
}

function serveConfig(): string {
  const file = join(dir, 'ajs-serve.json')
  writeFileSync(file, JSON.stringify({ tenants: [{ id: 'matrix', tokenSha256: tokenSha256('matrix-token') }] }))
  return file
}

async function post(url: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: 'Bearer matrix-token', 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, json: await res.json() }
}

const fromRunResult = (r: { result?: unknown; error?: { code: string; hint?: string } }): Outcome => ({ result: r.result ?? null, code: r.error?.code ?? null, hint: r.error?.hint ?? null })

beforeAll(() => {
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'ajs-matrix-'))
}, 240_000)

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM')
  await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null
    ? Promise.race([new Promise((r) => c.once('exit', r)), new Promise((r) => setTimeout(r, 5_000))]) : null)))
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('the main entry\'s AgentVM, in-process', () => {
  for (const p of programs) {
    test(p.frontend, async () => {
      expectPortable('AgentVM (ajs-lang)', p, fromRunResult(await new AgentVM().run(p.ast, p.args)))
    })
  }
})

describe('ajsc run on the built JSON', () => {
  for (const p of programs) {
    test(p.frontend, () => {
      const file = join(dir, `${p.frontend.replace(/\W+/g, '-')}.json`)
      writeFileSync(file, JSON.stringify(p.ast))
      const r = spawnSync('node', [CLI, 'run', file, '--args', JSON.stringify(p.args), '--json'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
      const report = JSON.parse(r.stdout) as { ok: boolean; result: unknown; diagnostics: Array<{ code: string; hint?: string }> }
      expect(r.status).toBe(report.ok ? 0 : 1)
      const first = report.diagnostics.find((d) => (d as { severity?: string }).severity === 'error')
      expectPortable('ajsc run', p, { result: report.result, code: first?.code ?? null, hint: first?.hint ?? null }, 'cli')
    }, 30_000)
  }
})

describe('ajsc serve: POST /v1/runs with the AST', () => {
  let url: string
  beforeAll(async () => {
    const m = await startCli(['serve', '--config', serveConfig(), '--port', '0', '--pool-size', '1'], /listening on (http:\/\/\S+)/)
    url = m[1]!
  }, 90_000)
  for (const p of programs) {
    test(p.frontend, async () => {
      const r = await post(url, '/v1/runs', { ast: p.ast, args: p.args })
      const outcome = r.status === 200 ? fromRunResult(r.json) : fromRunResult({ error: r.json.error })
      expectPortable('ajsc serve', p, outcome, 'server')
      if (p.refused) {
        expect(r.status).toBe(422)
        // The hint speaks the server's terms (an endpoint), not a library option.
        expect(outcome.hint).not.toContain('new AgentVM')
      }
    }, 30_000)
  }
})

describe.skipIf(!havePostgres)('ajsc worker on PostgreSQL: POST /v1/runs?async=1 runs on the worker', () => {
  let db: TestPostgres
  let url: string
  beforeAll(async () => {
    db = await startPostgres()
    const common = ['--database', db.url, '--config', serveConfig()]
    const m = await startCli(['serve', ...common, '--port', '0', '--job-concurrency', '0', '--pool-size', '1'], /listening on (http:\/\/\S+)/)
    url = m[1]!
    await startCli(['worker', ...common, '--pool-size', '1'], /running jobs as (\S+)/)
  }, 120_000)
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM')
    await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null
      ? Promise.race([new Promise((r) => c.once('exit', r)), new Promise((r) => setTimeout(r, 5_000))]) : null)))
    await db?.stop()
  }, 30_000)
  for (const p of programs) {
    test(p.frontend, async () => {
      const started = await post(url, '/v1/runs?async=1', { ast: p.ast, args: p.args })
      if (started.status !== 202) {
        expectPortable('ajsc worker', p, fromRunResult({ error: started.json.error }), 'server')
        return
      }
      const id = started.json.id as string
      let record: any
      for (let i = 0; i < 300; i++) {
        const res = await fetch(`${url}/v1/runs/${id}`, { headers: { authorization: 'Bearer matrix-token' } })
        record = await res.json()
        if (record.result !== undefined) break
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(record.result).toBeDefined()
      expectPortable('ajsc worker', p, fromRunResult(record.result), 'server')
    }, 60_000)
  }
})

describe.skipIf(!haveChromium)('ajs-lang/vm in headless Chromium', () => {
  let server: http.Server
  let browser: BrowserContext
  let chrome: TestBrowser | undefined
  let origin: string
  beforeAll(async () => {
    const files: Record<string, Buffer> = {}
    for (const name of ['vm.min.js', 'runtime-python.min.js', 'runtime-flow.min.js']) files[`/${name}`] = readFileSync(join(ROOT, 'dist/browser', name))
    server = http.createServer((req, res) => {
      const body = files[req.url ?? '']
      if (body) res.writeHead(200, { 'content-type': 'text/javascript' }).end(body)
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>ajs</title>')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    chrome = await launchChromium()
    browser = chrome.context
  }, 90_000)
  afterAll(async () => {
    await chrome?.close()
    server?.closeAllConnections()
    server?.close()
  })

  /** Run every program on one fresh page that loads vm.min.js and the given runtime libraries. */
  async function inPage(libraries: string[]): Promise<Outcome[]> {
    const page = await browser.newPage()
    try {
      await page.goto(`${origin}/`)
      // Plain JSON in and out: the page's modules are the browser's, typed loosely here.
      const input: any = { programs: JSON.parse(JSON.stringify(programs.map((p) => ({ ast: p.ast, args: p.args })))), libraries, vmUrl: '/vm.min.js' }
      return await page.evaluate(async ({ programs, libraries, vmUrl }: any) => {
        const { AgentVM } = await import(vmUrl)
        for (const lib of libraries) await import(`/${lib}`)
        const vm = new AgentVM()
        const out = []
        for (const p of programs) {
          const r = await vm.run(p.ast, p.args)
          out.push({ result: r.result ?? null, code: r.error?.code ?? null, hint: r.error?.hint ?? null })
        }
        return out
      }, input) as Outcome[]
    } finally {
      await page.close()
    }
  }

  test('with the opt-in runtime libraries: every frontend\'s AST runs (the workflow module is refused)', async () => {
    const outcomes = await inPage(['runtime-python.min.js', 'runtime-flow.min.js'])
    programs.forEach((p, i) => expectPortable('ajs-lang/vm + runtime libraries (Chromium)', p, outcomes[i]!))
  }, 60_000)

  test('without them: programs that declare a library are refused by name, with the import that supplies it', async () => {
    const outcomes = await inPage([])
    programs.forEach((p, i) => {
      const o = outcomes[i]!
      record('ajs-lang/vm alone (Chromium)', p, o)
      const needsModule = p.libraries.some((l) => l === 'python' || l === 'flow')
      if (p.refused) expect(o.code).toBe(p.refused.code)
      else if (needsModule) {
        expect({ frontend: p.frontend, code: o.code }).toEqual({ frontend: p.frontend, code: 'LIBRARY_MISSING' })
        expect(o.hint).toContain('ajs-lang/runtime/')
      } else expect({ frontend: p.frontend, code: o.code, result: o.result }).toEqual({ frontend: p.frontend, code: null, result: p.result })
    })
  }, 60_000)
})

describe('docs/ast.md: "Which host runs what" matches what the hosts did', () => {
  test('every cell of the table is what the host did with that program', () => {
    const doc = readFileSync(join(ROOT, 'docs/ast.md'), 'utf8')
    const start = doc.indexOf('### Which host runs what')
    expect(start).toBeGreaterThan(0)
    const rest = doc.slice(start + 4)
    const section = rest.slice(0, rest.search(/\n#{2,3} /))
    const rows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| ---')).map((l) => l.split('|').slice(1, -1).map((c) => c.trim()))
    const [header, ...body] = rows
    expect(header?.[0]).toBe('program ↓ / host →')
    const hosts = header!.slice(1).map((h) => h.replace(/`/g, ''))
    expect(body.map((r) => r[0])).toEqual(programs.map((p) => p.frontend))
    let checked = 0
    for (const row of body) {
      hosts.forEach((host, i) => {
        const seen = observed.get(host)?.get(row[0]!)
        if (!seen) return // a host skipped on this machine (no Chromium / PostgreSQL)
        const cell = row[i + 1]!
        expect({ host, program: row[0], cell }).toEqual({ host, program: row[0], cell: seen.code === null ? 'runs' : `refused: ${seen.code}` })
        checked++
      })
    }
    expect(checked).toBeGreaterThanOrEqual(programs.length * 3)
  })
})

describe('docs/ast.md: "Programs declare what they need" is executable', () => {
  test('every ts example of the section runs', async () => {
    const doc = readFileSync(join(ROOT, 'docs/ast.md'), 'utf8')
    const start = doc.indexOf('### Programs declare what they need')
    const rest = doc.slice(start + 4)
    const section = rest.slice(0, rest.search(/\n#{2,3} /))
    const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
    expect(blocks.length).toBeGreaterThanOrEqual(1)
    const entries: Record<string, string> = { 'ajs-lang/vm': 'src/vm/index.ts', 'ajs-lang/python': 'src/python/index.ts', 'ajs-lang': 'src/index.ts' }
    for (const [i, code] of blocks.entries()) {
      let text = code
      for (const [spec, path] of Object.entries(entries)) text = text.replaceAll(`from '${spec}'`, `from ${JSON.stringify(join(ROOT, path))}`)
      const file = join(dir, `declare-example-${i}.ts`)
      writeFileSync(file, text)
      await import(file)
    }
  })
})

