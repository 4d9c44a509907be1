/**
 * Late-bound atoms (issue 11, point 1): without an atom table, a call to a
 * name the source does not declare compiles to a custom-atom call, with a
 * warning and the AST's `atoms` list; the VM refuses a program whose atom it
 * lacks before any step runs. With a table the compile-time error stays.
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM, ajs, defineAtom, s, transpile } from '../../src/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'

const refused = (f: () => unknown): TranspileError => {
  try {
    f()
  } catch (e) {
    if (e instanceof TranspileError) return e
    throw e
  }
  throw new Error('expected a TranspileError')
}

const SRC = `function agent({ city }) {
  let w = weather({ city })
  return { w }
}`

describe('transpile with no atom table', () => {
  test('an unknown one-object call becomes a custom-atom call, warned and listed in ast.atoms', () => {
    const { ast, warnings } = transpile(SRC)
    expect(ast.atoms).toEqual(['weather'])
    expect(JSON.stringify(ast.steps)).toContain('"callee":"weather"')
    expect(warnings.map((w) => [w.code, w.line, w.column])).toEqual([['AJS3010', 2, 10]])
    expect(warnings[0]!.severity).toBe('warning')
    expect(warnings[0]!.hint).toContain("atoms: ['weather']")
  })

  test('one warning per name; every custom atom the program calls is listed, declared ones too', () => {
    const src = 'function agent() { a({}); a({}); let x = b(); return c({ x }) }'
    const late = transpile(src)
    expect(late.warnings.map((w) => w.message)).toHaveLength(3)
    expect(late.ast.atoms).toEqual(['a', 'b', 'c'])
    expect(transpile(src, { atoms: ['a', 'b', 'c'] }).ast.atoms).toEqual(['a', 'b', 'c'])
    expect(transpile(src, { atoms: ['a', 'b', 'c'] }).warnings).toEqual([])
    // Core atoms are never listed.
    expect(transpile('function f() { return httpFetch({ url: "u" }) }').ast.atoms).toBeUndefined()
  })

  test('a typo near a known name still compiles, and the warning says what it may be', () => {
    const { warnings } = transpile('function f({ url }) { return htpFetch({ url }) }')
    expect(warnings[0]!.hint).toContain('Did you mean `httpFetch`?')
  })

  test('host names stay refused with their hints', () => {
    for (const [name, hint] of [['fetch', 'httpFetch'], ['setTimeout', 'timeout'], ['require', 'same source'], ['process', 'run arguments'], ['globalThis', 'run arguments'], ['setInterval', 'Timers']]) {
      const err = refused(() => transpile(`function f() { return ${name}({}) }`))
      expect([err.code, err.hint?.includes(hint!)]).toEqual(['AJS3002', true])
    }
  })

  test('calls that cannot be an atom stay refused (several arguments, a literal of another type)', () => {
    for (const call of ['parseInteger(text, 10)', 'helpr("a")', 'f(1)', 'g([1])', 'h(`t`)', 'k(...xs)']) {
      expect(refused(() => transpile(`function agent({ text, xs }) { return { r: ${call} } }`)).code).toBe('AJS3002')
    }
  })

  test('with an atom table (even empty) an unknown name is an error', () => {
    const err = refused(() => transpile(SRC, { atoms: [] }))
    expect([err.code, err.line, err.column]).toEqual(['AJS3002', 2, 10])
    expect(refused(() => transpile(SRC, { atoms: ['weathr'] })).hint).toContain('Did you mean `weathr`?')
  })

  test('the AST with `atoms` validates against the schema checker', async () => {
    const { validateAst } = await import('../../src/ast/validate.ts')
    expect(validateAst(transpile(SRC).ast)).toEqual([])
    expect(validateAst({ ...transpile(SRC).ast, atoms: ['not a name'] }).map((p) => p.path)).toEqual(['/atoms'])
  })
})

describe('the VM that runs the AST provides the atom (the seed\'s central pattern)', () => {
  const weather = defineAtom('weather', s.object({ city: s.string }), s.string, async ({ city }, ctx) => `${city}: sunny for ${ctx.context.user}`)

  test('ajs + new AgentVM({ myAtom }) + vm.run(ast)', async () => {
    const ast = ajs`
      function agent({ city }) {
        let w = weather({ city })
        return { w }
      }
    `
    const vm = new AgentVM({ weather })
    const r = await vm.run(ast, { city: 'Lisbon' }, { context: { user: 'ana' } })
    expect(r.result).toEqual({ w: 'Lisbon: sunny for ana' })
  })

  test('a VM without the atom refuses the program before any step runs: UNKNOWN_ATOM, location, did you mean', async () => {
    let sideEffects = 0
    const note = defineAtom('note', s.object({}), s.null, () => { sideEffects++; return null }, { sync: true })
    const weathr = defineAtom('weathr', s.object({ city: s.string }), s.string, async () => 'x')
    const ast = ajs`function agent({ city }) {
  note({})
  let w = weather({ city })
  return { w }
}`
    const r = await new AgentVM({ note, weathr }).run(ast, { city: 'x' })
    expect(r.error?.code).toBe('UNKNOWN_ATOM')
    expect([r.error?.line, r.error?.column]).toEqual([3, 11]) // a run error's column is 1-based, like its location
    expect(r.error?.message).toContain('weather')
    expect(r.error?.message).toContain('did you mean "weathr"')
    expect(r.error?.hint).toContain('new AgentVM')
    expect(sideEffects).toBe(0)
  })

  test('an unknown op in a step is UNKNOWN_ATOM too', async () => {
    const r = await new AgentVM().run({ ajs: 1, op: 'seq', steps: [{ op: 'weather', city: 'x', loc: [4, 2] }] })
    expect([r.error?.code, r.error?.line]).toEqual(['UNKNOWN_ATOM', 4])
  })

  test('vm.run(source) knows its atom table: an unknown name is the compile-time error', async () => {
    const r = await new AgentVM().run(SRC, { city: 'x' })
    expect([r.error?.code, r.error?.line]).toEqual(['AJS3002', 2])
    const ok = await new AgentVM({ weather }).run(SRC, { city: 'Porto' }, { context: { user: 'rui' } })
    expect(ok.result).toEqual({ w: 'Porto: sunny for rui' })
  })
})

describe('the entry: `export default function`, the last-function rule, unused helpers', () => {
  const MAIN_FIRST = `function main({ xs }) {
  return { total: sum(xs), n: count(xs) }
}
function sum(xs) { return xs.reduce((a, b) => a + b, 0) }
function count(xs) { return xs.length }`

  test('`export default function` marks the entry; helpers may follow it', async () => {
    const { ast, warnings } = transpile(`export default ${MAIN_FIRST}`)
    expect(ast.name).toBe('main')
    expect(Object.keys(ast.functions ?? {})).toEqual(['sum', 'count'])
    expect(warnings).toEqual([])
    expect((await new AgentVM().run(ast, { xs: [1, 2, 3] })).result).toEqual({ total: 6, n: 3 })
  })

  test('`export default function build({ blocks })` between helpers', async () => {
    const src = `function one(b) { return b.length }
export default function build({ blocks }) { return { n: blocks.map((b) => one(b)) } }
function unused() { return 1 }`
    const { ast, warnings } = transpile(src)
    expect(ast.name).toBe('build')
    expect(warnings.map((w) => [w.code, w.line])).toEqual([['AJS4004', 3]])
    expect((await new AgentVM().run(ast, { blocks: ['ab', 'c'] })).result).toEqual({ n: [2, 1] })
  })

  test('an anonymous `export default function` is the entry, named default', () => {
    expect(transpile('export default function ({ a }) { return { a } }').ast.name).toBe('default')
  })

  test('without it, the last function is the entry (the seed\'s rule): calling it is AJS3002 with the hint', () => {
    const err = refused(() => transpile(MAIN_FIRST))
    expect(err.code).toBe('AJS3002')
    expect(err.hint).toContain('export default')
  })

  test('a top-level function nothing calls is warned (AJS4004), naming the entry', () => {
    const { warnings } = transpile('function main({ a }) { return { a } }\nfunction helper(x) { return x }')
    expect(warnings.map((w) => [w.code, w.line, w.column])).toEqual([['AJS4004', 1, 9]])
    expect(warnings[0]!.message).toContain('the entry is `helper`')
  })

  test('other exports and imports stay refused', () => {
    for (const src of ['export function f() {}', 'export const a = 1', 'import x from "y"\nfunction f() {}', 'export default 1\nfunction f() {}']) {
      expect(refused(() => transpile(src)).code).toBe('AJS2009')
    }
  })

  test('the AJS3002 hint says helpers come before the entry', () => {
    expect(refused(() => transpile('function f() { return g(1, 2) }')).hint).toContain('helpers come before the entry')
  })
})

describe('storeProcedure({ ast: helper }): a helper of the same source as a sub-agent', () => {
  const SRC = `function square({ n }) {
  return { sq: n * n, twice: twice(n) }
}
function twice(x) { return x * 2 }
function main({ xs }) {
  let worker = storeProcedure({ ast: square, ttl: 60000 })
  let out = []
  for (const n of xs) {
    out.push(agentRun({ agentId: worker, input: { n } }))
  }
  return { out }
}`

  test('the helper (with the helpers it needs) is embedded as a procedure AST and runs as an agent', async () => {
    const { ast, warnings } = transpile(SRC)
    expect(warnings).toEqual([])
    const stored = JSON.stringify(ast.steps)
    expect(stored).toContain('"name":"square"')
    const r = await new AgentVM().run(ast, { xs: [2, 3] })
    expect(r.result).toEqual({ out: [{ sq: 4, twice: 4 }, { sq: 9, twice: 6 }] })
  })

  test('a variable named like nothing else still means its value; a helper storing itself is refused', () => {
    expect(() => transpile('function f({ handler }) { return storeProcedure({ ast: handler }) }')).not.toThrow()
    expect(refused(() => transpile('function a() { return storeProcedure({ ast: a }) }\nfunction main() { return a() }')).code).toBe('AJS2030')
  })
})
