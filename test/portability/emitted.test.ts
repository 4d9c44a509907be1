/**
 * What every frontend emits is valid "ajs/1" and says what it needs. For each
 * frontend's corpus (the transpiler's differential corpus and the examples,
 * the Python corpus, the flow corpora, the FlowLang graphs, workflow modules,
 * builder programs, migrated seed ASTs):
 *
 * - `validateAst` finds no problem;
 * - every name the program calls is accounted for: a core op, one of its own
 *   helpers, a global builtin, an atom or function of a library it declares
 *   in `libraries`, or an atom it lists in `atoms`. So no AST depends on a
 *   table its root does not name (the bug that made Python and flow ASTs fail
 *   on plain VMs with UNKNOWN_FUNCTION).
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Agent, e, s, transpile, migrateAst, validateAst, type AjsProgram } from '../../src/index.ts'
import { CORE_OPS } from '../../src/ast/nodes.ts'
import { walk } from '../../src/ast/walk.ts'
import { GLOBAL_FUNCTION_NAMES } from '../../src/ast/globals.ts'
import { coreAtoms } from '../../src/vm/atoms/index.ts'
import { LIBRARIES } from '../../src/ast/libraries.ts'
import type { RuntimeLibrary } from '../../src/vm/libraries.ts'
import { pythonLibrary } from '../../src/python/library.ts'
import { flowLibrary } from '../../src/flows/library.ts'
import { flowlangLibrary } from '../../src/flowlang/index.ts'
import { transpilePython } from '../../src/python/index.ts'
import { compileFlow } from '../../src/flows/index.ts'
import { compileTurnProgram, loadFlowSource } from '../../src/flowlang/index.ts'
import { compileWorkflow } from '../../src/workflows/index.ts'
import { WORKFLOW_ATOMS } from '../../src/workflows/frontend/rewrite.ts'
import { CORPUS } from '../transpiler/differential/corpus.ts'
import { allCases } from '../python/corpus/cases.ts'

const ROOT = resolve(import.meta.dir, '../..')

/** What each declarable library provides; the workflow engine's atoms are its frontend's call names. */
const PROVIDED: Record<keyof typeof LIBRARIES, Set<string>> = {
  python: namesOf(pythonLibrary),
  flow: namesOf(flowLibrary),
  flowlang: namesOf(flowlangLibrary),
  workflow: new Set(WORKFLOW_ATOMS),
}
function namesOf(lib: RuntimeLibrary): Set<string> {
  return new Set([...Object.keys(lib.functions ?? {}), ...(lib.atoms ?? []).map((a) => a.op)])
}
const BUILTIN_CALLS = new Set<string>([...GLOBAL_FUNCTION_NAMES, ...Object.keys(coreAtoms), ...Object.keys(CORE_OPS)])

/** Every called name that the program's own declaration does not account for. */
function undeclared(ast: AjsProgram): string[] {
  const allowed = new Set([...BUILTIN_CALLS, ...Object.keys(ast.functions ?? {}), ...(ast.atoms ?? [])])
  for (const name of Object.keys(ast.libraries ?? {})) for (const n of PROVIDED[name as keyof typeof LIBRARIES] ?? []) allowed.add(n)
  const missing = new Set<string>()
  const see = (name: unknown) => { if (typeof name === 'string' && !allowed.has(name)) missing.add(name) }
  const visitor = {
    step: (step: { op: string }) => see(step.op),
    expr: (x: { $expr: string; callee?: unknown }) => { if (x.$expr === 'call') see(x.callee) },
  }
  walk(ast, visitor as never)
  for (const def of Object.values(ast.functions ?? {})) walk({ ajs: 1, op: 'seq', steps: def.steps }, visitor as never)
  return [...missing].sort()
}

function expectPortable(name: string, ast: AjsProgram, libraries: string[]): void {
  expect({ name, problems: validateAst(ast) }).toEqual({ name, problems: [] })
  expect({ name, undeclared: undeclared(ast) }).toEqual({ name, undeclared: [] })
  expect({ name, libraries: Object.keys(ast.libraries ?? {}).sort() }).toEqual({ name, libraries: [...libraries].sort() })
}

