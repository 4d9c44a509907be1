/**
 * Everything outside the subset is refused at compile time: a stable code, the line (1-based,
 * within the body as given) and column (0-based) of the construct, and a hint.
 */
import { describe, expect, test } from 'bun:test'
import { transpilePython } from '../../src/python/index.ts'
import { CODES, type CodeName, TranspileError } from '../../src/diagnostics/index.ts'

/** [what, body, code name, line, column, a fragment the hint must contain] */
type Case = [string, string, CodeName, number, number, string]

const CASES: Case[] = [
  ['import', 'x = 1\nimport os\nreturn {}', 'PY_IMPORT', 2, 0, 'allowed builtins'],
  ['from import', 'from os import path', 'PY_IMPORT', 1, 0, 'no modules'],
  ['eval', 'x = eval("1")', 'PY_FORBIDDEN', 1, 4, 'directly'],
  ['exec', 'exec("x = 1")', 'PY_FORBIDDEN', 1, 0, 'directly'],
  ['compile', 'c = compile("1", "f", "eval")', 'PY_FORBIDDEN', 1, 4, 'compile'],
  ['open', 'f = open("a.txt")', 'PY_FORBIDDEN', 1, 4, 'no file I/O'],
  ['getattr', 'v = getattr(initial, "a")', 'PY_FORBIDDEN', 1, 4, 'd.get(key)'],
  ['setattr', 'setattr(initial, "a", 1)', 'PY_FORBIDDEN', 1, 0, 'd[key] = value'],
  ['hasattr', 'ok = hasattr(initial, "a")', 'PY_FORBIDDEN', 1, 5, 'key in d'],
  ['type', 't = type(initial)', 'PY_FORBIDDEN', 1, 4, 'isinstance'],
  ['vars', 'v = vars()', 'PY_FORBIDDEN', 1, 4, 'object model'],
  ['dir', 'names = dir(initial)', 'PY_FORBIDDEN', 1, 8, 'list(d)'],
  ['globals', 'g = globals()', 'PY_FORBIDDEN', 1, 4, 'object model'],
  ['locals', 'l = locals()', 'PY_FORBIDDEN', 1, 4, '{"a": a}'],
  ['__import__', 'm = __import__("os")', 'PY_DUNDER', 1, 4, 'object model'],
  ['__class__', 'c = initial.__class__', 'PY_DUNDER', 1, 12, 'isinstance'],
  ['__dict__', 'x = 1\nd = initial.__dict__', 'PY_DUNDER', 2, 12, 'object model'],
  ['__builtins__', 'b = __builtins__', 'PY_DUNDER', 1, 4, 'object model'],
  ['class', 'class A:\n    pass', 'PY_UNSUPPORTED', 1, 0, 'dicts'],
  ['global', 'global counter', 'PY_UNSUPPORTED', 1, 0, 'function scope'],
  ['nonlocal', 'x = 0\ndef f():\n    nonlocal x\n    return 1', 'PY_UNSUPPORTED', 3, 4, 'Return the new value'],
  ['yield', 'def g():\n    yield 1', 'PY_UNSUPPORTED', 2, 4, 'Build a list'],
  ['yield expression', 'def g():\n    x = yield 2\n    return x', 'PY_UNSUPPORTED', 2, 8, 'Build a list'],
  ['async def', 'async def f():\n    return 1', 'PY_UNSUPPORTED', 1, 0, 'plain `def`'],
  ['await', 'def f(x):\n    return await x', 'PY_UNSUPPORTED', 2, 11, 'Remove `await`'],
  ['with', 'with open("f") as fh:\n    pass', 'PY_UNSUPPORTED', 1, 0, 'without `with`'],
  ['match', 'match initial:\n    case 1:\n        pass', 'PY_UNSUPPORTED', 1, 0, '`if`/`elif`'],
  ['print call', 'print("hi")', 'PY_FORBIDDEN', 1, 0, 'returned dict'],
  ['print statement', 'x = 1\nprint "hi"', 'PY_FORBIDDEN', 2, 0, 'returned dict'],
  ['input', 'x = input()', 'PY_FORBIDDEN', 1, 4, 'initial'],
  ['any', 'ok = any([1])', 'PY_FORBIDDEN', 1, 5, 'len([x for x in xs if cond]) > 0'],
  ['all', 'ok = all([1])', 'PY_FORBIDDEN', 1, 5, 'loop with `break`'],
  ['map', 'xs = map(str, [1])', 'PY_FORBIDDEN', 1, 5, '[f(x) for x in xs]'],
  ['filter', 'xs = filter(None, [1])', 'PY_FORBIDDEN', 1, 5, '[x for x in xs if cond]'],
  ['chr', 'c = chr(65)', 'PY_FORBIDDEN', 1, 4, 'str'],
  ['ord', 'n = ord("a")', 'PY_FORBIDDEN', 1, 4, 'c >= "a"'],
  ['pow', 'n = pow(2, 3)', 'PY_FORBIDDEN', 1, 4, '`**`'],
  ['divmod', 'q = divmod(7, 2)', 'PY_FORBIDDEN', 1, 4, 'a // b'],
  ['repr', 's = repr(1)', 'PY_FORBIDDEN', 1, 4, '!r'],
  ['hex', 's = hex(255)', 'PY_FORBIDDEN', 1, 4, '#x'],
  ['iter', 'it = iter([1])', 'PY_FORBIDDEN', 1, 5, '`for` loop'],
  ['frozenset', 'f = frozenset()', 'PY_FORBIDDEN', 1, 4, 'tuple'],
  ['unknown name', 'x = 1\ny = undefined_name + 1', 'PY_UNKNOWN_NAME', 2, 4, 'allowed builtin'],
  ['misspelled builtin', 'n = lenn([1])', 'PY_UNKNOWN_NAME', 1, 4, '`len`'],
  ['misspelled variable', 'total = 1\nreturn {"t": totl}', 'PY_UNKNOWN_NAME', 2, 13, '`total`'],
  ['misspelled method', 's = "a"\nt = s.upperr()', 'PY_ATTRIBUTE', 2, 6, '.upper()'],
  ['attribute read', 'n = initial.real', 'PY_ATTRIBUTE', 1, 12, 'call a method'],
  ['type attribute read', 'f = str.lower', 'PY_ATTRIBUTE', 1, 8, 'key=str.lower'],
  ['builtin as value', 'f = len', 'PY_FUNCTION_VALUE', 1, 4, 'key='],
  ['helper as value', 'def h():\n    return 1\nx = h', 'PY_FUNCTION_VALUE', 3, 4, 'key='],
  ['lambda in a list', 'fs = [lambda: 1]', 'PY_UNSUPPORTED', 1, 6, 'def name(x)'],
  ['assign to literal', '1 = x', 'PY_TARGET', 1, 0, 'a, b = pair'],
  ['assign to call', 'f() = 3', 'PY_TARGET', 1, 0, 'Assign to a variable'],
  ['assign to attribute', 'initial.x = 1', 'PY_UNSUPPORTED', 1, 0, "profile: 'extended'"],
  ['del attribute', 'del initial.x', 'PY_TARGET', 1, 4, 'Assign to a variable'],
  ['star params', 'def f(*args):\n    return args', 'PY_UNSUPPORTED', 1, 6, 'list or dict parameter'],
  ['kwargs params', 'def f(**kw):\n    return kw', 'PY_UNSUPPORTED', 1, 6, 'list or dict parameter'],
  ['generator as value', 'g = (y for y in [1])', 'PY_UNSUPPORTED', 1, 4, 'list comprehension'],
  ['incomplete expression', 'x = 1 +', 'PY_SYNTAX', 1, 7, 'near the marker'],
  ['missing colon', 'if True\n    x = 1', 'PY_SYNTAX', 1, 7, 'Add `:` at the end of the `if` line'],
  ['complex literal', 'z = 3j', 'PY_UNSUPPORTED', 1, 4, 'floats'],
  ['bytes literal', 'b = b"raw"', 'PY_UNSUPPORTED', 1, 4, 'str literals'],
  ['decorator', '@cache\ndef f():\n    return 1', 'PY_UNSUPPORTED', 1, 0, 'Remove the decorator'],
  ['ellipsis', 'x = ...', 'PY_UNSUPPORTED', 1, 4, '`pass`'],
  ['break outside loop', 'x = 1\nbreak', 'PY_SYNTAX', 2, 0, 'inside a `for` or `while`'],
  ['continue outside loop', 'continue', 'PY_SYNTAX', 1, 0, 'inside a `for` or `while`'],
  ['unknown keyword argument', 'xs = sorted([1], cmp=None)', 'PY_ARGUMENTS', 1, 5, 'key, reverse'],
  ['missing argument', 'n = len()', 'PY_ARGUMENTS', 1, 4, 'docs/python.md'],
  ['too many helper arguments', 'def f(a):\n    return a\nx = f(1, 2)', 'PY_ARGUMENTS', 3, 4, 'at most 1'],
  ['missing helper argument', 'def f(a):\n    return a\nx = f()', 'PY_ARGUMENTS', 3, 4, 'Pass a'],
  ['unexpected helper keyword', 'def f(a):\n    return a\nx = f(b=1)', 'PY_ARGUMENTS', 3, 4, 'takes a'],
  ['key with two parameters', 'xs = [1]\nxs.sort(key=lambda a, b: 0)', 'PY_ARGUMENTS', 2, 12, 'one item'],
  ['matrix multiply', 'x = [1] @ [2]', 'PY_UNSUPPORTED', 1, 8, 'comprehension'],
  ['redefined helper', 'def f():\n    return 1\ndef f():\n    return 2', 'PY_UNSUPPORTED', 3, 0, 'own name'],
  ['rebound helper name', 'def f():\n    return 1\nf = 3', 'PY_UNSUPPORTED', 1, 0, 'another variable name'],
  ['not-equal diamond', 'x = 1 <> 2', 'PY_SYNTAX', 1, 6, '`!=`'],
  ['leading zeros', 'n = 0777', 'PY_SYNTAX', 1, 4, '0o'],
  ['single brace in f-string', 'x = f"a}"', 'PY_SYNTAX', 1, 7, '`}}`'],
  ['escaped brace then dict', 's = f"{{1: 2}[1]}"', 'PY_SYNTAX', 1, 12, 'literal braces'],
  ['multi-dimensional slice', 'x = initial[1:2, 3]', 'PY_UNSUPPORTED', 1, 4, 'one level at a time'],
  ['lambda default', 'xs = sorted([1], key=lambda x, k=2: x)', 'PY_UNSUPPORTED', 1, 21, 'default'],
  ['except star', 'try:\n    pass\nexcept* ValueError:\n    pass', 'PY_UNSUPPORTED', 3, 6, 'plain `except`'],
  ['calling a variable', 'f = 5\nx = f()', 'PY_UNSUPPORTED', 2, 4, 'Only functions'],
  ['calling a computed value', 'x = (lambda: 1)()', 'PY_UNSUPPORTED', 1, 4, 'by its name'],
  ['walrus in lambda', 'xs = sorted([1], key=lambda v: (w := v))', 'PY_UNSUPPORTED', 1, 32, 'before the lambda'],
  ['star outside a display', 'x = *initial', 'PY_SYNTAX', 1, 4, 'add a comma'],
  ['dunder method call', 'n = initial.__len__()', 'PY_DUNDER', 1, 12, 'len(x)'],
  ['unparenthesized generator with more arguments', 'x = sorted(v for v in [1], key=len)', 'PY_SYNTAX', 1, 25, 'parentheses'],
  ['generator after another argument', 'x = max(0, v for v in [1])', 'PY_SYNTAX', 1, 8, 'parentheses'],
  ['positional after keyword', 'x = sorted(key=len, [1])', 'PY_SYNTAX', 1, 20, 'positional arguments first'],
]

