/** mcpAtoms against a real MCP server started by the test (stdio and streamable HTTP). */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { AgentVM, transpile } from '../../src/index.ts'
import { mapToolNames, mcpAtoms, type McpAtomSet } from '../../src/codemode/index.ts'
import { startHttpServer, stdioSpec } from './helpers.ts'

const PROGRAM = `function f({ city }) {
  const w = get_weather_2({ city, units: 'c' })
  const found = search_docs({ query: 'fu', limit: 3 })
  let failure = null
  try {
    fail({ reason: 'the disk is full' })
  } catch (e) {
    failure = e.message
  }
  return { temp: w.temp, conditions: w.conditions, first: found.hits[0].title, total: found.total, text: get_weather({ city }), failure }
}`

function checks(set: () => McpAtomSet) {
  test('lists the tools as atoms with their schemas and valid names', () => {
    const { atoms, renamed } = set()
    expect(Object.keys(atoms).sort()).toEqual(['delete_', 'fail', 'get_weather', 'get_weather_2', 'search_docs'])
    expect(atoms.get_weather_2!.mcp.tool).toBe('get-weather')
    expect(atoms.get_weather_2!.inputSchema).toMatchObject({ properties: { units: { enum: ['c', 'f'] } }, required: ['city'] })
    expect(atoms.search_docs!.outputSchema).toMatchObject({ required: ['hits', 'total'] })
    expect(atoms.search_docs!.docs).toBe('Search the documentation.')
    expect(atoms.delete_!.effects).toBe('io')
    expect(renamed).toEqual([
      { tool: 'get-weather', op: 'get_weather_2', reason: 'collision', with: 'get_weather' },
      { tool: 'search.docs', op: 'search_docs', reason: 'invalid-identifier' },
      { tool: 'delete', op: 'delete_', reason: 'reserved' },
    ])
  })
  test('a program calls the tools: plain data back, a tool error caught with its message', async () => {
    const { atoms } = set()
    const { ast } = transpile(PROGRAM, { atoms })
    const run = await new AgentVM(atoms).run(ast, { city: 'Faro' }, { fuel: 1000 })
    expect(run.error).toBeUndefined()
    expect(run.result).toEqual({ temp: 24, conditions: 'sunny', first: 'Fuel', total: 1, text: 'Faro: 24C, sunny', failure: 'fail: the disk is full' })
  })
  test('a tool error not caught fails the run with the message', async () => {
    const { atoms } = set()
    const run = await new AgentVM(atoms).run('function f() { return get_weather_2({ city: "Atlantis" }) }', {})
    expect(run.error?.code).toBe('ATOM_ERROR')
    expect(run.error?.message).toContain('unknown city: Atlantis')
  })
  test('the input is checked against the tool schema before the call', async () => {
    const { atoms } = set()
    const run = await new AgentVM(atoms).run('function f() { return get_weather_2({ city: 42 }) }', {})
    expect(run.error?.code).toBe('ATOM_INPUT_INVALID')
  })
}

describe('mcpAtoms over stdio', () => {
  let s: McpAtomSet
  beforeAll(async () => { s = await mcpAtoms(stdioSpec()) })
  afterAll(async () => { await s?.close() })
  checks(() => s)
  test('the server name comes from the handshake', () => expect(s.server).toBe('codemode-test'))
})

describe('mcpAtoms over streamable HTTP', () => {
  let s: McpAtomSet
  let stop = () => {}
  beforeAll(async () => {
    const http = await startHttpServer()
    stop = http.stop
    s = await mcpAtoms({ url: http.url })
  })
  afterAll(async () => { await s?.close(); stop() })
  checks(() => s)
})

describe('names', () => {
  test('prefix, digits, taken names and core ops', () => {
    const { names, renamed } = mapToolNames(['2fa', 'len', 'x'], { prefix: '', taken: ['x'] })
    expect(names).toEqual(['_2fa', 'len_', 'x_2'])
    expect(renamed.map((r) => r.reason)).toEqual(['invalid-identifier', 'reserved', 'collision'])
    expect(mapToolNames(['send'], { prefix: 'slack_' })).toEqual({ names: ['slack_send'], renamed: [{ tool: 'send', op: 'slack_send', reason: 'prefix' }] })
  })
  test('20,000 tools of one name get 20,000 names, the numbers found where the last search stopped (8,000 took 15 s)', () => {
    const { names, renamed } = mapToolNames([...Array.from({ length: 20_000 }, () => 'get-it'), 'get_it_3'])
    expect(names.slice(0, 4)).toEqual(['get_it', 'get_it_2', 'get_it_4', 'get_it_5']) // get_it_3 is a tool's own name, kept
    expect(names.at(-1)).toBe('get_it_3')
    expect(new Set(names).size).toBe(20_001)
    expect(renamed.filter((r) => r.reason === 'collision')).toHaveLength(19_999)
  })
  test('a server that cannot start is a clear error', async () => {
    await expect(mcpAtoms({ command: process.execPath, args: ['-e', 'process.exit(3)'] })).rejects.toThrow(/mcpAtoms: cannot start/)
  })
})
