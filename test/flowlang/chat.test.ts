/**
 * `ajsc flowlang chat` as a user runs it: the real CLI process, user turns
 * piped to its stdin, the fake model server and the test MCP server on
 * 127.0.0.1 / stdio. Every server a test starts is closed in `finally`.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { ajsc } from '../cli/run-cli.ts'
import { startFakeOpenAI } from './fake-llm.ts'
import { chainGraph, MCP_FIXTURE } from './helpers.ts'

const MAIN = resolve(import.meta.dir, '../../src/cli/main.ts')
const dir = mkdtempSync(join(tmpdir(), 'flowlang-chat-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const flowFile = join(dir, 'chat.json')
writeFileSync(flowFile, JSON.stringify(chainGraph('protocol.openai', 'codec.mcp_over_functions', 'http://127.0.0.1:9/v1')))

interface Chat { child: ChildProcessWithoutNullStreams; done: Promise<{ code: number; stdout: string; stderr: string }> }

/** Start `ajsc flowlang chat` with stdin as a pipe; `input` (if given) is written and stdin closed. */
function startChat(args: string[], input?: string): Chat {
  const child = spawn(process.execPath, [MAIN, 'flowlang', 'chat', ...args], { cwd: dir, env: { ...(process.env as Record<string, string>), NO_COLOR: '' }, stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => { stdout += c })
  child.stderr.on('data', (c) => { stderr += c })
  const done = new Promise<{ code: number; stdout: string; stderr: string }>((ok) => child.on('close', (code) => ok({ code: code ?? -1, stdout, stderr })))
  if (input !== undefined) child.stdin.end(input)
  return { child, done }
}

const jsonLines = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l))
const contents = (messages: any[]) => messages.map((m) => `${m.role}: ${m.content ?? ''}`)

describe('ajsc flowlang chat', () => {
  test('piped turns share one session: the second request carries the first turn, tools run through --mcp', async () => {
    const llm = await startFakeOpenAI('functions')
    try {
      const mcp = `"${process.execPath}" "${MCP_FIXTURE}"`
      const r = await startChat([flowFile, '--llm', llm.url, '--mcp', mcp, '--timeout', '15000'], 'What is 2 + 3?\n\n   \nAnd once more?\n').done
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toBe('The sum is 5.\nThe sum is 5.\n')
      // Turn 1: tool call + answer (2 requests); turn 2 starts with the whole first turn in its history.
      expect(llm.requests).toHaveLength(4)
      const second = contents(llm.requests[2].messages)
      expect(second).toContain('user: What is 2 + 3?')
      expect(second).toContain('tool: 5')
      expect(second).toContain('assistant: The sum is 5.')
      expect(second.at(-1)).toBe('user: And once more?')
    } finally {
      await llm.close()
    }
  })

  test('--json: one line per turn with run\'s field names, /exit ends the session, --transcript keeps it', async () => {
    const llm = await startFakeOpenAI('none')
    try {
      const r = await startChat([flowFile, '--json', '--llm', llm.url, '--transcript', 'talk.json'], 'hi\n/exit\nnever sent\n').done
      expect(r.code).toBe(0)
      const [turn, summary, ...rest] = jsonLines(r.stdout)
      expect(rest).toEqual([])
      expect(turn).toMatchObject({ turn: 1, input: 'hi', answer: 'Hello.', text: 'Hello.', mode: 'normal', rounds: 1, toolCalls: 0 })
      expect(turn.error).toBeUndefined()
      expect(summary).toMatchObject({ command: 'flowlang chat', ok: true, exitCode: 0, turns: 1, answered: 1, failed: 0, diagnostics: [] })
      expect(llm.requests).toHaveLength(1)
      const transcript = JSON.parse(readFileSync(join(dir, 'talk.json'), 'utf8'))
      expect(transcript.turns).toEqual([{ turn: 1, input: 'hi', answer: 'Hello.', mode: 'normal' }])
      expect(contents(transcript.messages)).toEqual(['user: hi', 'assistant: Hello.'])
    } finally {
      await llm.close()
    }
  })

  test('a failed turn does not end the chat: the next turn answers, exit 1, both reported', async () => {
    const llm = await startFakeOpenAI('none', { failOn: /boom/ })
    try {
      const text = await startChat([flowFile, '--llm', llm.url], 'boom\nhi\n').done
      expect(text.code).toBe(1)
      expect(text.stdout).toBe('Hello.\n')
      expect(text.stderr).toContain('error FLOW6004')
      expect(text.stderr).toContain('--llm URL --model NAME')
      // The failed turn left nothing in the conversation: the good turn's request holds only its own question.
      const after = llm.requests.at(-1)
      expect(after.messages.filter((m: any) => m.role === 'user').map((m: any) => m.content)).toEqual(['hi'])
      const json = await startChat([flowFile, '--llm', llm.url, '--json'], 'boom\nhi\n').done
      expect(json.code).toBe(1)
      const [failed, good, summary] = jsonLines(json.stdout)
      expect(failed).toMatchObject({ turn: 1, input: 'boom', answer: '', mode: 'normal', error: { code: 'FLOW6004' } })
      expect(failed.error.hint).toContain('--llm')
      expect(good).toMatchObject({ turn: 2, input: 'hi', answer: 'Hello.' })
      expect(good.error).toBeUndefined()
      expect(summary).toMatchObject({ command: 'flowlang chat', ok: false, exitCode: 1, turns: 2, answered: 1, failed: 1 })
      expect(summary.diagnostics.map((d: any) => d.code)).toEqual(['FLOW6004'])
    } finally {
      await llm.close()
    }
  })

  test('Ctrl-C (SIGINT) during a turn ends the session cleanly with a final report', async () => {
    const llm = await startFakeOpenAI('none', { hang: true })
    const chat = startChat([flowFile, '--llm', llm.url, '--json', '--mcp', `"${process.execPath}" "${MCP_FIXTURE}"`])
    try {
      chat.child.stdin.write('hello?\n')
      // Wait (bounded) until the turn reached the model, then interrupt it.
      for (let i = 0; i < 300 && llm.requests.length === 0; i++) await Bun.sleep(50)
      expect(llm.requests).toHaveLength(1)
      chat.child.kill('SIGINT')
      const r = await chat.done
      expect(r.code).toBe(0)
      expect(jsonLines(r.stdout)).toEqual([{ command: 'flowlang chat', ok: true, exitCode: 0, turns: 0, answered: 0, failed: 0, interrupted: true, diagnostics: [] }])
    } finally {
      if (chat.child.exitCode === null) chat.child.kill('SIGKILL')
      await llm.close()
    }
  })

  test('usage errors exit 2, a missing flow file 1', () => {
    expect(ajsc(['flowlang', 'chat', flowFile, '--max-rounds', '0'], { input: 'hi\n' }).code).toBe(2)
    expect(ajsc(['flowlang', 'chat', flowFile, '--mcp', ''], { input: 'hi\n' }).code).toBe(2)
    expect(ajsc(['flowlang', 'chat'], { input: '' }).code).toBe(2)
    const missing = ajsc(['flowlang', 'chat', join(dir, 'nope.json'), '--json'], { input: 'hi\n' })
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout).diagnostics[0].code).toBe('CLI_NOT_FOUND')
    expect(existsSync(join(dir, 'nope.json'))).toBe(false)
  })
})