function refusal(body: string, profile: 'contract' | 'extended' = 'contract'): TranspileError {
  try {
    transpilePython(body, { params: ['initial'], profile })
  } catch (e) {
    if (e instanceof TranspileError) return e
    throw e
  }
  throw new Error(`not refused: ${body}`)
}

describe('refusals', () => {
  test('there are at least 60 cases', () => expect(CASES.length).toBeGreaterThanOrEqual(60))
  test.each(CASES)('%s', (_what, body, name, line, column, hint) => {
    const e = refusal(body)
    expect({ code: e.code, line: e.line, column: e.column }).toEqual({ code: CODES[name].code, line, column })
    expect(e.hint).toContain(hint)
    expect(e.toString()).toContain(`> ${line} |`)
  })
})

/** What the contract profile refuses and the extended profile (the default) compiles: [what, body, line, column]. */
const EXTENDED_ONLY: Array<[string, string, number, number]> = [
  ['any', 'x = any([1])', 1, 4],
  ['getattr', 'v = getattr(initial, "a", 0)', 1, 4],
  ['hasattr', 'ok = hasattr(initial, "a")', 1, 5],
  ['setattr', 'setattr(initial, "a", 1)', 1, 0],
  ['print', 'print("a", 1)', 1, 0],
  ['type name', 'n = type(1).__name__', 1, 12],
  ['exception args', 'try:\n    pass\nexcept ValueError as e:\n    a = e.args', 4, 10],
  ['bound method as key', 'd = {"a": 1}\nm = max(d, key=d.get)', 2, 17],
  ['lambda in a dict', 'ops = {"add": lambda a, b: a + b}', 1, 14],
  ['frozenset', 'f = frozenset([1])', 1, 4],
  ['nonlocal', 'n = 0\ndef inc():\n    nonlocal n\n    n += 1\ninc()', 3, 4],
  ['lambda with defaults', 'f = lambda x, n=1: x + n', 1, 4],
  ['generator outside a call', 'a, b = (int(p) for p in "1-2".split("-"))', 1, 7],
  ['helper as value', 'def h():\n    return 1\nx = h', 3, 4],
  ['calling a variable', 'f = len\nx = f([1])', 1, 4],
  ['class', 'x = 1\nclass P:\n    pass', 2, 0],
  ['import json', 'import json\nx = json.dumps([1])', 1, 0],
  ['from math import', 'from math import sqrt', 1, 0],
  ['import statistics', 'x = 1\nimport statistics\nm = statistics.mean([1, 2])', 2, 0],
  ['from fractions import Fraction', 'from fractions import Fraction\nf = Fraction(1, 3)', 1, 0],
  ['an exception class of the extended profile', 'def fetch():\n    raise ConnectionError("refused")\nx = 1', 2, 10],
  ['gen.send', 'def g():\n    x = yield 1\n    yield x\nit = g()\nnext(it)\nv = it.send(2)', 2, 8],
  ['attribute assignment', 'x = initial\nx.y = 1', 2, 0],
  ['a generator function', 'def g():\n    yield 1', 2, 4],
  ['a coroutine generator (x = yield)', 'def g():\n    x = yield\n    return x', 2, 8],
  ['a new attribute on an exception', 'try:\n    pass\nexcept ValueError as e:\n    e.code = 3', 4, 4],
  ['with', 'x = initial\nwith x:\n    pass', 2, 0],
  ['match', 'match initial:\n    case {"a": 1}:\n        pass', 1, 0],
  ['lru_cache on a def', 'from functools import lru_cache\n@lru_cache(maxsize=None)\ndef f(n):\n    return n', 1, 0],
  ['a type method on unpacked items', 'xs = [{1}]\ny = set.union(*xs)', 2, 4],
  ['*args and **kwargs parameters', 'def f(a, *args, **kw):\n    return args\nreturn {"r": f(1, 2)}', 1, 9],
]

