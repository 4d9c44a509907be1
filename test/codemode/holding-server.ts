/** An HTTP server on 127.0.0.1 that holds every request until released: a child run waiting on it is in flight. */
import { createServer, type ServerResponse } from 'node:http'

export interface HoldingServer {
  /** Its base URL (`http://127.0.0.1:<port>/`). */
  url: string
  /** Requests it has received. */
  heard(): number
  /** Answer every held request `{ "ok": true }`. */
  release(): void
  /** Drop the held requests and stop listening. */
  close(): void
}

export async function holdingServer(): Promise<HoldingServer> {
  const held: ServerResponse[] = []
  let heard = 0
  const server = createServer((_req, res) => { heard++; held.push(res) })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    heard: () => heard,
    release: () => { for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}') },
    close: () => { for (const res of held.splice(0)) res.destroy(); server.close() },
  }
}
