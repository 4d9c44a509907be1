/**
 * `procedureStore` (issue 26): the one process-wide store every AgentVM
 * constructed without a `procedures` option uses, Map-like as the seed
 * documents it (get → { ast, createdAt, expiresAt } in ms, has, delete,
 * clear, size counting expired entries not yet swept).
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { AgentVM, MemoryProcedureStore, procedureStore } from '../../src/index.ts'
import { procedureStore as fromVmEntry } from '../../src/vm/index.ts'

const program = { ajs: 1, op: 'seq', steps: [{ op: 'return', value: { $expr: 'literal', value: 'hi' } }] }
const storeIt = (vm: AgentVM, ttl?: number, now?: () => number) => vm.run<string>(
  { ajs: 1, op: 'seq', steps: [{ op: 'storeProcedure', ast: { $expr: 'literal', value: program }, ...(ttl ? { ttl } : {}), result: 't' }, { op: 'return', value: { $expr: 'ident', name: 't' } }] },
  {},
  now ? { now } : undefined,
)

describe('procedureStore', () => {
  afterEach(() => procedureStore.clear())

  test('one object, exported from the main and the vm entries, used by VMs without a procedures option', () => {
    expect(fromVmEntry).toBe(procedureStore)
    expect(procedureStore).toBeInstanceOf(MemoryProcedureStore)
    expect(new AgentVM().procedures).toBe(procedureStore)
    const own = new MemoryProcedureStore()
    expect(new AgentVM({}, { procedures: own }).procedures).toBe(own)
  })

  test('get(token) gives { ast, createdAt, expiresAt } in ms; expiresAt − createdAt is the requested TTL', async () => {
    const now = Date.now()
    const token = (await storeIt(new AgentVM(), 300_000, () => now)).result!
    const entry = procedureStore.get(token)!
    expect(entry.ast).toEqual(program)
    expect(entry.createdAt).toBe(now)
    expect(entry.expiresAt - entry.createdAt).toBe(300_000)
    const dflt = procedureStore.get((await storeIt(new AgentVM())).result!)!
    expect(dflt.expiresAt - dflt.createdAt).toBe(3_600_000)
  })

  test('a token stored through one VM runs on another; has, delete, size, clear', async () => {
    const token = (await storeIt(new AgentVM())).result!
    expect((await new AgentVM().run(token)).result).toBe('hi')
    expect(procedureStore.has(token)).toBe(true)
    expect(procedureStore.size).toBe(1)
    expect(procedureStore.delete(token)).toBe(true)
    expect(procedureStore.has(token)).toBe(false)
    expect((await new AgentVM().run(token)).error?.code).toBe('PROCEDURE_NOT_FOUND')
    await storeIt(new AgentVM())
    await storeIt(new AgentVM())
    expect(procedureStore.size).toBe(2)
    procedureStore.clear()
    expect(procedureStore.size).toBe(0)
  })

  test('size counts expired entries until they are swept', async () => {
    const token = (await storeIt(new AgentVM(), 1, () => Date.now() - 10_000)).result!
    expect(procedureStore.size).toBe(1)
    expect(procedureStore.get(token)).toBeUndefined()
    expect(procedureStore.size).toBe(0)
  })

  test('a VM with its own store keeps its procedures out of procedureStore', async () => {
    const vm = new AgentVM({}, { procedures: new MemoryProcedureStore() })
    const token = (await storeIt(vm)).result!
    expect(procedureStore.has(token)).toBe(false)
    expect((await new AgentVM().run(token)).error?.code).toBe('PROCEDURE_NOT_FOUND')
    expect((await vm.run(token)).result).toBe('hi')
  })
})
