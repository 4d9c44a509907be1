/**
 * The seed's AST dialect (issue 26): ASTs as the seed's builder writes them
 * (a root `{ op: 'seq', steps }` without `ajs`; `varSet { key, value }`,
 * `consoleWarn { message }`, atom steps with `result`, `.return(schema)` as
 * `{ op: 'return', schema }`; args read by name), each run directly and after
 * migration (the library's migrateAst and `ajsc migrate`), with equal results.
 * The JSON is written from the seed document's description of its builder
 * (the project's seed document, 003, section 1; transcribed here, not read), one case per builder call it shows.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AgentVM, defineAtom, migrateAst, s, validateAst, type RunResult } from '../../src/index.ts'
import { ajsc } from '../cli/run-cli.ts'

setDefaultTimeout(30_000)

const lit = (value: unknown) => ({ $expr: 'literal', value })
const id = (name: string) => ({ $expr: 'ident', name })
const bin = (op: string, left: unknown, right: unknown) => ({ $expr: 'binary', op, left, right })
/** What the seed's `s.object({...})` is on the wire: a JSON Schema. */
const objSchema = (props: Record<string, unknown>) => ({ type: 'object', properties: props, required: Object.keys(props), additionalProperties: false })

const myAtom = defineAtom('myAtom', s.object({ text: s.string }), s.string, async ({ text }) => text.toUpperCase())

interface Case {
  name: string
  ast: Record<string, unknown>
  args?: Record<string, unknown>
  result?: unknown
  error?: string
  warnings?: string[]
  capabilities?: Record<string, unknown>
}

const memory = () => {
  const data = new Map<string, unknown>()
  return { get: async (k: string) => data.get(k) ?? null, set: async (k: string, v: unknown) => { data.set(k, v) } }
}

