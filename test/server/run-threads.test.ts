/**
 * The run threads (src/server/pool/run-threads.ts) hand runs to worker threads several to a
 * message and take outcomes back several to a message. What batching must not change: every
 * run gets its own outcome; a run queued on a thread behind another tenant's long run moves to
 * another thread; a run stuck where the VM cannot interrupt it has its thread terminated, and
 * the runs that thread had not started run elsewhere; a cancelled run no thread has started
 * ends at once, and terminates nothing.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { createServer, loadServerAtoms, parseServeConfig, tokenSha256, type AjsServer } from '../../src/server/index.ts'
import type { RunTask } from '../../src/server/pool/task.ts'
import { StopController } from '../../src/server/stop-signal.ts'
import { ast } from './helpers.ts'

const doubleText = JSON.stringify(ast('function double({ n }) { return { doubled: n * 2 } }'))
const loop = 'function spin() { let i = 0; while (true) { i++ } }'
/** Host code the VM cannot interrupt: the `spin` atom busy-waits (test/security/workflow-steps-atoms.mjs). */
const hostSpin = 'function stuck() { return spin({ ms: 4000 }) }'

const task = (over: Partial<RunTask>): RunTask => ({ tenant: 't', args: {}, fuel: 1e12, timeoutMs: 10_000, trace: false, maxAstNodes: 100_000, maxAstDepth: 200, ...over })
const double = (n: number) => task({ astText: doubleText, args: { n }, fuel: 1000 })

let server: AjsServer | undefined
afterEach(async () => { await server?.close(); server = undefined })

async function start(pool: { size: number; graceMs?: number }, atoms = false): Promise<AjsServer> {
  const config = parseServeConfig({
    ...(atoms ? { atoms: [join(import.meta.dir, '../security/workflow-steps-atoms.mjs')] } : {}),
    tenants: [{ id: 't', tokenSha256: tokenSha256('token-t'), limits: { fuelPerRun: 1e12, timeoutMs: 10_000 } }],
  })
  server = await createServer({ config, pool, ...(atoms ? { atoms: await loadServerAtoms(config) } : {}) })
  return server
}

describe('run threads', () => {
  test('runs handed over in batches each get their own outcome', async () => {
    const s = await start({ size: 2 })
    const results = await Promise.all(Array.from({ length: 300 }, (_, n) => s.pool.run(double(n))))
    expect(results.map((r) => (r.result as { doubled: number }).doubled)).toEqual(Array.from({ length: 300 }, (_, n) => n * 2))
  })

  test('a program goes to a thread as text once, then by key; a thread that dropped it is sent the text again', async () => {
    const s = await start({ size: 1 })
    const keyed = (n: number, key: string) => ({ ...double(n), key })
    expect((await s.pool.run(keyed(1, 'k1'))).result).toEqual({ doubled: 2 })
    const out0 = s.pool.handoffs.sent.jobs
    expect((await s.pool.run(keyed(2, 'k1'))).result).toEqual({ doubled: 4 })
    expect(s.pool.handoffs.sent.jobs).toBe(out0 + 1)
    // The main thread believes the thread holds "k2" (as after the thread dropped it from its cache): it is sent by key, refused, and sent again with its text.
    ;(s.pool as unknown as { threads: { threads: Array<{ known: Set<string> }> } }).threads.threads[0]!.known.add('k2')
    expect((await s.pool.run(keyed(3, 'k2'))).result).toEqual({ doubled: 6 })
    expect(s.pool.handoffs.sent.jobs).toBe(out0 + 3)
  })

  test('runs queued on a thread behind a long run go to the other thread', async () => {
    const s = await start({ size: 2 })
    await s.pool.run(double(0)) // both threads loaded
    const stopLoop = new StopController()
    let loopDone = false
    // In one turn of the event loop: the loop and the short runs are split between the two threads.
    const long = s.pool.run(task({ source: loop, timeoutMs: 8000 }), { signal: stopLoop }).then((r) => { loopDone = true; return r })
    const short = await Promise.all(Array.from({ length: 20 }, (_, n) => s.pool.run(double(n))))
    expect(short.map((r) => (r.result as { doubled: number }).doubled)).toEqual(Array.from({ length: 20 }, (_, n) => n * 2))
    expect(loopDone).toBe(false)
    stopLoop.abort()
    expect((await long).error?.code).toBe('ABORTED')
    expect(s.pool.terminated).toBe(0)
  })

  test('a run stuck in host code has its thread terminated; the runs queued behind it run on a fresh one', async () => {
    const s = await start({ size: 1, graceMs: 200 }, true)
    await s.pool.run(double(0)) // the thread is loaded: the stuck run's time is its own
    const stuck = s.pool.run(task({ source: hostSpin, timeoutMs: 1000 }))
    await Bun.sleep(100)
    const behind = Array.from({ length: 5 }, (_, n) => s.pool.run(double(n)))
    const r = await stuck
    expect(r.error?.code).toBe('TIMEOUT')
    expect(r.error?.message).toContain('its worker was terminated')
    expect((await Promise.all(behind)).map((x) => (x.result as { doubled: number }).doubled)).toEqual([0, 2, 4, 6, 8])
    expect(s.pool.terminated).toBe(1)
    expect((await s.pool.run(double(21))).result).toEqual({ doubled: 42 })
  }, 20_000)

  test('a compilation past its time has its thread terminated; runs go on on a fresh one', async () => {
    const s = await start({ size: 1 })
    await s.pool.run(double(0)) // the thread is loaded: the compilation's time is its own
    const source = `function big() {\nlet a = 0\n${'a = a + 2 * 3\n'.repeat(150_000)}return a }`
    const out = await s.pool.compile({ source, file: 'big.ajs', atoms: [], maxAstNodes: 10_000_000, maxAstDepth: 200 }, 100)
    expect(out).toMatchObject({ error: { code: 'PROGRAM_REJECTED', agentError: { code: 'TIMEOUT' } } })
    expect((out as { error: { message: string } }).error.message).toContain('its worker was terminated')
    expect(s.pool.terminated).toBe(1)
    expect((await s.pool.run(double(4))).result).toEqual({ doubled: 8 })
  }, 20_000)

  test('a cancelled run that no thread has started ends at once and terminates nothing', async () => {
    const s = await start({ size: 1 })
    const stopLoop = new StopController()
    const long = s.pool.run(task({ source: loop, timeoutMs: 8000 }), { signal: stopLoop })
    await Bun.sleep(100)
    const gone = new StopController()
    const queued = s.pool.run(double(1), { signal: gone })
    await Bun.sleep(30)
    expect(s.pool.queueSize).toBe(1)
    gone.abort()
    const r = await queued
    expect([r.error?.code, r.fuelUsed]).toEqual(['ABORTED', 0])
    expect(s.pool.queueSize).toBe(0)
    stopLoop.abort()
    expect((await long).error?.code).toBe('ABORTED')
    expect(s.pool.terminated).toBe(0)
  })
})