describe('every frontend emits valid ajs/1 that declares what it calls', () => {
  test('the check itself: an AST calling a library function it does not declare is caught', () => {
    const py = transpilePython('return {"n": len(xs)}', { params: ['xs'] }).ast
    const { libraries: _dropped, ...undeclaredAst } = py
    expect(undeclared(undeclaredAst as AjsProgram).some((n) => n.startsWith('py$'))).toBe(true)
    expect(undeclared({ ajs: 1, op: 'seq', steps: [{ op: 'slack:post' }] })).toEqual(['slack:post'])
    expect(undeclared({ ajs: 1, op: 'seq', atoms: ['slack:post'], steps: [{ op: 'slack:post' }] })).toEqual([])
  })

  test(`the transpiler: ${CORPUS.length} differential programs and every .ajs example`, () => {
    for (const p of CORPUS) expectPortable(p.name, transpile(p.source).ast, [])
    const examples = readdirSync(join(ROOT, 'examples'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ajs'))
    expect(examples.length).toBeGreaterThanOrEqual(3)
    for (const f of examples) expectPortable(f, transpile(readFileSync(join(ROOT, 'examples', f), 'utf8'), { filename: f }).ast, [])
  })

  test('Python: the whole Python corpus', () => {
    const cases = allCases()
    expect(cases.length).toBeGreaterThan(40)
    let compiled = 0
    for (const c of cases) {
      let ast: AjsProgram
      try {
        ast = transpilePython(c.body, { params: c.params }).ast
      } catch {
        continue // a case the corpus keeps to pin a refusal
      }
      compiled++
      expectPortable(c.name, ast, ['python'])
    }
    expect(compiled).toBeGreaterThan(40)
    // ~1,100 bodies compiled one by one: 2 s alone, several times that on a loaded machine.
  }, 30_000)

  test('flows: every valid document of the Flow Specification corpus', () => {
    const dir = join(ROOT, 'test/fixtures/vendor/flow-spec-v1/valid')
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'))
    expect(files.length).toBeGreaterThanOrEqual(5)
    let compiled = 0
    for (const f of files) {
      let ast: AjsProgram
      try {
        ast = compileFlow(readFileSync(join(dir, f), 'utf8'), { file: f }).ast
      } catch {
        continue // valid by the spec, refused by the extended semantics (e.g. data the run cannot use)
      }
      compiled++
      expectPortable(f, ast, ['flow'])
    }
    expect(compiled).toBeGreaterThanOrEqual(5)
  })

  test('flows: a Block flow with code blocks declares Python too', () => {
    const flow = {
      name: 'b', steps: 'c',
      blocks: { c: { processor_type: 'code', content: 'return {"n": 1}' } },
    }
    expectPortable('block flow', compileFlow(flow).ast, ['flow', 'python'])
  })

  test('FlowLang: the turn program of every graph of the FlowLang corpus', async () => {
    const dir = join(ROOT, 'test/fixtures/vendor/flowlang')
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.flow') || (f.startsWith('graph-json/valid') && f.endsWith('.json')))
    let compiled = 0
    for (const f of files) {
      const loaded = await loadFlowSource(readFileSync(join(dir, f), 'utf8'), { filename: f })
      if (!loaded.valid) continue
      const graph = loaded.graph
      compiled++
      expectPortable(f, compileTurnProgram(graph), ['flowlang'])
    }
    expect(compiled).toBeGreaterThanOrEqual(3)
  })

  test('workflow modules, with custom atoms', () => {
    const plain = compileWorkflow("import { sleep } from 'workflow:extra'\nexport const meta = { name: 'w' }\nconst a = await agent('hi')\nawait sleep(10)\nexport default { a }")
    expectPortable('workflow', plain.ast, ['workflow'])
    const custom = compileWorkflow("export const meta = { name: 'w' }\nconst r = await lookup({ id: 1 })\nexport default { r }", { atoms: ['lookup'] })
    expectPortable('workflow + atoms', custom.ast, ['workflow'])
    expect(custom.ast.atoms).toEqual(['lookup'])
  })

  test('the builder, and seed ASTs after migrateAst', () => {
    const built = Agent.take(s.object({ name: s.string }))
      .template({ template: 'Hi {{who}}', vars: { who: e.ident('name') } }).as('text')
      .return(e.parse('{ text }'))
    expectPortable('builder', built.toJSON() as AjsProgram, [])
    const seed = { op: 'seq', steps: [{ op: 'varSet', key: 'x', value: 1 }, { op: 'return', schema: { type: 'object', properties: { x: {} } } }] }
    expectPortable('seed', migrateAst(seed).ast, [])
  })
})
