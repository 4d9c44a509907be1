/**
 * The documented examples of the seed's AJS API (the project's seed document 003, transcribed here, not read),
 * written in the seed's own spelling: builder chains, `vm.Agent` with custom
 * atoms, run options, timeouts and abort, cost overrides, request context,
 * stored procedures, shared fuel, the streaming atom, try/catch with
 * `error.message`, condition strings. Only the import path (and fake
 * capabilities standing in for the network) differ.
 */
import { describe, expect, test } from 'bun:test'
import { Agent, AgentVM, ajs, defineAtom, s } from '../../src/index.ts'

describe('1. The builder (TypedBuilder)', () => {
  test('Global builder (core atoms): Agent.take(...).varSet({ key, value: $expr })', async () => {
    const logic = Agent.take(s.object({ input: s.string }))
      .varSet({ key: 'sum', value: { $expr: 'binary', op: '+', left: { $expr: 'literal', value: 1 }, right: { $expr: 'literal', value: 1 } } })
      .return(s.object({ sum: s.number }))
    const ast = logic.toJSON()
    const vm = new AgentVM()
    const { result, fuelUsed } = await vm.run(ast, { input: 'x' }, { fuel: 1000 })
    expect(result).toEqual({ sum: 2 })
    expect(fuelUsed).toBeGreaterThan(0)
  })

  test('VM builder (custom atoms): vm.Agent.myAtom({ ... }).varSet({ ... })', async () => {
    const myAtom = defineAtom('myAtom', s.object({ text: s.string }), s.string, async ({ text }) => text.toUpperCase())
    const vm = new AgentVM({ myAtom })
    const customLogic = vm.Agent
      .myAtom({ text: 'hello' }).as('loud')
      .varSet({ key: 'out', value: Agent.val('loud') })
      .return(s.object({ out: s.string }))
    expect((await vm.run(customLogic.toJSON(), {})).result).toEqual({ out: 'HELLO' })
  })

  test('varSet declares a new name and assigns one in scope; varGet({ key }) reads it; Agent.args reads an input field', async () => {
    const ast = Agent.take(s.object({ user: s.object({ name: s.string }) }))
      .varSet({ key: 'greeting', value: 'hi' })
      .varSet({ key: 'greeting', value: { $expr: 'binary', op: '+', left: { $expr: 'ident', name: 'greeting' }, right: Agent.args('user.name') } })
      .varGet({ key: 'greeting' }).as('copy')
      .return(s.object({ greeting: s.string, copy: s.string }))
      .toJSON()
    expect((await new AgentVM().run(ast, { user: { name: ' ana' } })).result).toEqual({ greeting: 'hi ana', copy: 'hi ana' })
  })
})

describe('1. The runtime (AgentVM)', () => {
  test('vm.run(ast, args, { capabilities, fuel: 1000 }) gives { result, fuelUsed }', async () => {
    const ast = ajs`
      function getTitle({ url }) {
        let page = httpFetch({ url })
        return { title: page.body.title }
      }
    `
    const capabilities = { fetch: async () => new Response(JSON.stringify({ title: 'Hi' }), { headers: { 'content-type': 'application/json' } }) }
    const vm = new AgentVM()
    const { result, fuelUsed } = await vm.run(ast, { url: 'https://example.com' }, { capabilities, fuel: 1000 })
    expect(result).toEqual({ title: 'Hi' })
    expect(fuelUsed).toBeGreaterThan(0)
  })
})

describe('3. Execution timeout', () => {
  const vm = new AgentVM()
  const spin = ajs`function spin() { while (true) {} }`

  test('Default: 1000 fuel = 10 second timeout (the fuel runs out first here)', async () => {
    const r = await vm.run(spin, {}, { fuel: 1000 })
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
  })

  test('Explicit timeout regardless of fuel', async () => {
    const r = await vm.run(spin, {}, { fuel: 1e12, timeoutMs: 50 })
    expect(r.error?.code).toBe('TIMEOUT')
  })

  test('External abort signal: a host timer aborts a pure loop', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 30) // the seed cancels after 3 s
    const r = await vm.run(spin, {}, { fuel: 1e12, signal: controller.signal })
    expect(r.error?.code).toBe('ABORTED')
  })
})

describe('3. Cost overrides', () => {
  test('static and dynamic costs per run', async () => {
    const ast = ajs`
      function save({ value, model }) {
        storeSet({ key: 'k', value })
        let answer = llmPredict({ prompt: 'hi', model })
        return { answer }
      }
    `
    const capabilities = { store: { set: async () => {}, get: async () => null }, llm: { predict: async () => 'ok' } }
    const vm = new AgentVM()
    const base = await vm.run(ast, { value: 'x', model: 'small' }, { capabilities, costOverrides: { storeSet: 0, llmPredict: 0 } })
    const run = (model: string) => vm.run(ast, { value: 'x'.repeat(1000), model }, {
      capabilities,
      fuel: 10_000,
      costOverrides: {
        // Static: fixed cost per invocation
        httpFetch: 50,
        // Dynamic: cost based on input
        storeSet: (input: any) => JSON.stringify(input.value).length * 0.001,
        llmPredict: (input: any) => (input.model?.includes('gpt-4') ? 1000 : 100),
      },
    })
    const small = await run('small')
    const big = await run('gpt-4')
    expect(small.result).toEqual({ answer: 'ok' })
    expect(small.fuelUsed - base.fuelUsed).toBeCloseTo(100 + 1.002, 1)
    expect(big.error).toBeUndefined()
    expect(big.fuelUsed - small.fuelUsed).toBeCloseTo(900, 5)
  })
})

