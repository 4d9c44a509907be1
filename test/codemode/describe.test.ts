/** describeAtoms: JSON Schema -> TypeScript declarations; `ajsc atoms`. */
import { describe, expect, test } from 'bun:test'
import { coreAtoms, defineAtom, s } from '../../src/index.ts'
import { describeAtoms, schemaToTs, SCHEMA_TS_BUDGET } from '../../src/codemode/index.ts'
import { ajsc } from '../cli/run-cli.ts'
import { SERVER } from './helpers.ts'

describe('schemaToTs', () => {
  const cases: Array<[unknown, string]> = [
    [{ type: 'string' }, 'string'],
    [{ type: 'integer' }, 'number'],
    [{ type: ['string', 'null'] }, 'string | null'],
    [{ enum: ['a', 'b', 1] }, '"a" | "b" | 1'],
    [{ const: 'x' }, '"x"'],
    [{ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } }, '(string | number)[]'],
    [{ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] }, '[string, number]'],
    [{ type: 'object', properties: { a: { type: 'string' }, 'b-c': { type: 'number' } }, required: ['a'] }, '{ a: string; "b-c"?: number }'],
    [{ type: 'object', additionalProperties: { type: 'number' } }, 'Record<string, number>'],
    [{ type: 'object' }, 'Record<string, unknown>'],
    [{ allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { type: 'object', properties: { b: { type: 'number' } } }] }, '{ a: string } & { b?: number }'],
    [{ oneOf: [{ type: 'string' }, {}] }, 'unknown'],
    [{ $defs: { N: { type: 'object', properties: { next: { $ref: '#/$defs/N' } } } }, $ref: '#/$defs/N' }, '{ next?: unknown }'],
    [undefined, 'unknown'],
  ]
  for (const [schema, ts] of cases) test(`${JSON.stringify(schema)} -> ${ts}`, () => expect(schemaToTs(schema)).toBe(ts))
  test('descriptions, bounds and defaults become doc comments', () => {
    expect(schemaToTs({ type: 'object', properties: { n: { type: 'integer', description: 'How many', minimum: 1, default: 3 } } }))
      .toBe('{\n  /** How many @minimum 1 @default 3 */\n  n?: number\n}')
  })
})

describe('schemaToTs of a hostile tool schema (an MCP server\'s)', () => {
  /** `levels` definitions, each an anyOf of `width` objects whose one field refers to the next. */
  const shared = (levels: number, width: number) => {
    const defs: Record<string, unknown> = { [`d${levels}`]: { type: 'string' } }
    for (let i = 0; i < levels; i++) defs[`d${i}`] = { anyOf: Array.from({ length: width }, (_, k) => ({ type: 'object', properties: { [`k${k}`]: { $ref: `#/$defs/d${i + 1}` } } })) }
    return { $defs: defs, $ref: '#/$defs/d0' }
  }
  test(`refs shared under wide anyOfs are written from at most ${SCHEMA_TS_BUDGET.toLocaleString('en')} nodes and characters (14 levels of 50 were a 125 MB type)`, () => {
    expect(schemaToTs(shared(14, 50))).toBe('unknown')
    expect(schemaToTs(shared(14, 6)).length).toBeLessThan(3 * SCHEMA_TS_BUDGET)
  })
  test('a small one is written in full', () => {
    expect(schemaToTs(shared(2, 2))).toBe('{ k0?: { k0?: string } | { k1?: string } } | { k1?: { k0?: string } | { k1?: string } }')
  })
})

describe('describeAtoms', () => {
  const lookup = defineAtom('lookup', s.object({ id: s.string }), s.object({ name: s.string, tags: s.array(s.string) }), async () => ({ name: 'x', tags: [] }), { docs: 'Find a record by id.' })
  test('typescript: one declaration per callable atom, with docs and effects', () => {
    expect(describeAtoms({ lookup })).toBe('/** Find a record by id. @effects io */\ndeclare function lookup(input: { id: string }): { name: string; tags: string[] }\n')
  })
  test('core atoms: value fields as unknown, statement ops left out', () => {
    const text = describeAtoms(coreAtoms, { only: ['storeGet', 'if', 'len'] })
    expect(text).toContain('declare function storeGet(input: { key: unknown }): unknown')
    expect(text).toContain('declare function len(')
    expect(text).not.toContain('declare function if')
  })
  test('json: tool descriptions', () => {
    expect(JSON.parse(describeAtoms([lookup], { format: 'json' }))).toEqual([{ name: 'lookup', description: 'Find a record by id.', effects: 'io', inputSchema: lookup.inputSchema, outputSchema: lookup.outputSchema }])
  })
  test('100 and 1,000 tools render quickly and stay small per tool', () => {
    const many = Array.from({ length: 1000 }, (_, i) => defineAtom(`tool${i}`, { type: 'object', properties: { q: { type: 'string', description: 'query' }, n: { type: 'integer' } }, required: ['q'] }, { type: 'object', properties: { ok: { type: 'boolean' } } }, async () => ({})))
    const t0 = performance.now()
    const text = describeAtoms(many)
    expect(performance.now() - t0).toBeLessThan(500)
    expect(text.length / 1000).toBeLessThan(200)
  })
})

describe('ajsc atoms', () => {
  test('--mcp: the server tools as TypeScript declarations', () => {
    const r = ajsc(['atoms', '--mcp', `${process.execPath} ${SERVER}`])
    expect(r.stderr).toContain('MCP tool "get-weather" of codemode-test is the atom get_weather_2 (collision with "get_weather")')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('declare function get_weather_2(input: {\n  /** City name, e.g. "Faro" */\n  city: string')
    expect(r.stdout).toContain('units?: "c" | "f"')
  })
  test('--format json --only', () => {
    const r = ajsc(['atoms', '--mcp', `${process.execPath} ${SERVER}`, '--format', 'json', '--only', 'fail'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual([{ name: 'fail', description: 'Always fails with the given reason.', effects: 'io', inputSchema: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] } }])
  })
  test('a server that does not start: CLI_MCP', () => {
    const r = ajsc(['atoms', '--mcp', `${process.execPath} -e "process.exit(2)"`])
    expect(r.code).toBe(1)
    expect(r.stdout + r.stderr).toContain('CLI_MCP')
  })
})
