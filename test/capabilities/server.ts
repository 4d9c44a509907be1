/**
 * A local HTTP server on 127.0.0.1 (random port) for the capability tests.
 * Routes are a table; `/slow` never answers so timeouts and aborts can be
 * tested, and `close()` destroys every open socket so tests never hang.
 */

import http from 'node:http'
import zlib from 'node:zlib'
import type { AddressInfo } from 'node:net'
import type { Socket } from 'node:net'

export interface TestServer {
  port: number
  /** `http://127.0.0.1:<port>` */
  origin: string
  /** Requests seen, by path. */
  hits: string[]
  close(): Promise<void>
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: string) => void

function json(res: http.ServerResponse, status: number, value: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(value)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...extra })
  res.end(text)
}

const ROUTES: Record<string, Handler> = {
  '/json': (_req, res) => json(res, 200, { hello: 'world', n: [1, 2, 3] }),
  '/problem-json': (_req, res) => json(res, 422, { error: 'bad' }, { 'content-type': 'application/problem+json' }),
  '/text': (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }); res.end('plain text ✓') },
  '/bad-json': (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{not json') },
  '/empty-json': (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('') },
  '/no-content': (_req, res) => { res.writeHead(204); res.end() },
  '/not-found': (_req, res) => json(res, 404, { error: 'missing' }),
  '/echo': (req, res, _url, body) => json(res, 200, { method: req.method, headers: req.headers, body }),
  '/big': (_req, res, url) => {
    // Streams n bytes in 1 KB chunks with no content-length, so only the streaming limit can stop it.
    const n = Number(url.searchParams.get('n') ?? '0')
    res.writeHead(200, { 'content-type': 'text/plain' })
    const chunk = 'x'.repeat(1024)
    let sent = 0
    const pump = (): void => {
      while (sent < n) {
        const piece = chunk.slice(0, Math.min(1024, n - sent))
        sent += piece.length
        if (!res.write(piece)) { res.once('drain', pump); return }
      }
      res.end()
    }
    pump()
  },
  '/big-declared': (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '50000000' }); res.write('x') },
  '/gzip': (_req, res) => {
    const data = zlib.gzipSync(JSON.stringify({ zipped: true }))
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': data.length })
    res.end(data)
  },
  '/gzip-bomb': (_req, res) => {
    const data = zlib.gzipSync(Buffer.alloc(5_000_000, 97))
    res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip', 'content-length': data.length })
    res.end(data)
  },
  '/slow': () => { /* never answers */ },
  '/slow-body': (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.write('partial') /* then stalls */ },
  '/redirect': (_req, res, url) => {
    res.writeHead(Number(url.searchParams.get('status') ?? '302'), { location: url.searchParams.get('to') ?? '/json' })
    res.end()
  },
  '/loop': (_req, res) => { res.writeHead(302, { location: '/loop' }); res.end() },
  '/proto-headers': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', constructor: 'x', 'x-ok': 'yes' })
    res.end('ok')
  },
}

/** Start the server; always `await server.close()` in afterAll. */
export async function startTestServer(): Promise<TestServer> {
  const sockets = new Set<Socket>()
  const hits: string[] = []
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    hits.push(url.pathname)
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (c: string) => { if (body.length < 100_000) body += c })
    req.on('end', () => {
      const handler = ROUTES[url.pathname]
      if (handler) handler(req, res, url, body)
      else json(res, 404, { error: 'no route' })
    })
  })
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