describe('3. Request context', () => {
  const secureFetch = defineAtom(
    'secureFetch',
    s.object({ url: s.string }),
    s.any,
    async (input, ctx) => {
      // Check permissions
      if (!ctx.context?.permissions?.includes('fetch:external')) {
        throw new Error('Not authorized for external fetch')
      }
      return ctx.capabilities.fetch(input.url)
    }
  )
  const ast = ajs`
    function load({ url }) {
      let page = secureFetch({ url })
      return { page }
    }
  `
  const vm = new AgentVM({ secureFetch })
  const capabilities = { fetch: async (url: string) => `page of ${url}` }

  test('atoms read ctx.context; the agent cannot see it', async () => {
    const ok = await vm.run(ast, { url: 'u' }, {
      capabilities,
      context: { userId: 'user-123', role: 'admin', permissions: ['read:data', 'write:data', 'fetch:external'], requestId: 'req-abc-123' },
    })
    expect(ok.result).toEqual({ page: 'page of u' })
    const denied = await vm.run(ast, { url: 'u' }, { capabilities, context: { permissions: ['read:data'] } })
    expect(denied.error?.message).toContain('Not authorized for external fetch')
  })
})

/** A `proc_` token for `ast`, made the seed's way: the storeProcedure atom. */
async function store(vm: AgentVM, ast: unknown): Promise<string> {
  const r = await vm.run<string>(ajs`function keep({ ast }) { return storeProcedure({ ast }) }`, { ast })
  return r.result!
}

describe('4. Stored procedures', () => {
  test('dynamic dispatch: agentRun({ agentId: strategyToken, input })', async () => {
    const vm = new AgentVM()
    const strategies = ajs`
      function dispatch({ strategyToken, data }) {
        let result = agentRun({ agentId: strategyToken, input: { data } })
        return result
      }
    `
    const double = ajs`function double({ data }) { return { out: data * 2 } }`
    const token = await store(vm, double)
    expect((await vm.run(strategies, { strategyToken: token, data: 21 })).result).toEqual({ out: 42 })
    // A raw AST is accepted too (no storage needed).
    expect((await vm.run(strategies, { strategyToken: double, data: 1 })).result).toEqual({ out: 2 })
  })

  test('worker pool', async () => {
    const vm = new AgentVM()
    const orchestrator = ajs`
      function orchestrate({ workers, tasks }) {
        let results = []
        for (let i = 0; i < tasks.length; i = i + 1) {
          let workerToken = workers[i % workers.length]
          let r = agentRun({ agentId: workerToken, input: tasks[i] })
          results.push(r)
        }
        return { results }
      }
    `
    const inc = await store(vm, ajs`function inc({ n }) { return n + 1 }`)
    const neg = await store(vm, ajs`function neg({ n }) { return -n }`)
    const r = await vm.run(orchestrator, { workers: [inc, neg], tasks: [{ n: 1 }, { n: 2 }, { n: 3 }] })
    expect(r.result).toEqual({ results: [2, -2, 4] })
  })

  test('callback registration: storeProcedure({ ast: handler, ttl: 300000 })', async () => {
    const vm = new AgentVM()
    const registerCallback = ajs`
      function register({ handler }) {
        let token = storeProcedure({ ast: handler, ttl: 300000 })
        return { callbackId: token }
      }
    `
    const handler = ajs`function onEvent({ x }) { return { seen: x } }`
    const { result } = await vm.run<{ callbackId: string }>(registerCallback, { handler })
    expect(result!.callbackId.startsWith('proc_')).toBe(true)
    expect((await vm.run(result!.callbackId, { x: 7 })).result).toEqual({ seen: 7 })
  })
})

describe('5. Recursive agent fuel: shared fuel through capabilities.agent.run', () => {
  test('Option 1: pass remaining fuel to children', async () => {
    const vm = new AgentVM()
    const agents: Record<string, unknown> = {
      child: ajs`function child({ n }) { let t = 0; for (let i = 0; i < n; i++) { t += i } return t }`,
    }
    const sharedFuel = { current: 1000 }
    const caps = {
      agent: {
        run: async (agentId: string, input: unknown) => {
          if (sharedFuel.current <= 0) throw new Error('Out of shared fuel')
          const result = await vm.run(agents[agentId], input, {
            fuel: sharedFuel.current,
            capabilities: caps,
          })
          sharedFuel.current -= result.fuelUsed
          return result.result
        },
      },
    }
    const parent = ajs`function parent() { let a = agentRun({ agentId: 'child', input: { n: 10 } }); return { a } }`
    const r = await vm.run(parent, {}, { capabilities: caps })
    expect(r.result).toEqual({ a: 45 })
    expect(sharedFuel.current).toBeLessThan(1000)
  })
})

