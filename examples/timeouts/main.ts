// Timeouts and cancellation: a deadline stops even a tight loop, an
// AbortSignal cancels a run and the capability it is waiting on, and fuel
// stops runaway work deterministically.
// Run: bun examples/timeouts/main.ts
import { AgentVM, ajs } from 'ajs-lang'

const spin = ajs`function spin() {
  let n = 0
  while (true) { n++ }
  return { n }
}`

const slowFetch = ajs`function slow({ url }) {
  const res = httpFetch({ url })
  return { status: res.status }
}`

export async function main() {
  const vm = new AgentVM()

  // 1. Wall-clock limit: plenty of fuel, 50 ms of time.
  const timedOut = await vm.run(spin, {}, { fuel: 1e9, timeoutMs: 50 })

  // 2. Fuel limit: the same loop with the default time limit stops on fuel.
  const outOfFuel = await vm.run(spin, {}, { fuel: 100 })

  // 3. Cancellation: the host aborts while a capability is waiting; the
  //    capability sees the abort through the signal the VM passes it.
  const controller = new AbortController()
  let capabilitySawAbort = false
  const fetch = (_url: string, init: { signal: AbortSignal }) =>
    new Promise((_resolve, reject) => {
      init.signal.addEventListener('abort', () => {
        capabilitySawAbort = true
        reject(new Error('request cancelled'))
      })
      controller.abort() // e.g. the user closed the page
    })
  const cancelled = await vm.run(slowFetch, { url: 'https://example.com/slow' }, { signal: controller.signal, capabilities: { fetch } })

  return {
    timeout: timedOut.error?.code,
    fuel: outOfFuel.error?.code,
    fuelUsed: outOfFuel.fuelUsed,
    cancelled: cancelled.error?.code,
    capabilitySawAbort,
  }
}

if (import.meta.main) console.log(JSON.stringify(await main(), null, 2))
