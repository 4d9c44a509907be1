/**
 * `nonlocal` (extended profile): CPython's compile-time errors as located PY_SYNTAX refusals, the
 * forms refused here, and the cells only for the variables a nested function declares `nonlocal`.
 * Results against CPython are in the corpus (hand_extended.txt, nonlocal-*).
 */
import { describe, expect, test } from 'bun:test'
import { runPythonBlock, transpilePython } from '../../src/python/index.ts'
import { CODES, TranspileError } from '../../src/diagnostics/index.ts'

function refusal(body: string, options: Parameters<typeof transpilePython>[1] = {}): TranspileError {
  try {
    transpilePython(body, options)
  } catch (e) {
    if (e instanceof TranspileError) return e
    throw e
  }
  throw new Error(`not refused: ${body}`)
}

/** [what, body, code, line, column, CPython's message or what the message says, hint]. */
const ERRORS: Array<[string, string, keyof typeof CODES, number, number, string, string]> = [
  ['in the block itself (nothing encloses `_block`)', 'nonlocal x\nx = 1\nreturn {}', 'PY_SYNTAX', 1, 0, "no binding for nonlocal 'x' found", 'enclosing function'],
  ['no enclosing function binds it', 'x = 1\ndef f():\n    nonlocal y\n    y = 2\nreturn {}', 'PY_SYNTAX', 3, 4, "no binding for nonlocal 'y' found", 'assign `y` there'],
  ['only a sibling binds it', 'def g():\n    y = 1\ndef f():\n    nonlocal y\nreturn {}', 'PY_SYNTAX', 4, 4, "no binding for nonlocal 'y' found", 'enclosing function'],
  ['a parameter of the same function', 'x = 1\ndef f(x):\n    nonlocal x\n    return x\nreturn {}', 'PY_SYNTAX', 3, 4, "name 'x' is parameter and nonlocal", 'rename the parameter'],
  ['read before the declaration', 'x = 0\ndef f():\n    y = x\n    nonlocal x\nreturn {}', 'PY_SYNTAX', 4, 4, "name 'x' is used prior to nonlocal declaration", 'Move `nonlocal x` to the top'],
  ['assigned before the declaration', 'x = 0\ndef f():\n    if True:\n        x = 1\n    nonlocal x\nreturn {}', 'PY_SYNTAX', 5, 4, "name 'x' is assigned to before nonlocal declaration", 'Move `nonlocal x`'],
  ['a function name', 'def g():\n    pass\ndef f():\n    nonlocal g\nreturn {}', 'PY_UNSUPPORTED', 4, 4, '`nonlocal g` of a function', 'Functions keep their names'],
  ['assigning a name an enclosing function imports (imports are compile-time bindings here)', 'def f():\n    import math\n    def g():\n        nonlocal math\n        math = 5\n    return g\nreturn {}', 'PY_UNSUPPORTED', 4, 8, 'Assigning the imported name `math`', 'import with `as`'],
  ['an import in the same function is not an enclosing binding', 'def f():\n    import math\n    nonlocal math\nreturn {}', 'PY_SYNTAX', 3, 4, "no binding for nonlocal 'math' found", 'enclosing function'],
  ['a def of a nonlocal name', 'x = 0\ndef f():\n    nonlocal x\n    def x():\n        pass\nreturn {}', 'PY_UNSUPPORTED', 4, 4, 'nonlocal `x`', 'its own name'],
]

describe('nonlocal errors are located refusals with CPython\'s message', () => {
  test.each(ERRORS)('%s', (_what, body, name, line, column, message, hint) => {
    const e = refusal(body)
    expect({ code: e.code, line: e.line, column: e.column }).toEqual({ code: CODES[name].code, line, column })
    expect(e.message).toContain(message)
    expect(e.hint).toContain(hint)
    expect(e.toString()).toContain(`> ${line} |`)
  })
  test('a workflow script\'s top level is a module: CPython\'s module-level error there', () => {
    const e = refusal('n = 0\nnonlocal n', { params: ['args'], anyResult: true })
    expect([e.code, e.line, e.column]).toEqual([CODES.PY_SYNTAX.code, 2, 0])
    expect(e.message).toContain('nonlocal declaration not allowed at module level')
  })
})

/** The variables the lowered helper of `def name` declares, with their initial values. */
const helper = (body: string, name: string) => JSON.stringify((transpilePython(body).ast.functions![name]!.steps[0]! as unknown as { vars: unknown }).vars)

describe('cells', () => {
  const body = 'def make():\n    n = 0\n    m = 0\n    def inc():\n        nonlocal n\n        n += m\n        return n\n    return inc\nreturn {"n": make()()}'
  test('only the variable declared nonlocal is a cell; the others stay plain variables', () => {
    const make = helper(body, 'make')
    expect(make).toBe('{"n":{"$expr":"array","elements":[{"$expr":"ident","name":"undefined"}]},"m":{"$expr":"ident","name":"undefined"},"inc":{"$expr":"ident","name":"undefined"}}')
  })
  test('a program without nonlocal has no cell', () => {
    expect(helper(body.replace('        nonlocal n\n        n += m\n', '        k = n + m\n').replace('return n\n', 'return k\n'), 'make')).not.toContain('"$expr":"array"')
  })
  test('several closures made by one call share one cell; each call of the factory makes a new one', async () => {
    const r = await runPythonBlock('def make():\n    n = 0\n    def inc():\n        nonlocal n\n        n += 1\n        return n\n    def get():\n        return n\n    return inc, get\na, g = make()\nb, h = make()\na(); a(); b()\nreturn {"r": [g(), h(), a(), g()]}')
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual({ r: [2, 1, 3, 3] })
  })
  test('a free variable read before the enclosing function assigns it is CPython\'s NameError', async () => {
    const r = await runPythonBlock('def f():\n    def g():\n        return y\n    g()\n    y = 1\nf()\nreturn {}')
    expect(r.error?.message).toContain("NameError: cannot access free variable 'y' where it is not associated with a value in enclosing scope")
  })
})

describe('in a Python workflow', () => {
  test('a nonlocal counter kept across agent() requests (each answer resumes the same cell)', async () => {
    const { compileWorkflow, startWorkflow } = await import('../../src/workflows/index.ts')
    const { drive } = await import('../workflows/helpers.ts')
    const src = 'asked = 0\ndef ask(t):\n    nonlocal asked\n    asked += 1\n    return agent(f"{asked}: {t}")["text"]\nanswers = [ask(t) for t in args["topics"]]\nreturn {"answers": answers, "asked": asked}'
    const ex = startWorkflow(compileWorkflow(src, { sourceName: 'count.py' }), { args: { topics: ['a', 'b', 'c'] } })
    const { result } = await drive(ex, (r) => (r.type === 'agent' ? { Ok: { text: r.prompt.toUpperCase() } } : 'OkUndefined'))
    expect(result).toEqual({ answers: ['1: A', '2: B', '3: C'], asked: 3 })
  })
})
