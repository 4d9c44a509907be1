/** `ajsc run`: spawns the real CLI for each input form, output mode and exit code. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc, ajscAsync } from './run-cli.ts'

let dir: string
const file = (name: string, text: string) => { const p = join(dir, name); writeFileSync(p, text); return p }

beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'ajsc-run-')) })
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ajsc run: success (exit 0)', () => {
  test('runs examples/hello.ajs with --args and prints the result as JSON', () => {
    const r = ajsc(['run', 'examples/hello.ajs', '--args', '{"name":"World"}'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ greeting: 'Hello, World!', length: 13 })
  })

  test('uses the default of a parameter when no args are given', () => {
    const r = ajsc(['run', 'examples/hello.ajs'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).greeting).toBe('Hello, World!')
  })

  test('--args @file.json and --args - (stdin)', () => {
    const args = file('args.json', '{"name":"File"}')
    expect(JSON.parse(ajsc(['run', 'examples/hello.ajs', '--args', `@${args}`]).stdout).greeting).toBe('Hello, File!')
    expect(JSON.parse(ajsc(['run', 'examples/hello.ajs', '--args', '-'], { input: '{"name":"Stdin"}' }).stdout).greeting).toBe('Hello, Stdin!')
  })

  test('stdin is read only when asked: a piped stdin is not taken as arguments', () => {
    const viaShell = Bun.spawnSync(['sh', '-c', `echo '{"name":"Pipe"}' | "${process.execPath}" src/cli/main.ts run examples/hello.ajs`], { cwd: join(import.meta.dir, '../..') })
    expect(viaShell.exitCode).toBe(0)
    expect(JSON.parse(viaShell.stdout.toString()).greeting).toBe('Hello, World!')
  })

  test('--json prints the report (result, fuelUsed, diagnostics); --trace adds fuel per step', () => {
    const r = ajsc(['run', 'examples/hello.ajs', '--json', '--trace'])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    const result = JSON.parse(r.stdout)
    expect(result).toMatchObject({ command: 'run', ok: true, exitCode: 0, diagnostics: [] })
    expect(result.result.greeting).toBe('Hello, World!')
    expect(result.fuelUsed).toBeGreaterThan(0)
    expect(result.trace.map((t: { op: string }) => t.op)).toEqual(['constSet', 'return'])
    expect(result.trace[0].location).toBe('examples/hello.ajs:6:9')
  })

  test('--trace prints a readable table on stderr and keeps stdout pure JSON', () => {
    const r = ajsc(['run', 'examples/hello.ajs', '--trace'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).length).toBe(13)
    expect(r.stderr).toMatch(/#\s+op\s+location\s+fuel\s+total\s+ms/)
    expect(r.stderr).toMatch(/1\s+constSet\s+examples\/hello\.ajs:6:9\s+\d+\.\d{3}/)
    expect(r.stderr).toContain('fuel used:')
  })

  test('runs a .json AST produced by ajsc build', () => {
    const src = file('sq.ajs', 'function sq({ n }) { return { sq: n * n } }')
    expect(ajsc(['build', src]).code).toBe(0)
    const r = ajsc(['run', join(dir, 'sq.json'), '--args', '{"n":7}'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ sq: 49 })
  })

  test('the in-memory store is there by default', () => {
    const src = file('store.ajs', `function s() { storeSet({ key: 'k', value: [1, 2] }); return { v: storeGet({ key: 'k' }) } }`)
    expect(JSON.parse(ajsc(['run', src]).stdout)).toEqual({ v: [1, 2] })
  })

  test('a proc_ token stored by one run is run by the next with --procedures', () => {
    const procs = join(dir, 'procs.json')
    const store = file('store-proc.ajs', 'function keep({ ast }) { return { token: storeProcedure({ ast }) } }')
    const helloAst = JSON.parse(ajsc(['build', '-', '--minify'], { input: 'function hi({ who }) { return { hi: who } }' }).stdout)
    const first = ajsc(['run', store, '--procedures', procs, '--args', JSON.stringify({ ast: helloAst })])
    expect(first.code).toBe(0)
    const { token } = JSON.parse(first.stdout)
    expect(token).toStartWith('proc_')
    const second = ajsc(['run', token, '--procedures', procs, '--args', '{"who":"again"}'])
    expect(second.code).toBe(0)
    expect(JSON.parse(second.stdout)).toEqual({ hi: 'again' })
  })
})

describe('ajsc run: program errors (exit 1)', () => {
  test('a thrown error is reported at file:line:col', () => {
    const src = file('boom.ajs', `function boom({ n }) {\n  if (n > 1) throw new Error('too big')\n  return { n }\n}`)
    const r = ajsc(['run', src, '--args', '{"n":5}'])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/boom\.ajs:2:\d+: error THROWN: .*too big/)
  })

  test('a transpile error prints the diagnostic and a code frame', () => {
    const src = file('bad.ajs', 'function f({ a }) {\n  return { b }\n}')
    const r = ajsc(['run', src])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('bad.ajs:2:12: error AJS3001:')
    expect(r.stderr).toContain('> 2 |   return { b }')
  })

  test('fuel and timeout limits', () => {
    const src = file('spin.ajs', 'function spin() { let i = 0; while (true) { i++ } return { i } }')
    const fuel = ajsc(['run', src, '--fuel', '5', '--json'])
    expect(fuel.code).toBe(1)
    expect(JSON.parse(fuel.stdout).diagnostics[0].code).toBe('FUEL_EXHAUSTED')
    const timeout = ajsc(['run', src, '--fuel', '1e12', '--timeout', '30'])
    expect(timeout.code).toBe(1)
    expect(timeout.stderr).toContain('error TIMEOUT')
    expect(timeout.stderr).toContain('hint: Raise the limit with --timeout <ms> (this run had 30 ms)')
  })

  test('no network unless granted', () => {
    const src = file('net.ajs', `function net({ url }) { return { status: httpFetch({ url }).status } }`)
    const r = ajsc(['run', src, '--args', '{"url":"http://example.com/"}', '--json'])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).diagnostics[0]).toMatchObject({ code: 'CAPABILITY_MISSING', hint: expect.stringContaining('--allow-fetch') })
  })

  test('a missing file (also as --args @file) and an invalid AST file', () => {
    expect(ajsc(['run', join(dir, 'nope.ajs')]).code).toBe(1)
    const args = ajsc(['run', 'examples/hello.ajs', '--args', '@/nonexistent/args.json'])
    expect(args.code).toBe(1)
    expect(args.stderr).toContain('error CLI_NOT_FOUND: /nonexistent/args.json: no such file')
    const bad = file('bad-ast.json', '{"ajs":1,"op":"seq","steps":"nope"}')
    const r = ajsc(['run', bad])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('bad-ast.json: error AST_INVALID: /steps')
    const unknown = ajsc(['run', file('unknown-op.json', '{"ajs":1,"op":"seq","steps":[{"op":"frobnicate"}]}')])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('error UNKNOWN_ATOM')
  })
})

describe('ajsc run: usage errors (exit 2)', () => {
  test.each([
    [['run', 'examples/hello.ajs', '--args', '{bad'], 'not valid JSON'],
    [['run', 'examples/hello.ajs', '--args', '[1]'], 'must be a JSON object'],
    [['run', 'examples/hello.ajs', '--fuel', 'lots'], '--fuel must be'],
    [['run', 'proc_abc'], 'needs --procedures'],
    [['run', 'examples/hello.ajs', '--model', 'm'], '--model needs --llm'],
    [['run'], "missing required argument 'target'"],
    [['run', 'examples/hello.ajs', '--frob'], "unknown option '--frob'"],
  ])('%p', (args, message) => {
    const r = ajsc(args as string[])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(message as string)
  })
})

describe('ajsc run with services', () => {
  let server: http.Server
  let port: number
  const requests: string[] = []
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = ''
      req.on('data', (c) => { body += c })
      req.on('end', () => {
        requests.push(`${req.method} ${req.url}`)
        res.writeHead(200, { 'content-type': 'application/json' })
        if (req.url === '/v1/chat/completions') {
          const msgs = JSON.parse(body).messages as Array<{ content: string }>
          res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: `echo: ${msgs.at(-1)!.content}` } }] }))
        } else res.end(JSON.stringify({ path: req.url }))
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => { server.closeAllConnections(); server.close() })

  test('--allow-fetch grants hosts; loopback also needs --allow-private', async () => {
    const src = file('get.ajs', `function get({ url }) { const r = httpFetch({ url }); return { status: r.status, body: r.body } }`)
    const args = JSON.stringify({ url: `http://127.0.0.1:${port}/data` })
    const blocked = await ajscAsync(['run', src, '--args', args, '--allow-fetch', '127.0.0.1', '--json'])
    expect(blocked.code).toBe(1)
    const blockedDiag = JSON.parse(blocked.stdout).diagnostics[0]
    expect(blockedDiag.message).toContain('FETCH_PRIVATE_ADDRESS')
    expect(blockedDiag.hint).toContain('--allow-private 127.0.0.1')
    expect(blockedDiag.hint).not.toContain('allowPrivateHosts')
    const denied = await ajscAsync(['run', src, '--args', args, '--allow-fetch', 'example.com', '--json'])
    const deniedDiag = JSON.parse(denied.stdout).diagnostics[0]
    expect(deniedDiag.message).toContain('FETCH_HOST_DENIED')
    // The capability's code once, in brackets (its own message starts with it too).
    expect(deniedDiag.message.split('FETCH_HOST_DENIED').length).toBe(2)
    expect(deniedDiag.hint).toContain('--allow-fetch')
    const ok = await ajscAsync(['run', src, '--args', args, '--allow-private', '127.0.0.1'])
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.stdout)).toEqual({ status: 200, body: { path: '/data' } })
  })

  test('--llm points llmPredict and the batteries at an OpenAI-compatible endpoint', async () => {
    const src = file('ask.ajs', `function ask({ q }) { return { a: llmPredict({ prompt: q }), b: llmPredictBattery({ user: q }).content } }`)
    const r = await ajscAsync(['run', src, '--args', '{"q":"hi"}', '--llm', `http://127.0.0.1:${port}/v1`, '--model', 'test'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ a: 'echo: hi', b: 'echo: hi' })
    expect(requests.filter((x) => x === 'POST /v1/chat/completions').length).toBe(2)
  })
})
