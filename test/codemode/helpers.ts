/** Start the test MCP server (stdio spec, or an HTTP child on 127.0.0.1). */
import { spawn, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'

export const SERVER = resolve(import.meta.dir, 'mcp-server.ts')
export const stdioSpec = () => ({ command: process.execPath, args: [SERVER] })

export async function startHttpServer(): Promise<{ url: string; child: ChildProcess; stop: () => void }> {
  const child = spawn(process.execPath, [SERVER, '--http'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise<string>((ok, fail) => {
    let buf = ''
    const timer = setTimeout(() => fail(new Error('the HTTP MCP server did not start')), 15_000)
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString()
      const m = /listening (\S+)/.exec(buf)
      if (m) { clearTimeout(timer); ok(m[1]!) }
    })
    child.on('exit', (code) => { clearTimeout(timer); fail(new Error(`the HTTP MCP server exited (${code})`)) })
  })
  return { url, child, stop: () => { child.kill() } }
}