/** What the extended profile refuses about classes and imports: [what, body, code, line, column, hint]. */
const EXTENDED_REFUSALS: Array<[string, string, keyof typeof CODES, number, number, string]> = [
  ['an unknown module', 'x = 1\nimport os', 'PY_IMPORT', 2, 0, 'the modules a block can import are math'],
  ['star import', 'from math import *', 'PY_UNSUPPORTED', 1, 17, 'from math import name'],
  ['a missing member', 'from math import tan2', 'PY_UNSUPPORTED', 1, 17, 'atan2'],
  ['a module member of no module', 'import math\nx = math.sine(1)', 'PY_ATTRIBUTE', 2, 9, 'sin'],
  ['assigning an imported name', 'import json\njson = 1', 'PY_UNSUPPORTED', 1, 7, 'import json as other'],
  ['an unsupported dunder', 'class P:\n    def __set_name__(self, owner, name):\n        return 0', 'PY_UNSUPPORTED', 2, 4, 'plain method'],
  ['a property setter without its property', 'class P:\n    @x.setter\n    def x(self, v):\n        pass', 'PY_UNSUPPORTED', 2, 4, 'just above the setter'],
  ['a method without self', 'class P:\n    def f():\n        return 0', 'PY_UNSUPPORTED', 2, 4, '`self`'],
  ['multiple bases', 'class A:\n    pass\nclass B:\n    pass\nclass C(A, B):\n    pass', 'PY_UNSUPPORTED', 5, 7, 'one class'],
  ['a metaclass', 'class A(metaclass=None):\n    pass', 'PY_UNSUPPORTED', 1, 17, 'one base'],
  ['dataclass arguments other than order=', 'from dataclasses import dataclass\n@dataclass(frozen=True)\nclass A:\n    x: int', 'PY_UNSUPPORTED', 2, 11, '@dataclass(order=True)'],
  ['another class decorator', 'def deco(c):\n    return c\n@deco\nclass A:\n    pass', 'PY_UNSUPPORTED', 3, 1, '@dataclass'],
  ['a loop in a class body', 'class A:\n    for i in range(3):\n        pass', 'PY_UNSUPPORTED', 2, 4, 'methods'],
  ['reaching __class__', 'class A:\n    pass\nx = A().__class__', 'PY_DUNDER', 3, 8, ''],
  ['getattr of a special name', 'class A:\n    pass\nx = getattr(A(), "__class__")', 'PY_ARGUMENTS', 3, 4, 'ordinary attributes'],
  ['setattr of a special name', 'class A:\n    pass\nsetattr(A(), "__init__", 1)', 'PY_ARGUMENTS', 3, 0, 'ordinary attributes'],
  ['hasattr with keywords', 'class A:\n    pass\nok = hasattr(A(), name="x")', 'PY_ARGUMENTS', 3, 5, 'by position'],
  ['reaching __dict__', 'class A:\n    def f(self):\n        return self.__dict__', 'PY_DUNDER', 3, 20, ''],
  ['yield in the block itself', 'x = 1\nyield x', 'PY_UNSUPPORTED', 2, 0, 'def` helper'],
  ['yield after a call in the same statement', 'def g():\n    print(len("a"), (yield 1))\n    return 0', 'PY_UNSUPPORTED', 2, 21, '`x = yield value`'],
  ['yield after an attribute read (the caller may change it while paused)', 'def g(box):\n    t = box.value + (yield)\n    return t', 'PY_UNSUPPORTED', 2, 21, 'on its own line first'],
  ['yield under and/or', 'def g():\n    ok = True and (yield)\n    return ok', 'PY_UNSUPPORTED', 2, 19, 'on its own line first'],
  ['yield in an if test', 'def g():\n    if (yield):\n        pass', 'PY_UNSUPPORTED', 2, 8, 'on its own line first'],
  ['a positional sub-pattern of a plain class', 'class P:\n    def __init__(self, x):\n        self.x = x\nmatch P(1):\n    case P(a):\n        pass', 'PY_UNSUPPORTED', 5, 11, 'case Point(x=0, y=y)'],
  ['another decorator on a def', 'def deco(f):\n    return f\n@deco\ndef h():\n    return 1', 'PY_UNSUPPORTED', 3, 1, '@lru_cache'],
  ['two decorators on a def', 'from functools import cache\n@cache\n@cache\ndef h():\n    return 1', 'PY_UNSUPPORTED', 3, 0, 'Keep one'],
  ['with over something that is not a context manager of the program', 'with open("f") as fh:\n    pass', 'PY_FORBIDDEN', 1, 5, 'no file I/O'],
  // `match a, b:` is parsed as `match (a, b):`: what follows the inserted parentheses keeps its column.
  ['an unknown name in an unparenthesized match subject', 'a = 1\nmatch a, nope:\n    case _:\n        pass', 'PY_UNKNOWN_NAME', 2, 9, 'Assign it before use'],
  ['a float with a trailing point and an exponent without digits', 'x = 1\ny = 1.e', 'PY_SYNTAX', 2, 4, 'exponent'],
  ['an unknown name after an unparenthesized match subject', 'a = 1\nmatch a, a:\n    case _:\n        x = nope', 'PY_UNKNOWN_NAME', 4, 12, 'Assign it before use'],
]

