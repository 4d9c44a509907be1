/** transpile(src, { atoms, typecheck: true }): programs checked against the atoms' schemas. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { defineAtom, s, transpile, TranspileError } from '../../src/index.ts'
import { mcpAtoms, type McpAtomSet } from '../../src/codemode/index.ts'
import { stdioSpec } from './helpers.ts'

const weather = defineAtom('weather', {
  type: 'object',
  properties: { city: { type: 'string' }, units: { enum: ['c', 'f'] }, days: { type: 'integer' }, opts: { type: 'object', properties: { hourly: { type: 'boolean' } }, additionalProperties: false } },
  required: ['city'],
}, {
  type: 'object',
  properties: { temp: { type: 'number' }, days: { type: 'array', items: { type: 'object', properties: { high: { type: 'number' }, low: { type: 'number' } } } }, note: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
  required: ['temp', 'days'],
}, async () => ({ temp: 1, days: [] }))
const notify = defineAtom('notify', s.object({ text: s.string }), s.boolean, async () => true)
const atoms = { weather, notify }

/** The type errors of a source: [code, line:col, message]. */
function errors(src: string): Array<[string, string, string]> {
  try {
    transpile(src, { atoms, typecheck: true, filename: 'p.ajs' })
    return []
  } catch (e) {
    if (!(e instanceof TranspileError)) throw e
    return e.errors.map((x) => [x.code, `${x.line}:${x.column}`, x.message])
  }
}

describe('typecheck: calls', () => {
  test('a correct program passes, and the check is opt-in', () => {
    const ok = `function f({ city }) {
  const w = weather({ city, units: 'f', opts: { hourly: true } })
  let total = 0
  for (const d of w.days) { total += d.high - d.low }
  notify({ text: 'temp ' + w.temp })
  return { total, note: w.note }
}`
    expect(errors(ok)).toEqual([])
    expect(() => transpile('function f() { return weather({}) }', { atoms })).not.toThrow()
  })
  test('a missing required field', () => {
    expect(errors('function f() {\n  return weather({ units: "c" })\n}')).toEqual([['AJS6001', '2:17', '`weather` needs the field `city`']])
    expect(errors('function f() { return weather() }')[0]?.[0]).toBe('AJS6001')
  })
  test('a mistyped field: literal, template, arithmetic, enum, nested object, another result', () => {
    const e = errors(`function f({ n }) {
  weather({ city: 42 })
  weather({ city: 'x', days: 'three' })
  weather({ city: \`c\${n}\`, days: n * 2, units: 'kelvin' })
  weather({ city: 'x', opts: { hourly: 'yes' } })
  const w = weather({ city: 'x' })
  notify({ text: w.temp })
  return {}
}`)
    expect(e.map(([c, at]) => `${c} ${at}`)).toEqual(['AJS6002 2:18', 'AJS6002 3:29', 'AJS6002 4:47', 'AJS6002 5:39', 'AJS6002 7:17'])
    expect(e[0]![2]).toBe('`city` of `weather` must be a string, got a number')
    expect(e[2]![2]).toBe('`units` of `weather` must be one of "c", "f", got "kelvin"')
    expect(e[4]![2]).toBe('`text` of `notify` must be a string, got a number')
  })
  test('an unknown field, with a suggestion', () => {
    const err = (() => { try { transpile('function f() { return weather({ city: "x", unit: "c" }) }', { atoms, typecheck: true }) } catch (e) { return e as TranspileError } })()!
    expect(err.code).toBe('AJS6003')
    expect(err.message).toBe('`weather` takes no field `unit`')
    expect(err.hint).toBe('Did you mean `units`? Its fields are: `city`, `units`, `days`, `opts`.')
    expect(String(err)).toContain('return weather({ city: "x", unit: "c" })')
  })
})

describe('typecheck: results', () => {
  test('a field the result does not have', () => {
    expect(errors('function f() {\n  const w = weather({ city: "x" })\n  return { t: w.tmp }\n}')).toEqual([['AJS6004', '3:16', '`tmp` is not a field of the result of `weather`']])
    expect(errors('function f() { return weather({ city: "x" }).days[0].hi }')[0]?.slice(0, 1)).toEqual(['AJS6004'])
    expect(errors('function f() { const { temp, tmp } = weather({ city: "x" }); return { temp } }')[0]?.[2]).toBe('`tmp` is not a field of the result of `weather`')
  })
  test('a result used as what it is not', () => {
    expect(errors('function f() { const w = weather({ city: "x" }); return w.temp.value }')[0]?.[2]).toBe('`temp` of the result of `weather` is a number: it has no field `value`')
    expect(errors('function f() { const w = weather({ city: "x" }); for (const d of w) {} return {} }')[0]?.[2]).toBe('the result of `weather` is an object: it cannot be iterated')
  })
  test('shadowing and reassignment forget what was known; untyped values are not checked', () => {
    expect(errors('function f({ w }) { return w.tmp }')).toEqual([])
    expect(errors('function f() { let w = weather({ city: "x" }); w = { tmp: 1 }; return w.tmp }')).toEqual([])
    expect(errors('function f() { const w = weather({ city: "x" }); if (true) { const w = { tmp: 1 }; return w.tmp } return {} }')).toEqual([])
    expect(errors('function f({ o }) { return weather({ ...o }) }')).toEqual([])
  })
  test('methods of strings and arrays and length are fine', () => {
    expect(errors('function f() { const w = weather({ city: "x" }); return { n: w.days.length, hi: w.days.map(d => d.high), s: (w.note ?? "").toUpperCase() } }')).toEqual([])
  })
})

