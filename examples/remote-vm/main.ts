// Ships an AST to a remote VM over HTTP: starts the server on 127.0.0.1
// (a free port), posts two programs from the client, then stops.
// Run: bun examples/remote-vm/main.ts
import type { AddressInfo } from 'node:net'
import { createRemoteVmServer } from './server.ts'
import { runRemote } from './client.ts'

export async function main() {
  const server = createRemoteVmServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const baseUrl = `http://127.0.0.1:${port}`
  try {
    const counter = `function visit({ page }) {
      const seen = storeGet({ key: page }) ?? 0
      storeSet({ key: page, value: seen + 1 })
      return { page, visits: seen + 1 }
    }`
    await runRemote(baseUrl, counter, { page: '/home' })
    const second = await runRemote(baseUrl, counter, { page: '/home' })
    const greedy = await runRemote(baseUrl, `function greedy() { let i = 0; while (true) { i++ } return { i } }`, {})
    return { visits: second.result, fuelUsed: second.fuelUsed, greedy: greedy.error?.code }
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
}

if (import.meta.main) console.log(JSON.stringify(await main(), null, 2))
