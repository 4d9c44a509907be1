/** ajs-lang/client against a real server: AgentVM's run signature and result type, errors keep their codes. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createRemoteVM, RemoteError } from '../../src/client/index.ts'
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
})
