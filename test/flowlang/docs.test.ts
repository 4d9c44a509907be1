/**
 * Executes docs/flowlang.md: every ```json / ```js / ```flow flow with its
 * `<!-- expect: -->`, every ```ts program with its `<!-- output: -->` (run
 * against a fake model and the test MCP server), every ```sh command with
 * its `<!-- exit: -->`, every ```console session (`$ printf '…' | npx ajsc …`,
 * its --llm and --mcp pointed at the fakes) with its exit code and output;
 * the catalog table is the one the catalog renders.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { catalogMarkdown } from '../../src/flowlang/catalog.ts'
import { FlowSession, loadFlowSource, type FlowSourceKind } from '../../src/flowlang/index.ts'
import { splitCommand } from '../../src/cli/commands/flowlang-session.ts'
import { ajsc } from '../cli/run-cli.ts'
import { startFakeOpenAI, type FakeLlm } from './fake-llm.ts'
import { MCP_FIXTURE } from './helpers.ts'

const ROOT = resolve(import.meta.dir, '../..')
const doc = readFileSync(join(ROOT, 'docs/flowlang.md'), 'utf8')
const blocks = [...doc.matchAll(/```(\w+)\n([\s\S]*?)```\n(?:<!-- (\w+): ([\s\S]*?) -->)?/g)].map((m) => ({
  lang: m[1]!, code: m[2]!, key: m[3], value: m[4], line: doc.slice(0, m.index).split('\n').length,
}))
const KIND: Record<string, FlowSourceKind> = { json: 'json', js: 'script', flow: 'text' }
const dir = mkdtempSync(join(tmpdir(), 'flowlang-doc-'))
let llm: FakeLlm
beforeAll(async () => { llm = await startFakeOpenAI('functions') })
afterAll(async () => { await llm.close(); rmSync(dir, { recursive: true, force: true }) })

function runTs(code: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(dir, `example-${Math.random().toString(36).slice(2)}.ts`)
  writeFileSync(file, code.replace(/from 'ajs-lang\/flowlang'/g, `from '${join(ROOT, 'src/flowlang/index.ts')}'`))
  return new Promise((ok) => {
    const child = spawn(process.execPath, [file], { cwd: ROOT, env: { ...process.env, LLM_URL: llm.url, MCP_COMMAND: `${process.execPath} ${MCP_FIXTURE}` }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => { stdout += c })
    child.stderr.on('data', (c) => { stderr += c })
    child.on('close', (c) => ok({ code: c ?? -1, stdout, stderr }))
  })
}

/** A documented `$ printf '<input>' | npx ajsc <args>` line, run with --llm and --mcp swapped for the fakes. */
function runConsole(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const m = /^\$ printf '([^']*)' \| npx ajsc (.*)$/.exec(line)
  if (!m) throw new Error(`not a documented chat line: ${line}`)
  const args = splitCommand(m[2]!)
  const swap = (flag: string, value: string) => { const i = args.indexOf(flag); if (i >= 0) args[i + 1] = value }
  swap('--llm', llm.url)
  swap('--mcp', `"${process.execPath}" "${MCP_FIXTURE}"`)
  return new Promise((ok) => {
    const child = spawn(process.execPath, [join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '' }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => { stdout += c })
    child.stderr.on('data', (c) => { stderr += c })
    child.on('close', (c) => ok({ code: c ?? -1, stdout, stderr }))
    child.stdin.end(m[1]!.replace(/\\n/g, '\n'))
  })
}

describe('docs/flowlang.md', () => {
  test('every example block carries its expectation', () => {
    for (const b of blocks) {
      if (b.lang === 'text') continue
      expect({ line: b.line, key: b.key }).toEqual({ line: b.line, key: ({ ts: 'output', sh: 'exit', console: 'exit' } as Record<string, string>)[b.lang] ?? 'expect' })
    }
    expect(blocks.filter((b) => b.lang !== 'text').length).toBeGreaterThanOrEqual(9)
  })

  test('the catalog table is the one the catalog renders', () => {
    const table = /<!-- catalog:start -->\n([\s\S]*?)\n<!-- catalog:end -->/.exec(doc)?.[1]
    expect(table).toBe(catalogMarkdown())
  })

  for (const b of blocks.filter((x) => KIND[x.lang])) {
    test(`line ${b.line}: ${b.lang} flow → ${b.value}`, async () => {
      const r = await loadFlowSource(b.code, { kind: KIND[b.lang] })
      expect(r.problems.map((p) => `${p.code} ${p.path}`).join(', ') || 'valid').toBe(b.value!)
    })
  }

  for (const b of blocks.filter((x) => x.lang === 'ts')) {
    test(`line ${b.line}: ts example prints its output`, async () => {
      const r = await runTs(b.code)
      expect(r.stderr).toBe('')
      expect(r.stdout.trim()).toBe(b.value!.trim())
    })
  }

  for (const b of blocks.filter((x) => x.lang === 'sh')) {
    test(`line ${b.line}: shell commands exit ${b.value}`, () => {
      for (const line of b.code.trim().split('\n')) {
        expect(line).toStartWith('npx ajsc ')
        const r = ajsc(line.slice('npx ajsc '.length).split(' '))
        expect(r.code).toBe(Number(b.value))
      }
    })
  }

  for (const b of blocks.filter((x) => x.lang === 'console')) {
    test(`line ${b.line}: chat session exits ${b.value} with the output shown`, async () => {
      const [command, ...output] = b.code.trimEnd().split('\n')
      const r = await runConsole(command!)
      expect(r.stderr).toBe('')
      expect(r.code).toBe(Number(b.value))
      expect(r.stdout).toBe(`${output.join('\n')}\n`)
    })
  }

  test('the flags of the illustrated `run` commands exist', () => {
    const help = ajsc(['flowlang', 'run', '--help']).stdout
    for (const b of blocks.filter((x) => x.lang === 'text' && x.code.startsWith('npx ajsc flowlang run'))) {
      for (const [flag] of b.code.replace(/"[^"]*"/g, "").matchAll(/--[a-z-]+/g)) expect(help).toContain(flag)
    }
  })

  test('examples/flowlang/main.ts validates the three example flows and repairs the broken one', async () => {
    const { main } = await import('../../examples/flowlang/main.ts')
    expect(await main()).toEqual({
      'ollama-qwen.flow': 'valid', 'lmstudio-qwen-functions.flow.js': 'valid', 'broken.graph.json': 'FLOW2003 /edges/3/from/1', repair: 'adopted',
    })
  })

  test('the Safe Mode message shown is the one a session gives for examples/flowlang/broken.graph.json', async () => {
    const shown = blocks.find((b) => b.lang === 'text' && b.code.startsWith('Safe Mode:'))!.code.trim().replace(/\n/g, ' ')
    const session = await FlowSession.open({ path: join(ROOT, 'examples/flowlang/broken.graph.json') })
    try {
      expect(session.notice).toBe(shown)
    } finally {
      await session.close()
    }
  })
})
