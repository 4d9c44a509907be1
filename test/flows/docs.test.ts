/**
 * docs/flows.md is executable: every ```ts block runs (imports pointed at
 * src/), in a directory holding the files the page defines
 * (`<!-- file: name -->` before a ```json block); every JSON document is a
 * valid flow; every `ajsc` line of the ```sh blocks runs with its expected
 * exit code (`# exit N`, default 0), `--llm` pointed at a local
 * OpenAI-compatible test server.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { ajscAsync } from '../cli/run-cli.ts'
import { detectFlowFormat, validateBlockFlow, validateSavedFlow } from '../../src/flows/index.ts'
import { startOpenAIServer, type OpenAIServer } from './openai-server.ts'

const ROOT = resolve(import.meta.dir, '../..')
const doc = readFileSync(join(ROOT, 'docs/flows.md'), 'utf8')
const tsBlocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
const files = [...doc.matchAll(/<!-- file: (\S+) -->\n```json\n([\s\S]*?)```/g)].map((m) => ({ name: m[1]!, text: m[2]! }))
const jsonBlocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!)
const shLines = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n')).filter((l) => l.startsWith('ajsc '))

const dir = mkdtempSync(join(tmpdir(), 'ajs-flows-doc-'))
let server: OpenAIServer
const cwd = process.cwd()
beforeAll(async () => {
  server = await startOpenAIServer()
  for (const f of files) {
    mkdirSync(dirname(join(dir, f.name)), { recursive: true })
    writeFileSync(join(dir, f.name), f.text)
  }
  process.chdir(dir)
})
afterAll(async () => {
  process.chdir(cwd)
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

const imports = (code: string) => code
  .replaceAll(`from 'ajs-lang/flows'`, `from ${JSON.stringify(join(ROOT, 'src/flows/index.ts'))}`)
  .replaceAll(`from 'ajs-lang'`, `from ${JSON.stringify(join(ROOT, 'src/index.ts'))}`)

describe('docs/flows.md', () => {
  test('has examples of every kind', () => {
    expect(tsBlocks.length).toBeGreaterThanOrEqual(7)
    expect(files.length).toBeGreaterThanOrEqual(3)
    expect(shLines.length).toBeGreaterThanOrEqual(6)
  })
  tsBlocks.forEach((code, i) => {
    test(`ts example ${i + 1} runs`, async () => {
      const file = join(dir, `example-${i + 1}.ts`)
      writeFileSync(file, imports(code))
      await import(file)
    })
  })
  test('every JSON document is a flow, valid unless it is the page\'s broken example', () => {
    for (const text of jsonBlocks) {
      const value = JSON.parse(text)
      const format = detectFlowFormat(value)
      expect(format).toBeDefined()
      const problems = format === 'blocks' ? validateBlockFlow(value) : validateSavedFlow(value)
      if (text.includes('"bad id"')) expect(problems.map((p) => p.rule)).toEqual(['InvalidFlowId'])
      else expect(problems).toEqual([])
    }
  })
  shLines.forEach((line) => {
    test(line.replace(/\s+#.*$/, ''), async () => {
      const exit = Number(/# exit (\d)/.exec(line)?.[1] ?? 0)
      const command = line.replace(/\s+#.*$/, '').replace('http://127.0.0.1:1234/v1', server.baseUrl)
      const args = [...command.slice('ajsc '.length).matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!)
      const r = await ajscAsync(args, { cwd: dir })
      if (r.code !== exit) console.error(r.stderr)
      expect(r.code).toBe(exit)
    })
  })
})