const CORPUS: Case[] = [
  {
    name: 'Agent.take(s.object({ input })).varSet({ key: "sum", value: 1 + 1 }).return(s.object({ sum }))',
    ast: { op: 'seq', steps: [
      { op: 'varSet', key: 'sum', value: bin('+', lit(1), lit(1)) },
      { op: 'return', schema: objSchema({ sum: { type: 'number' } }) },
    ] },
    args: { input: 'x' },
    result: { sum: 2 },
  },
  {
    name: 'the same with the take schema on the root (inputSchema)',
    ast: { op: 'seq', inputSchema: objSchema({ input: { type: 'string' } }), steps: [
      { op: 'varSet', key: 'sum', value: bin('+', lit(1), lit(1)) },
      { op: 'return', schema: objSchema({ sum: { type: 'number' } }) },
    ] },
    args: { input: 'x' },
    result: { sum: 2 },
  },
  {
    name: 'vm.Agent.myAtom({ text }).as("loud").varSet({ key: "out", value: loud }).return(...)',
    ast: { op: 'seq', steps: [
      { op: 'myAtom', text: 'hello', result: 'loud' },
      { op: 'varSet', key: 'out', value: id('loud') },
      { op: 'return', schema: objSchema({ out: { type: 'string' } }) },
    ] },
    result: { out: 'HELLO' },
  },
  {
    name: 'an ident naming an input field reads the args',
    ast: { op: 'seq', steps: [
      { op: 'varSet', key: 'greeting', value: { $expr: 'template', quasis: ['Hello, ', '!'], expressions: [id('name')] } },
      { op: 'return', schema: objSchema({ greeting: { type: 'string' } }) },
    ] },
    args: { name: 'Ada' },
    result: { greeting: 'Hello, Ada!' },
  },
  {
    name: 'variables first, then args: varSet of an input name reads the arg, then the variable',
    ast: { op: 'seq', steps: [
      { op: 'varSet', key: 'count', value: bin('+', id('count'), lit(1)) },
      { op: 'varSet', key: 'count', value: bin('*', id('count'), lit(10)) },
      { op: 'return', schema: objSchema({ count: {} }) },
    ] },
    args: { count: 4 },
    result: { count: 50 },
  },
  {
    name: 'member access on an arg: user.name',
    ast: { op: 'seq', steps: [
      { op: 'varSet', key: 'who', value: { $expr: 'member', object: id('user'), property: 'name' } },
      { op: 'return', schema: { properties: { who: {} } } },
    ] },
    args: { user: { name: 'Grace' } },
    result: { who: 'Grace' },
  },
  {
    name: 'varGet({ key }) of a variable and of an arg',
    ast: { op: 'seq', steps: [
      { op: 'varSet', key: 'a', value: 'first' },
      { op: 'varGet', key: 'a', result: 'copy' },
      { op: 'varGet', key: 'b', result: 'fromArgs' },
      { op: 'return', schema: { properties: { copy: {}, fromArgs: {} } } },
    ] },
    args: { b: 'second' },
    result: { copy: 'first', fromArgs: 'second' },
  },
  {
    name: 'consoleWarn({ message }) reaches the run\'s warnings',
    ast: { op: 'seq', steps: [
      { op: 'consoleWarn', message: 'careful' },
      { op: 'return', schema: {} },
    ] },
    result: {},
    warnings: ['careful'],
  },
  {
    name: 'return with schema {} returns {}',
    ast: { op: 'seq', steps: [{ op: 'varSet', key: 'x', value: 1 }, { op: 'return', schema: {} }] },
    result: {},
  },
  {
    name: 'a schema return inside a branch',
    ast: { op: 'seq', steps: [
      { op: 'varSet', key: 'big', value: bin('>', id('n'), lit(10)) },
      { op: 'if', condition: id('big'), then: [
        { op: 'varSet', key: 'label', value: 'big' },
        { op: 'return', schema: { properties: { label: {}, n: {} } } },
      ] },
      { op: 'varSet', key: 'label', value: 'small' },
      { op: 'return', schema: { properties: { label: {} } } },
    ] },
    args: { n: 42 },
    result: { label: 'big', n: 42 },
  },
  {
    name: 'storeSet / storeGet through the store capability, with result',
    ast: { op: 'seq', steps: [
      { op: 'storeSet', key: 'k', value: id('value') },
      { op: 'storeGet', key: 'k', result: 'back' },
      { op: 'return', schema: objSchema({ back: {} }) },
    ] },
    args: { value: { deep: [1, 2] } },
    capabilities: { store: memory() },
    result: { back: { deep: [1, 2] } },
  },
  {
    name: 'try/catch: the catch block reads error.message (the seed\'s error-type pattern)',
    ast: { op: 'seq', steps: [
      { op: 'varSet', key: 'errorType', value: 'none' },
      { op: 'try', try: [{ op: 'Error', message: 'request timeout' }], catch: [
        { op: 'varSet', key: 'errorType', value: 'unknown' },
        { op: 'if', condition: { $expr: 'methodCall', object: { $expr: 'member', object: id('error'), property: 'message' }, method: 'includes', args: [lit('timeout')] },
          then: [{ op: 'varSet', key: 'errorType', value: 'timeout' }] },
      ] },
      { op: 'return', schema: objSchema({ errorType: {} }) },
    ] },
    result: { errorType: 'timeout' },
  },
  {
    name: 'map over an arg with its own scope',
    ast: { op: 'seq', steps: [
      { op: 'map', items: id('xs'), as: 'x', steps: [{ op: 'return', value: bin('*', id('x'), id('factor')) }], result: 'ys' },
      { op: 'return', schema: objSchema({ ys: {} }) },
    ] },
    args: { xs: [1, 2, 3], factor: 3 },
    result: { ys: [3, 6, 9] },
  },
  {
    name: 'a name in neither the variables nor the args keeps today\'s error',
    ast: { op: 'seq', steps: [{ op: 'return', value: id('missing') }] },
    args: {},
    error: 'Unknown identifier "missing"',
  },
]

const vm = new AgentVM({ myAtom })
const run = (ast: unknown, c: Case): Promise<RunResult> => vm.run(ast, c.args ?? {}, { capabilities: c.capabilities })
/** What must be equal between the direct and the migrated run. */
const outcome = (r: RunResult) => ({ result: r.result, error: r.error?.message, warnings: r.warnings, ...(r.error ? {} : { fuelUsed: r.fuelUsed }) })

