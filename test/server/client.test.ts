/** ajs-lang/client against a real server: AgentVM's run signature and result type, errors keep their codes. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createRemoteVM, ifMatchHeader, RemoteError, ScheduleConflictError } from '../../src/client/index.ts'
import { AgentVM } from '../../src/index.ts'
import { TOKENS, ast, startTestServer, type TestServer } from './helpers.ts'

let t: TestServer
beforeAll(async () => { t = await startTestServer({ size: 1 }) })
afterAll(async () => { await t.close() })

const greet = ast('function greet({ name }) { return { text: `Hello, ${name}!` } }')

describe('createRemoteVM', () => {
  test('run(ast | source | token, args, options) resolves to the same RunResult as a local AgentVM', async () => {
    const vm = createRemoteVM({ url: t.url, token: TOKENS.a })
    const local = await new AgentVM().run(greet, { name: 'Ada' })
    expect(await vm.run(greet, { name: 'Ada' })).toEqual(local)
    expect((await vm.run('function f({ x }) { return { y: x + 1 } }', { x: 1 })).result).toEqual({ y: 2 })
    const { token } = await vm.storeProcedure(greet, { ttl: 60_000 })
    expect((await vm.run<{ text: string }>(token, { name: 'Bob' })).result?.text).toBe('Hello, Bob!')
    const traced = await vm.run(greet, { name: 'T' }, { trace: true, fuel: 50 })
    expect(traced.trace?.length).toBeGreaterThan(0)
  })

  test('refusals come back in result.error with the server\'s code, like AgentVM errors', async () => {
    const vm = createRemoteVM({ url: t.url, token: TOKENS.a })
    expect((await vm.run({ ajs: 1, op: 'seq', steps: 'x' })).error?.code).toBe('AST_INVALID')
    expect((await vm.run(greet, {})).error?.code).toBe('ARGS_INVALID')
    expect((await vm.run('proc_missing')).error?.code).toBe('NOT_FOUND')
    expect((await createRemoteVM({ url: t.url, token: 'wrong' }).run(greet, { name: 'x' })).error?.code).toBe('UNAUTHORIZED')
    expect((await vm.run(greet, { name: 'x' }, { capabilities: {} } as object)).error?.code).toBe('OPTIONS_INVALID')
    const down = await createRemoteVM({ url: 'http://127.0.0.1:1', token: 'x' }).run(greet, { name: 'x' })
    expect(down.error?.code).toBe('NETWORK_ERROR')
  })

  test('start / getRun for background runs; other calls reject with RemoteError', async () => {
    const vm = createRemoteVM({ url: t.url, token: TOKENS.a })
    const id = await vm.start(greet, { name: 'Later' })
    let state = await vm.getRun<{ text: string }>(id)
    for (let i = 0; i < 100 && state.state !== 'done'; i++) {
      await Bun.sleep(10)
      state = await vm.getRun(id)
    }
    expect(state.result?.result).toEqual({ text: 'Hello, Later!' })
    const other = createRemoteVM({ url: t.url, token: TOKENS.b })
    const err = await other.getRun(id).catch((e) => e)
    expect(err).toBeInstanceOf(RemoteError)
    expect([err.status, err.code]).toEqual([404, 'NOT_FOUND'])
    const bad = await vm.storeProcedure('function (').catch((e) => e)
    expect([bad.status, bad.code]).toEqual([422, 'AJS1001'])
    const { token } = await vm.storeProcedure(greet)
    await vm.deleteProcedure(token)
    expect((await vm.deleteProcedure(token).catch((e) => e)).code).toBe('NOT_FOUND')
  })

  test('schedules: reads return the conflictToken; updateSchedule({ ifMatch }) sends If-Match and a stale one rejects with ScheduleConflictError', async () => {
    const sent: Array<string | null> = []
    const recording: typeof fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.method === 'PATCH') sent.push(new Headers(init.headers).get('if-match'))
      return fetch(input, init)
    }) as typeof fetch
    const vm = createRemoteVM({ url: t.url, token: TOKENS.b, fetch: recording })
    const made = await vm.createSchedule({ id: 'client-cas', workflow: { source: 'export default 1' }, spec: { everyMs: 3_600_000 }, paused: true })
    const t0 = made.conflictToken
    expect(typeof t0).toBe('string')
    expect((await vm.getSchedule('client-cas')).conflictToken).toBe(t0)
    expect((await vm.listSchedules()).items.find((s) => s.id === 'client-cas')?.conflictToken).toBe(t0)

    const changed = await vm.updateSchedule('client-cas', { note: 'mine' }, { ifMatch: t0 })
    expect(changed.note).toBe('mine')
    const t1 = changed.conflictToken
    expect(t1).not.toBe(t0)
    expect(sent).toEqual([`"${t0}"`])

    // t0 is stale now: nothing changes, and the error is typed, with the server's code and hint.
    const stale = await vm.updateSchedule('client-cas', { note: 'theirs' }, { ifMatch: t0 }).catch((e: unknown) => e)
    expect(stale).toBeInstanceOf(ScheduleConflictError)
    expect(stale).toBeInstanceOf(RemoteError)
    const conflict = stale as ScheduleConflictError
    expect([conflict.status, conflict.code, conflict.name]).toEqual([409, 'SCHEDULE_CONFLICT', 'ScheduleConflictError'])
    expect(conflict.message).toContain(t1)
    expect(conflict.hint).toContain('If-Match')
    expect((await vm.getSchedule('client-cas')).note).toBe('mine')

    // pause makes a new version too: the token read before it is stale.
    const paused = await vm.pauseSchedule('client-cas', 'hold')
    expect(paused.conflictToken).not.toBe(t1)
    expect(await vm.updateSchedule('client-cas', { note: 'late' }, { ifMatch: t1 }).catch((e: unknown) => (e as RemoteError).code)).toBe('SCHEDULE_CONFLICT')
    // A quoted tag, *, and no ifMatch at all go through; other errors are not conflicts.
    expect((await vm.updateSchedule('client-cas', { note: 'quoted' }, { ifMatch: `"${paused.conflictToken}"` })).note).toBe('quoted')
    expect((await vm.updateSchedule('client-cas', { note: 'any' }, { ifMatch: '*' })).note).toBe('any')
    expect((await vm.updateSchedule('client-cas', { note: 'blind' })).note).toBe('blind')
    expect(sent.slice(-3)).toEqual([`"${paused.conflictToken}"`, '*', null])
    const missing = await vm.updateSchedule('nope', { note: 'x' }, { ifMatch: t0 }).catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(RemoteError)
    expect(missing).not.toBeInstanceOf(ScheduleConflictError)
    expect((missing as RemoteError).code).toBe('NOT_FOUND')
    await vm.deleteSchedule('client-cas')
  })

  test('pauseSchedule / unpauseSchedule(id, note, { ifMatch }) send If-Match; a stale one rejects with ScheduleConflictError and changes nothing', async () => {
    const sent: Array<[string, string | null]> = []
    const recording: typeof fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (/\/(un)?pause$/.test(String(input))) sent.push([String(input).replace(/.*\//, ''), new Headers(init?.headers).get('if-match')])
      return fetch(input, init)
    }) as typeof fetch
    const vm = createRemoteVM({ url: t.url, token: TOKENS.b, fetch: recording })
    const t0 = (await vm.createSchedule({ id: 'client-pause', workflow: { source: 'export default 1' }, spec: { everyMs: 3_600_000 } })).conflictToken
    const t1 = (await vm.updateSchedule('client-pause', { note: 'someone else' })).conflictToken

    // Paused from the version read before that change: refused, typed, and it still runs with the other note.
    const stale = await vm.pauseSchedule('client-pause', 'hold', { ifMatch: t0 }).catch((e: unknown) => e)
    expect(stale).toBeInstanceOf(ScheduleConflictError)
    expect([(stale as ScheduleConflictError).status, (stale as ScheduleConflictError).code]).toEqual([409, 'SCHEDULE_CONFLICT'])
    expect((stale as ScheduleConflictError).message).toContain(t1)
    expect(await vm.getSchedule('client-pause')).toMatchObject({ paused: false, note: 'someone else', conflictToken: t1 })

    // From the current version: paused, and its answer names the new one, which unpause takes.
    const paused = await vm.pauseSchedule('client-pause', 'hold', { ifMatch: t1 })
    expect([paused.paused, paused.note]).toEqual([true, 'hold'])
    const staleUnpause = await vm.unpauseSchedule('client-pause', undefined, { ifMatch: t1 }).catch((e: unknown) => e)
    expect(staleUnpause).toBeInstanceOf(ScheduleConflictError)
    expect((await vm.getSchedule('client-pause')).paused).toBe(true)
    const unpaused = await vm.unpauseSchedule('client-pause', undefined, { ifMatch: paused.conflictToken })
    expect(unpaused.paused).toBe(false)
    // No options, as before: unconditional.
    expect((await vm.pauseSchedule('client-pause')).paused).toBe(true)
    expect(sent).toEqual([['pause', `"${t0}"`], ['pause', `"${t1}"`], ['unpause', `"${t1}"`], ['unpause', `"${paused.conflictToken}"`], ['pause', null]])
    await vm.deleteSchedule('client-pause')
  })

  test('ifMatchHeader quotes a bare conflictToken and leaves entity tags and * as they are', () => {
    expect(ifMatchHeader('abc')).toBe('"abc"')
    expect(ifMatchHeader('"abc"')).toBe('"abc"')
    expect(ifMatchHeader('"a", "b"')).toBe('"a", "b"')
    expect(ifMatchHeader('W/"abc"')).toBe('W/"abc"')
    expect(ifMatchHeader('*')).toBe('*')
  })
})