describe('typecheck against an MCP server', () => {
  let set: McpAtomSet
  beforeAll(async () => { set = await mcpAtoms(stdioSpec()) })
  afterAll(async () => { await set?.close() })
  test('schema errors at compile time', () => {
    const src = 'function f() {\n  const found = search_docs({ query: "fuel", limit: "3" })\n  return found.hits[0].titel\n}'
    try {
      transpile(src, { atoms: set.atoms, typecheck: true, filename: 'agent.ajs', maxErrors: 10 })
      throw new Error('should not compile')
    } catch (e) {
      const all = (e as TranspileError).errors.map((x) => `${x.file}:${x.line}:${x.column} ${x.code} ${x.message}`)
      expect(all).toEqual([
        'agent.ajs:2:52 AJS6002 `limit` of `search_docs` must be a number, got a string',
        'agent.ajs:3:23 AJS6004 `titel` is not a field of an item of `hits` of the result of `search_docs`',
      ])
      expect((e as TranspileError).errors[1]!.hint).toBe('Did you mean `title`? Its fields are: `title`, `score`, `kind`.')
    }
  })
})

describe('ajsc check --mcp', () => {
  test('type errors against the server tools, located, with hints', async () => {
    const { ajsc } = await import('../cli/run-cli.ts')
    const { SERVER } = await import('./helpers.ts')
    const r = ajsc(['check', 'test/codemode/fixtures/typo.ajs', '--mcp', `${process.execPath} ${SERVER}`, '--json'])
    expect(r.code).toBe(1)
    const report = JSON.parse(r.stdout)
    expect(report.diagnostics.map((d: any) => `${d.line}:${d.column} ${d.code}`)).toEqual(['2:35 AJS6003', '3:20 AJS6004'])
    expect(report.diagnostics[0].hint).toContain('Did you mean `units`?')
  })
})

describe('typecheck: atoms given as a list', () => {
  test('a list of atoms is a table of them: names known, unknown names suggested, schemas checked', () => {
    const list = [weather, notify]
    expect(() => transpile('function f() { return notify({ text: "x" }) }', { atoms: list })).not.toThrow()
    let unknown: unknown
    try { transpile('function f() { return notfy({ text: "x" }) }', { atoms: list }) } catch (e) { unknown = e }
    expect(unknown).toBeInstanceOf(TranspileError)
    expect((unknown as TranspileError).hint).toContain('notify')
    let typed: unknown
    try { transpile('function f() { return weather({ town: "x" }) }', { atoms: list, typecheck: true }) } catch (e) { typed = e }
    expect(typed).toBeInstanceOf(TranspileError)
    expect((typed as TranspileError).code).toMatch(/^AJS600/)
  })

  test('a list entry that is neither a name nor an atom is a clear TypeError', () => {
    expect(() => transpile('function f() { return 1 }', { atoms: [42 as unknown as string] })).toThrow(/each entry is an atom name or an atom/)
  })
})

describe('typecheck against hostile tool schemas (an MCP server\'s)', () => {
  const tool = (outputSchema: unknown) => ({ get_it: defineAtom('get_it', { type: 'object', properties: {} }, outputSchema as never, async () => ({})) })
  const check = (outputSchema: unknown) => () => transpile('function f() {\n  const r = get_it({})\n  return { x: r.b }\n}', { atoms: tool(outputSchema), typecheck: true })

  test('an anyOf that refers to itself: its types are not known, no host RangeError (it overflowed the stack)', () => {
    expect(check({ $defs: { d: { anyOf: [{ $ref: '#/$defs/d' }, { type: 'object', properties: { a: { type: 'string' } } }] } }, $ref: '#/$defs/d' })).not.toThrow()
  })

  test('refs shared under 30 levels of anyOfs 4 wide are worked out once each (4^30 steps before)', () => {
    const defs: Record<string, unknown> = { d30: { type: 'object', properties: { a: { type: 'string' } } } }
    for (let i = 0; i < 30; i++) defs[`d${i}`] = { anyOf: Array.from({ length: 4 }, () => ({ $ref: `#/$defs/d${i + 1}` })) }
    expect(check({ $defs: defs, $ref: '#/$defs/d0' })).not.toThrow()
  })
})