describe('5. Streaming: a custom atom emits intermediate results through ctx.context', () => {
  test('streamChunk', async () => {
    const streamingAtom = defineAtom(
      'streamChunk',
      s.object({ data: s.any }),
      s.null,
      async ({ data }, ctx) => {
        // ctx.context contains your streaming callback
        await ctx.context?.onChunk?.(data)
        return null
      }
    )
    const vm = new AgentVM({ streamingAtom })
    const ast = ajs`
      function stream({ items }) {
        for (const item of items) {
          streamChunk({ data: { item } })
        }
        return { done: true }
      }
    `
    const written: string[] = []
    const res = { write: (line: string) => written.push(line) }
    const r = await vm.run(ast, { items: [1, 2] }, {
      context: {
        onChunk: (data: unknown) => res.write(JSON.stringify(data) + '\n'),
      },
    })
    expect(r.result).toEqual({ done: true })
    expect(written).toEqual(['{"item":1}\n', '{"item":2}\n'])
  })
})

describe('5. Error handling granularity: try/catch sees `error`', () => {
  test('the seed\'s pattern for error types', async () => {
    const agent = Agent.take(s.object({})).try({
      try: (b) => b.httpFetch({ url: '...' }).as('response'),
      catch: (b) =>
        b
          .varSet({ key: 'errorType', value: 'unknown' })
          // Check error message patterns
          .if(
            'msg.includes("timeout")',
            { msg: 'error.message' },
            (then) => then.varSet({ key: 'errorType', value: 'timeout' }),
            (el) =>
              el.if('msg.includes("404")', { msg: 'error.message' }, (then) =>
                then.varSet({ key: 'errorType', value: 'not_found' })
              )
          ),
    }).return(s.object({ errorType: s.string }))
    const vm = new AgentVM()
    const fails = (message: string) => ({ fetch: async () => { throw new Error(message) } })
    expect((await vm.run(agent.toJSON(), {}, { capabilities: fails('request timeout') })).result).toEqual({ errorType: 'timeout' })
    expect((await vm.run(agent.toJSON(), {}, { capabilities: fails('HTTP 404') })).result).toEqual({ errorType: 'not_found' })
    expect((await vm.run(agent.toJSON(), {}, { capabilities: fails('boom') })).result).toEqual({ errorType: 'unknown' })
  })

  test('Error("msg") as a statement fails the run, catchable with error.message', async () => {
    const vm = new AgentVM()
    const ast = ajs`
      function check({ n }) {
        if (n < 0) {
          Error('n must not be negative')
        }
        return { n }
      }
    `
    const r = await vm.run(ast, { n: -1 })
    expect([r.error?.code, r.error?.message]).toEqual(['THROWN', 'n must not be negative'])
    expect((await vm.run(ast, { n: 2 })).result).toEqual({ n: 2 })
    const caught = ajs`
      function safe() {
        try {
          Error('bad input')
          return { ok: true }
        } catch (error) {
          return { message: error.message }
        }
      }
    `
    expect((await vm.run(caught, {})).result).toEqual({ message: 'bad input' })
  })
})

describe('5. Condition string syntax', () => {
  const vm = new AgentVM()
  const cond = async (source: string, vars: Record<string, unknown>) => {
    const ast = Agent.take(s.object({ a: s.number, b: s.number, x: s.string, n: s.number, obj: s.any }))
      .if(source, (t) => t.return(true), (f) => f.return(false)).toJSON()
    return (await vm.run(ast, vars)).result
  }
  const args = { a: 3, b: 2, x: 'hello', n: 1, obj: { foo: { bar: 5 } } }

  test('supported: comparisons, logical, arithmetic, member access, literals', async () => {
    expect(await cond('a > b', args)).toBe(true)
    expect(await cond("x == 'hello'", args)).toBe(true)
    expect(await cond('n != 0', args)).toBe(true)
    expect(await cond('a > b && !(n == 0) || false', args)).toBe(true)
    expect(await cond('(a + b) / n == 5 && a + b * n == 5', args)).toBe(true)
    expect(await cond('obj.foo.bar == 5', args)).toBe(true)
    expect(await cond('42 > a && "string" != x && true && null == null', args)).toBe(true)
  })

  test('chained `a > b > c` throws a clear error at build time with the rewrite', () => {
    expect(() => Agent.take(s.object({ a: s.number, b: s.number, c: s.number })).if('a > b > c', (t) => t.return(1)))
      .toThrow('Write `a > b && b > c`')
  })
})