describe('the extended profile refuses these class and import forms with a located hint', () => {
  test.each(EXTENDED_REFUSALS)('%s', (_what, body, name, line, column, hint) => {
    const e = refusal(body, 'extended')
    expect({ code: e.code, line: e.line, column: e.column }).toEqual({ code: CODES[name].code, line, column })
    expect(e.hint).toContain(hint)
  })
})

describe('profiles: contract refuses with a hint naming the extended profile; extended compiles', () => {
  test.each(EXTENDED_ONLY)('%s', (_what, body, line, column) => {
    const e = refusal(body, 'contract')
    expect([e.line, e.column]).toEqual([line, column])
    expect(e.hint).toContain("profile: 'extended'")
    expect(() => transpilePython(body)).not.toThrow()
  })
  test('the extended profile still refuses what reaches the host or the object model', () => {
    for (const body of ['import os', 'x = eval("1")', 'f = open("a")', 'v = getattr(initial, "__class__")', 'n = initial.__class__']) {
      expect(refusal(body, 'extended').hint).not.toContain('extended')
    }
  })
  test('an unknown profile is a TypeError', () => {
    expect(() => transpilePython('return {}', { profile: 'full' as never })).toThrow(TypeError)
  })
})

describe('locations are those of the body as given', () => {
  test('an indented body (copied from inside a def) keeps its columns', () => {
    const e = refusal('    x = 1\n    import os\n    return {}')
    expect([e.line, e.column]).toEqual([2, 4])
    expect(e.frame).toContain('import os')
  })
  test('a whole def: lines and columns of the source, not of the body', () => {
    const e = refusal('def _block(initial):\n    x = 1\n    y = eval("2")\n    return {}')
    expect([e.code, e.line, e.column]).toEqual([CODES.PY_FORBIDDEN.code, 3, 8])
  })
  test('invalid parameters are refused with a hint naming the option', () => {
    for (const params of [['initial', 'not valid'], ['initial', 'initial'], ['initial', 'class'], ['__x__']]) {
      let err: TranspileError | undefined
      try { transpilePython('return {}', { params }) } catch (e) { err = e as TranspileError }
      expect(err?.code).toBe(CODES.PY_PARAMS.code)
      expect(err?.hint).toContain('params')
    }
  })
})