describe('the seed dialect runs directly', () => {
  for (const c of CORPUS) {
    test(c.name, async () => {
      const r = await run(c.ast, c)
      if (c.error) {
        expect(r.error?.message).toBe(c.error)
      } else {
        expect(r.error).toBeUndefined()
        expect(r.result).toEqual(c.result)
      }
      if (c.warnings) expect(r.warnings).toEqual(c.warnings)
    })
  }

  test('a name in neither: the code is UNKNOWN_IDENTIFIER, as for an ajs/1 program', async () => {
    const seed = await vm.run({ op: 'seq', steps: [{ op: 'return', value: id('missing') }] }, {})
    const today = await vm.run({ ajs: 1, op: 'seq', steps: [{ op: 'return', value: id('missing') }] }, {})
    expect(seed.error?.code).toBe('UNKNOWN_IDENTIFIER')
    expect(today.error?.code).toBe('UNKNOWN_IDENTIFIER')
  })

  test('an explicit unknown version is still AST_VERSION; ajs/1 is unchanged', async () => {
    expect((await vm.run({ ajs: 2, op: 'seq', steps: [] })).error?.code).toBe('AST_VERSION')
    expect((await vm.run({ ajs: 1, op: 'seq', steps: [{ op: 'return', value: id('input') }] }, { input: 1 })).error?.code).toBe('UNKNOWN_IDENTIFIER')
  })

  test('in ajs/1 a return with schema is still refused (the dialect is only for roots without `ajs`)', async () => {
    expect((await vm.run({ ajs: 1, op: 'seq', steps: [{ op: 'return', schema: {} }] })).error?.code).toBe('AST_INVALID')
  })

  test('the AST object is normalised once and never modified', async () => {
    const ast = CORPUS[0]!.ast
    const before = JSON.stringify(ast)
    await vm.run(ast, { input: 'x' })
    await vm.run(ast, { input: 'y' })
    expect(JSON.stringify(ast)).toBe(before)
  })

  test('a stored seed AST runs by token, and agentRun accepts one', async () => {
    const child = { op: 'seq', steps: [{ op: 'varSet', key: 'twice', value: bin('*', id('n'), lit(2)) }, { op: 'return', schema: { properties: { twice: {} } } }] }
    const stored = await vm.run<string>({ ajs: 1, op: 'seq', steps: [{ op: 'storeProcedure', ast: lit(child), result: 't' }, { op: 'return', value: id('t') }] })
    expect((await vm.run(stored.result!, { n: 21 })).result).toEqual({ twice: 42 })
    const parent = { op: 'seq', steps: [{ op: 'agentRun', agentId: lit(child), input: { n: id('m') }, result: 'out' }, { op: 'return', schema: { properties: { out: {} } } }] }
    expect((await vm.run(parent, { m: 5 })).result).toEqual({ out: { twice: 10 } })
  })

  test('cyclic and explosive seed ASTs are refused, not walked forever', async () => {
    const cyclic: any = { op: 'seq', steps: [] }
    cyclic.steps.push(cyclic)
    expect((await vm.run(cyclic)).error?.code).toBe('AST_TOO_DEEP')
    let dag: any = lit(1)
    for (let i = 0; i < 30; i++) dag = bin('+', dag, dag)
    expect((await vm.run({ op: 'seq', steps: [{ op: 'return', value: dag }] })).error?.code).toBe('AST_TOO_LARGE')
  })
})

describe('migrateAst: the same results in ajs/1', () => {
  for (const c of CORPUS) {
    test(c.name, async () => {
      const m = migrateAst(c.ast)
      expect(m.ast.ajs).toBe(1)
      expect(validateAst(m.ast)).toEqual([])
      expect(outcome(await run(m.ast, c))).toEqual(outcome(await run(c.ast, c)))
    })
  }

  test('every changed construct is reported with a pointer into the input', () => {
    const m = migrateAst(CORPUS[4]!.ast)
    expect(m.changes.map((ch) => [ch.path, ch.construct])).toEqual([
      ['', 'version'],
      ['/steps/0/value/left', 'ident'],
      ['/steps/1/value/left', 'ident'],
      ['/steps/2', 'return.schema'],
    ])
    for (const ch of m.changes) expect(ch.message.length).toBeGreaterThan(10)
  })

  test('an ajs/1 AST comes back unchanged; an unknown version is refused', () => {
    const ast = { ajs: 1, op: 'seq', steps: [] }
    expect(migrateAst(ast)).toMatchObject({ ast, changes: [] })
    expect(() => migrateAst({ ajs: 7, op: 'seq', steps: [] })).toThrow(/version/)
  })

  test('migrating a migration changes nothing', () => {
    for (const c of CORPUS) expect(migrateAst(migrateAst(c.ast).ast).changes).toEqual([])
  })

  test('a missing arg the program reads only from its args: the migrated AST throws the same message', async () => {
    const c = CORPUS.at(-1)!
    const r = await vm.run(migrateAst(c.ast).ast, {})
    expect(r.error?.message).toBe('Unknown identifier "missing"')
  })
})

