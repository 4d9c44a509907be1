/** Shared helpers of the workflow tests: a driver loop and a fixed fake clock. */
import { spawn, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import { runCli } from '../../src/cli/program.ts'
import type { WorkflowExecution, WorkflowPoll, WorkflowRequest, WorkflowResolution } from '../../src/workflows/index.ts'

export type Answer = (r: WorkflowRequest) => WorkflowResolution | unknown

/** Poll until Complete, answering each request with `answer`; returns the result and everything seen. */
export async function drive(ex: WorkflowExecution, answer: Answer, maxPolls = 10_000): Promise<{ result: unknown; seen: WorkflowPoll[] }> {
  const seen: WorkflowPoll[] = []
  for (let i = 0; i < maxPolls; i++) {
    const p = await ex.poll()
    seen.push(p)
    if (p === 'Pending') continue
    if ('Complete' in p) return { result: p.Complete.result, seen }
    if ('Request' in p) {
      for (const r of ex.takePendingRequests()) ex.resolveRequest(r.id, answer(r))
    }
  }
  throw new Error(`not complete after ${maxPolls} polls`)
}

/** Poll until the workflow waits for the agent request `prompt` (bounded); throws if it completes first. */
export async function untilAgentAsks(ex: WorkflowExecution, prompt: string, maxPolls = 1000): Promise<void> {
  for (let i = 0; i < maxPolls; i++) {
    const p = await ex.poll()
    if (typeof p === 'object' && 'Request' in p && p.Request.type === 'agent' && p.Request.prompt === prompt) return
    if (typeof p === 'object' && 'Complete' in p) throw new Error('completed early')
  }
  throw new Error(`never asked ${prompt}`)
}

/** A clock the test moves by hand. */
export function fakeClock(start = 1_700_000_000_000): { now: () => number; advance(ms: number): void } {
  let t = start
  return { now: () => t, advance: (ms) => { t += ms } }
}

/** A workflow whose wait is cancelled while its `finally` calls an agent to clean up (the cancellation tests, in one process and across two). */
export const CANCELLED_WITH_CLEANUP = `
try {
  await agent('long work')
} finally {
  await agent('clean up')
}
export default 'never'`

export const calls = (seen: WorkflowPoll[]) => seen.filter((p) => typeof p === 'object' && 'Call' in p).map((p) => (p as { Call: unknown }).Call)

/** `ajsc <argv>` in process, in `cwd`: its exit code and what it printed. */
export async function ajscIn(cwd: string, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await runCli(argv, { out: (t) => { out += t }, err: (t) => { err += t }, readStdin: async () => '', color: false, cwd, env: {} })
  return { code, out, err }
}

/** `ajsc <args>` in a new process (src/cli/main.ts under this runtime): the child, and its exit with what it printed. */
export function spawnAjsc(cwd: string, env: NodeJS.ProcessEnv, args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [resolve(import.meta.dir, '../../src/cli/main.ts'), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (c) => { stdout += c })
  child.stderr!.on('data', (c) => { stderr += c })
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((res) => child.on('close', (code, signal) => res({ code, signal, stdout, stderr })))
  return { child, done }
}