describe('an expression deeper than the parser reads says so (it was "unexpected `0`" in valid Python)', () => {
  const deep: Array<[string, string]> = [
    ['a chain of 2,000 subscripts', `a = [1]\nreturn {'x': a${'[0]'.repeat(2000)}}`],
    ['a sum of 2,000 terms', `return {'x': ${Array.from({ length: 2000 }, () => '1').join(' + ')}}`],
    ['4,000 nested parentheses', `return {'x': ${'('.repeat(4000)}1${')'.repeat(4000)}}`],
    ['2,000 nested calls', `return {'x': ${'abs('.repeat(2000)}1${')'.repeat(2000)}}`],
  ]
  test.each(deep)('%s', (_what, body) => {
    const e = refusal(body)
    expect(e.code).toBe(CODES.PY_SYNTAX.code)
    expect(e.message).toContain('nests or chains deeper than the parser reads')
    expect(e.hint).toContain('give parts of it names first')
  })
  test('the same at 300 levels compiles, and a real syntax error after a long chain is still one', () => {
    expect(() => transpilePython(`a = [1]\nreturn {'x': a${'[0]'.repeat(300)}}`)).not.toThrow()
    const e = refusal(`a = [1]\nb = a${'[0]'.repeat(300)}\nif b\n    return {}`)
    expect([e.message, e.line]).toEqual(['Python syntax error: unexpected end of input', 3])
    expect(e.hint).toContain('Add `:`')
  })
})

describe('long elif chains', () => {
  const chain = (n: number) => `x = 3\n${Array.from({ length: n }, (_, i) => `${i ? 'elif' : 'if'} x == ${i}:\n    y = ${i}`).join('\n')}\nelse:\n    y = -1\nreturn {'y': y}`
  test('1,000 branches compile; the 1,001st is refused at its line with a fix (16,000 took a minute, then a RangeError)', () => {
    expect(() => transpilePython(chain(1_000))).not.toThrow()
    const e = refusal(chain(1_001))
    expect([e.code, e.line, e.column]).toEqual([CODES.PY_UNSUPPORTED.code, 2_002, 0])
    expect(e.message).toBe('An `if` with more than 1,000 branches is not supported in code blocks')
    expect(e.hint).toContain('names.get(x, "other")')
    expect(refusal(chain(16_000)).code).toBe(CODES.PY_UNSUPPORTED.code)
  })
})
