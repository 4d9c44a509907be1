/**
 * Issue 29, item 6: a program fanning out more than ten concurrent atom calls
 * (`Promise.all(xs.map(x => llmPredict(...)))`) prints no MaxListenersExceededWarning,
 * from the library and from `ajsc run`.
 */
import { describe, expect, test } from 'bun:test'
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { AgentVM } from '../../src/index.ts'
import { startFakeOpenAI } from '../capabilities/fake-openai.ts'

const FAN_OUT = `async function f({ xs }) {
  const answers = await Promise.all(xs.map((x) => llmPredict({ prompt: 'say ' + x })))
  return { n: answers.length, first: answers[0] }
}`
const ROOT = resolve(import.meta.dir, '../..')

/** Process warnings emitted while `body` runs. */
async function warningsDuring(body: () => Promise<void>): Promise<string[]> {
  const seen: string[] = []
  const onWarning = (w: Error) => seen.push(`${w.name}: ${w.message}`)
  process.on('warning', onWarning)
  try {
    await body()
    await new Promise((r) => setTimeout(r, 20)) // warnings are emitted on a later tick
  } finally {
    process.off('warning', onWarning)
  }
  return seen
}

describe('6. a fan-out of 11+ concurrent atom calls', () => {
  test('the library: 40 concurrent llmPredict calls, in and outside a parallel group, no listener warning', async () => {
    const llm = { predict: (prompt: string) => new Promise<string>((r) => setTimeout(() => r(prompt.toUpperCase()), 5)) }
    const vm = new AgentVM()
    const warnings = await warningsDuring(async () => {
      const r = await vm.run(FAN_OUT, { xs: Array.from({ length: 40 }, (_, i) => `w${i}`) }, { capabilities: { llm }, fuel: 100_000 })
      expect(r.error).toBeUndefined()
      expect(r.result).toEqual({ n: 40, first: 'SAY W0' })
      const signal = new AbortController().signal
      const p = await vm.run(FAN_OUT, { xs: Array.from({ length: 15 }, (_, i) => `v${i}`) }, { capabilities: { llm }, fuel: 100_000, signal })
      expect(p.error).toBeUndefined()
    })
    expect(warnings.filter((w) => /MaxListeners|EventTarget memory leak/.test(w))).toEqual([])
  })
  test('cancellation still reaches every pending call of the fan-out', async () => {
    let aborted = 0
    const llm = {
      predict: (_p: string, o: { signal?: AbortSignal }) => new Promise<string>((_r, reject) => {
        o.signal?.addEventListener('abort', () => { aborted++; reject(new Error('aborted')) })
      }),
    }
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 30)
    const r = await new AgentVM().run(FAN_OUT, { xs: Array.from({ length: 12 }, (_, i) => `c${i}`) }, { capabilities: { llm }, fuel: 100_000, signal: controller.signal })
    expect(r.error?.code).toBe('ABORTED')
    await new Promise((res) => setTimeout(res, 10))
    expect(aborted).toBe(12)
  })
  // Bun does not print this warning; Node does. The sources, bundled as the package's build does, run under Node.
  test('under Node: the library and ajsc run --llm print no warning', async () => {
    const { build } = await import('esbuild')
    mkdirSync(resolve(ROOT, '.tmp'), { recursive: true })
    const out = mkdtempSync(resolve(ROOT, '.tmp/fan-out-'))
    try {
      await build({ entryPoints: { lib: resolve(ROOT, 'src/index.ts'), cli: resolve(ROOT, 'src/cli/main.ts') }, bundle: true, splitting: true, platform: 'node', format: 'esm', outdir: out, packages: 'external', logLevel: 'error' })
      const script = join(out, 'fan.mjs')
      writeFileSync(script, `import { AgentVM } from './lib.js'
const llm = { predict: (p) => new Promise((r) => setTimeout(() => r(p), 5)) }
const r = await new AgentVM().run(${JSON.stringify(FAN_OUT)}, { xs: Array.from({ length: 30 }, (_, i) => 'x' + i) }, { capabilities: { llm }, fuel: 100000, signal: new AbortController().signal })
console.log(JSON.stringify(r.result))`)
      const lib = spawnSync('node', [script], { encoding: 'utf8', cwd: ROOT })
      expect(lib.stderr).not.toContain('MaxListenersExceededWarning')
      expect(JSON.parse(lib.stdout)).toEqual({ n: 30, first: 'say x0' })

      const server = await startFakeOpenAI()
      try {
        const file = join(out, 'fan.ajs')
        writeFileSync(file, FAN_OUT)
        const args = JSON.stringify({ xs: Array.from({ length: 12 }, (_, i) => `n${i}`) })
        const child = spawn('node', [join(out, 'cli.js'), 'run', file, '--args', args, '--llm', server.baseUrl, '--model', 'echo-model', '--fuel', '100000'], { cwd: ROOT })
        let stderr = ''
        let stdout = ''
        child.stderr.on('data', (c) => { stderr += c })
        child.stdout.on('data', (c) => { stdout += c })
        const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? -1)))
        expect(stderr).not.toContain('MaxListenersExceededWarning')
        expect(code).toBe(0)
        expect(JSON.parse(stdout).n).toBe(12)
      } finally {
        await server.close()
      }
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  }, 60_000)
})
