/**
 * `ajsc flowlang chat <file>`: a conversation with a flow. Each stdin line
 * is one user turn, all on the same FlowSession, so the model sees the
 * whole conversation (`flowlang run` is one turn per process). Answers go
 * to stdout, one per turn; Safe Mode notices, the trace and turn errors to
 * stderr. Empty lines are skipped; `/exit`, end of input or Ctrl-C (SIGINT,
 * also SIGTERM) ends the session and stops its MCP servers. A failed turn
 * does not end the chat; the exit code is 1 when any turn failed.
 *
 * --json prints one line per turn (`{ turn, input, answer, mode, rounds,
 * toolCalls, ..., error? }`, run's field names) and, at the end, the common
 * report (`{ command: 'flowlang chat', ok, exitCode, turns, answered,
 * failed, diagnostics }`). --transcript writes the conversation as JSON.
 */
import { writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { resolve } from 'node:path'
import { EXIT, type CliIO } from '../io.ts'
import { Reporter } from '../report.ts'
import { openCliSession, sessionSettings, toDiagnostic, turnDiagnostic, turnPayload, type SessionFlags } from './flowlang-session.ts'

export interface ChatOpts extends SessionFlags {
  transcript?: string
}

/** User lines, one at a time (lines typed or piped ahead of a slow turn wait in the queue). */
interface LineSource {
  /** The next line, or undefined at end of input. */
  next(): Promise<string | undefined>
  /** Show the prompt (terminals only). */
  prompt(): void
  close(): void
}

/** stdin through readline: line editing and a `> ` prompt on stderr on a terminal, plain lines from a pipe. */
function stdinLines(tty: boolean, onInterrupt: () => void): LineSource {
  const rl = createInterface({ input: process.stdin, output: tty ? process.stderr : undefined, terminal: tty })
  const queue: string[] = []
  let waiting: ((line: string | undefined) => void) | undefined
  let ended = false
  rl.on('line', (line) => {
    if (waiting) { const w = waiting; waiting = undefined; w(line) } else queue.push(line)
  })
  rl.on('close', () => {
    ended = true
    waiting?.(undefined)
    waiting = undefined
  })
  // On a terminal readline reads Ctrl-C itself (raw mode) instead of the process getting SIGINT.
  rl.on('SIGINT', onInterrupt)
  rl.setPrompt('> ')
  return {
    next: () => (queue.length ? Promise.resolve(queue.shift()) : ended ? Promise.resolve(undefined) : new Promise((ok) => { waiting = ok })),
    prompt: () => { if (tty) rl.prompt() },
    close: () => rl.close(),
  }
}

interface TranscriptTurn { turn: number; input: string; answer: string; mode: string; error?: { code: string; message: string } }

const INTERRUPTED = Symbol('interrupted')

export async function chatCommand(file: string, opts: ChatOpts, io: CliIO): Promise<number> {
  const reporter = new Reporter(io, 'flowlang chat', opts.json === true)
  const settings = sessionSettings(opts, io)
  let interrupt!: () => void
  // Ctrl-C also cancels the turn in progress on the VM (its model request and tool call see the abort).
  const cancel = new AbortController()
  const interrupted = new Promise<typeof INTERRUPTED>((ok) => { interrupt = () => { cancel.abort(); ok(INTERRUPTED) } })
  const { session, takeAnswer } = await openCliSession(file, opts, io, settings)
  const source = stdinLines(io.stdinIsTTY === true, () => interrupt())
  process.on('SIGINT', interrupt)
  process.on('SIGTERM', interrupt)
  const turns: TranscriptTurn[] = []
  let failed = 0
  let stopped = false
  try {
    for (const p of session.problems) reporter.add({ ...toDiagnostic(p, file), severity: 'warning' })
    for (;;) {
      source.prompt()
      const line = await Promise.race([source.next(), interrupted])
      if (line === INTERRUPTED) { stopped = true; break }
      if (line === undefined) break
      const input = line.trim()
      if (!input) continue
      if (input === '/exit') break
      const running = session.turn(input, { signal: cancel.signal })
      // An abandoned turn (Ctrl-C) may still fail after the session closed: nobody waits for it then.
      running.catch(() => {})
      const turn = await Promise.race([running, interrupted])
      if (turn === INTERRUPTED) {
        stopped = true
        if (!opts.json) io.err('interrupted: the turn in progress was abandoned\n')
        break
      }
      const n = turns.length + 1
      const answer = takeAnswer()
      turns.push({ turn: n, input, answer, mode: turn.mode, ...(turn.error ? { error: { code: turn.error.code, message: turn.error.message } } : {}) })
      if (turn.error) {
        failed++
        const d = turnDiagnostic(turn.error, file)
        reporter.add(d)
        if (opts.json) io.out(`${JSON.stringify({ turn: n, input, ...turnPayload(turn, answer, opts.trace), error: { code: d.code, message: d.message, hint: d.hint } })}\n`)
      } else if (opts.json) io.out(`${JSON.stringify({ turn: n, input, ...turnPayload(turn, answer, opts.trace) })}\n`)
      if (!opts.json && answer) io.out(`${answer}\n`)
    }
  } finally {
    process.off('SIGINT', interrupt)
    process.off('SIGTERM', interrupt)
    source.close()
    await session.close()
  }
  if (opts.transcript !== undefined) {
    const path = resolve(io.cwd, opts.transcript)
    try {
      writeFileSync(path, `${JSON.stringify({ flow: file, turns, messages: session.history }, null, 2)}\n`)
    } catch (e) {
      reporter.add({ severity: 'error', code: 'CLI_WRITE', message: `${opts.transcript}: ${(e as Error).message}`, hint: 'Check that the directory of --transcript exists and is writable.', file: opts.transcript })
    }
  }
  const code = failed > 0 || reporter.errors > failed ? EXIT.failure : EXIT.ok
  return reporter.finish({ turns: turns.length, answered: turns.length - failed, failed, ...(stopped ? { interrupted: true } : {}) }, code)
}
