// The client compiles AJS locally and ships the JSON AST to the remote VM.
import { transpile } from 'ajs-lang/transpiler'
import type { RunResult } from 'ajs-lang/vm'

export async function runRemote(baseUrl: string, source: string, args: Record<string, unknown>): Promise<RunResult> {
  const { ast } = transpile(source, { filename: 'remote.ajs' })
  const res = await fetch(`${baseUrl}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ast, args }),
  })
  if (!res.ok) throw new Error(`remote VM answered ${res.status}: ${await res.text()}`)
  return (await res.json()) as RunResult
}
