/**
 * The browser bundle (`ajs-lang/browser/vm.min.js`) in a real browser:
 * Debian's Chromium, headless, driven by playwright-core. It runs an AST
 * and must give the same result and the same fuel as the VM on Node, and an
 * out-of-fuel error as data. `.ci/run` installs Chromium when it is missing;
 * without it (a developer machine) the test says so and is skipped.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { BrowserContext } from 'playwright-core'
import { haveChromium, launchChromium, CHROMIUM, type TestBrowser } from './chromium.ts'
import { ensureBuilt, ROOT } from './built.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'

if (!haveChromium) console.warn(`browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run installs it)`)

const SOURCE = `function tally({ items }) {
  let total = 0
  for (const x of items) total += x * 2
  return { total, label: \`\${items.length} items\` }
}`
const SPIN = 'function spin() { let i = 0; while (true) { i++ } return { i } }'

let server: http.Server
let browser: BrowserContext
let origin: string
let chrome: TestBrowser | undefined

beforeAll(async () => {
  if (!haveChromium) return
  ensureBuilt()
  const bundle = readFileSync(join(ROOT, 'dist/browser/vm.min.js'))
  server = http.createServer((req, res) => {
    if (req.url === '/vm.min.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle)
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

describe.skipIf(!haveChromium)('ajs-lang/browser/vm.min.js in headless Chromium', () => {
  test('runs an AST: same result and fuel as on Node; out of fuel is an error value', async () => {
    const ast = transpile(SOURCE).ast
    const spin = transpile(SPIN).ast
    const onNode = await new AgentVM().run(ast, { items: [1, 2, 3] })
    const page = await browser.newPage()
    await page.goto(`${origin}/`)
    // The page loads the bundle by URL; typed loosely here, since it is the browser's module, not ours.
    const args: [unknown, unknown, string] = [ast, spin, '/vm.min.js']
    const inBrowser: { result: unknown; fuelUsed: number; error: unknown; outOfFuel: unknown; agent: string } = await page.evaluate(async ([ast, spin, url]: [any, any, string]) => {
      const { AgentVM } = await import(url)
      const vm = new AgentVM()
      const ok = await vm.run(ast, { items: [1, 2, 3] })
      const out = await vm.run(spin, {}, { fuel: 5 })
      return { result: ok.result, fuelUsed: ok.fuelUsed, error: ok.error ?? null, outOfFuel: out.error, agent: navigator.userAgent }
    }, args as [any, any, string])
    await page.close()
    expect(inBrowser.agent).toContain('Chrome')
    expect(inBrowser.error).toBeNull()
    expect(inBrowser.result).toEqual({ total: 12, label: '3 items' })
    expect(inBrowser.fuelUsed).toBe(onNode.fuelUsed)
    expect(inBrowser.fuelUsed).toBeGreaterThan(0)
    expect(inBrowser.outOfFuel).toMatchObject({ name: 'AgentError', code: 'FUEL_EXHAUSTED' })
  }, 60_000)
})