describe('ajsc migrate', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ajsc-migrate-'))
    CORPUS.forEach((c, i) => writeFileSync(join(dir, `case${i}.json`), JSON.stringify(c.ast)))
    writeFileSync(join(dir, 'current.json'), JSON.stringify({ ajs: 1, op: 'seq', steps: [] }))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('--check writes nothing and fails with CLI_MIGRATE_NEEDED', () => {
    const r = ajsc(['migrate', 'case0.json', 'current.json', '--check', '--json'], { cwd: dir })
    expect(r.code).toBe(1)
    const report = JSON.parse(r.stdout)
    expect(report.diagnostics.map((d: any) => d.code)).toEqual(['CLI_MIGRATE_NEEDED'])
    expect(report.files.map((f: any) => f.status)).toEqual(['needed', 'current'])
    expect(JSON.parse(readFileSync(join(dir, 'case0.json'), 'utf8')).ajs).toBeUndefined()
  })

  test('rewrites the corpus in place; each migrated file gives the direct run\'s results', async () => {
    const r = ajsc(['migrate', '*.json', '--json'], { cwd: dir })
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    const byFile = new Map(report.files.map((f: any) => [f.file, f]))
    expect((byFile.get('current.json') as any).status).toBe('current')
    for (const [i, c] of CORPUS.entries()) {
      const entry = byFile.get(`case${i}.json`) as any
      expect(entry.status).toBe('migrated')
      expect(entry.changes).toEqual(migrateAst(c.ast).changes)
      const migrated = JSON.parse(readFileSync(join(dir, `case${i}.json`), 'utf8'))
      expect(migrated.ajs).toBe(1)
      expect(outcome(await run(migrated, c))).toEqual(outcome(await run(c.ast, c)))
    }
    // Running it again finds nothing to do.
    expect(JSON.parse(ajsc(['migrate', 'case0.json', '--json'], { cwd: dir }).stdout).files[0].status).toBe('current')
  })

  test('text output lists the changes; -o writes elsewhere; errors exit 1, usage 2', () => {
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(CORPUS[0]!.ast))
    const r = ajsc(['migrate', 'seed.json', '-o', 'out.json'], { cwd: dir })
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('/steps/1 return.schema')
    expect(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')).ajs).toBe(1)
    expect(JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8')).ajs).toBeUndefined()
    writeFileSync(join(dir, 'v9.json'), '{"ajs":9,"op":"seq","steps":[]}')
    writeFileSync(join(dir, 'bad.json'), '{nope')
    const bad = ajsc(['migrate', 'v9.json', 'bad.json', '--json'], { cwd: dir })
    expect(bad.code).toBe(1)
    expect(JSON.parse(bad.stdout).diagnostics.map((d: any) => d.code)).toEqual(['AST_VERSION', 'CLI_BAD_JSON'])
    expect(ajsc(['migrate', 'seed.json', 'v9.json', '-o', 'x.json', '--json'], { cwd: dir }).code).toBe(2)
  })
})

describe('docs/ast.md, the seed dialect section', () => {
  const text = readFileSync(join(import.meta.dir, '../../docs/ast.md'), 'utf8')
  const section = text.slice(text.indexOf('## The seed dialect'), text.indexOf('## Deliberate differences'))
  const blocks = [...section.matchAll(/```json\n([\s\S]*?)```\n<!-- args: ([\s\S]*?) -->\n<!-- result: ([\s\S]*?) -->/g)]
    .map((m) => ({ ast: JSON.parse(m[1]!), args: JSON.parse(m[2]!), result: JSON.parse(m[3]!) }))

  test('the seed example runs as documented and migrates to the documented ajs/1', async () => {
    expect(blocks.length).toBe(2)
    const [seed, migrated] = blocks
    expect(seed!.ast.ajs).toBeUndefined()
    expect((await vm.run(seed!.ast, seed!.args)).result).toEqual(seed!.result)
    expect(migrateAst(seed!.ast).ast).toEqual(migrated!.ast)
    expect((await vm.run(migrated!.ast, migrated!.args)).result).toEqual(migrated!.result)
  })
})
