/**
 * What model-style code reaches for that the extended profile documents as refused or limited
 * (docs/python.md, "Refused" and "Differences from CPython"): each is refused at compile time with
 * its located code and a hint showing the rewrite, or raises a catchable Python exception whose
 * message names the rewrite. The corpus (corpus/hand_model.txt) holds the rewritten bodies.
 */
import { describe, expect, test } from 'bun:test'
import { runPythonBlock, transpilePython } from '../../src/python/index.ts'
import { CODES, type CodeName, TranspileError } from '../../src/diagnostics/index.ts'

/** [what, body, code, line, column, a fragment of the hint] */
const REFUSED: Array<[string, string, CodeName, number, number, string]> = [
  ['a setter named after another property', 'class Rect:\n    @property\n    def w(self):\n        return 1\n\n    @w.setter\n    def h(self, v):\n        pass\n\nreturn {}', 'PY_UNSUPPORTED', 6, 4, '`@h.setter` on `def h(self, value)`'],
  ['a setter without its property', 'class Rect:\n    @w.setter\n    def w(self, v):\n        pass\n\nreturn {}', 'PY_UNSUPPORTED', 2, 4, 'Define `@property def w(self)` just above'],
  ['a setter with one parameter', 'class Rect:\n    @property\n    def w(self):\n        return 1\n\n    @w.setter\n    def w(self):\n        pass\n\nreturn {}', 'PY_UNSUPPORTED', 6, 4, 'def w(self, value)'],
  ['a decorator of the program on a method', 'def logged(f):\n    return f\n\nclass A:\n    @logged\n    def run(self):\n        return 1\n\nreturn {}', 'PY_UNSUPPORTED', 5, 4, 'one of `@property`, `@name.setter`, `@staticmethod` and `@classmethod`'],
  ['__del__', 'class Config:\n    def __init__(self):\n        self.d = {}\n\n    def __del__(self):\n        self.d.clear()\n\nreturn {"n": 1}', 'PY_UNSUPPORTED', 5, 4, 'write a plain method (`def size(self)`)'],
  ['statistics.geometric_mean', 'from statistics import geometric_mean\nreturn {"m": geometric_mean([1, 2])}', 'PY_UNSUPPORTED', 1, 23, 'math.exp(statistics.fmean([math.log(x) for x in data]))'],
  ['statistics.geometric_mean as an attribute', 'import statistics\nreturn {"m": statistics.geometric_mean([1, 2])}', 'PY_ATTRIBUTE', 2, 24, 'math.exp(statistics.fmean'],
  ['uuid', 'import uuid\nreturn {"u": str(uuid.uuid4())}', 'PY_IMPORT', 1, 0, 'the modules a block can import are math, json, re'],
  ['a misspelled method', 'name = "ada"\nreturn {"n": name.titel()}', 'PY_ATTRIBUTE', 2, 18, 'Did you mean `.title()`?'],
  ['an exception class outside the list', 'def stop():\n    raise SystemExit(1)\n\nreturn {"r": stop()}', 'PY_UNKNOWN_NAME', 2, 10, 'Assign it before use'],
]

describe('model-style code the extended profile refuses, with a located hint', () => {
  test.each(REFUSED)('%s', (_what, body, name, line, column, hint) => {
    let err: unknown
    try {
      transpilePython(body)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(TranspileError)
    const e = err as TranspileError & { line: number; column: number; hint: string }
    expect({ code: e.code, line: e.line, column: e.column }).toEqual({ code: CODES[name].code, line, column })
    expect(e.hint).toContain(hint)
  })
})

/** [what, body, Python exception class, a fragment of its message] */
const RAISED: Array<[string, string, string, string]> = [
  ['re lookbehind with a group inside', 'import re\nm = re.search(r"(?<=(\\$))\\d+", "cost $42")\nreturn {"s": m.group(1)}', 'ValueError', 'non-capturing, (?:...)'],
  ['getattr of a special name computed at run time', 'class A:\n    pass\nname = "__" + "class__"\nv = getattr(A(), name, None)\nreturn {"v": v}', 'AttributeError', "special attribute '__class__' is not available"],
  ['getattr on a dict', 'd = {"a": 1}\nv = getattr(d, "a")\nreturn {"v": v}', 'TypeError', "works on the program's own objects"],
  ['setattr on a list', 'xs = [1]\nsetattr(xs, "append", 0)\nreturn {"v": xs}', 'TypeError', "not on 'list'"],
  ['hasattr on a str', 'ok = hasattr("abc", "upper")\nreturn {"ok": ok}', 'TypeError', "not on 'str'"],
  ['re backreference', 'import re\ntripled = bool(re.search(r"(.)\\1\\1", "aaab"))\nreturn {"r": tripled}', 'ValueError', 'compare the groups in code'],
]

describe('model-style code that raises a catchable exception naming the rewrite', () => {
  test.each(RAISED)('%s', async (_what, body, pyType, fragment) => {
    const r = await runPythonBlock(body)
    expect(r.error?.pythonType).toBe(pyType)
    expect(r.error?.message).toContain(fragment)
    // The same body inside try/except (its last line, the return, replaced): the exception is catchable.
    const inner = body.split('\n').slice(0, -1).map((l) => `    ${l}`).join('\n')
    const caught = await runPythonBlock(`try:\n${inner}\nexcept ${pyType} as e:\n    return {"caught": type(e).__name__}\nreturn {"caught": None}`)
    expect(caught.result).toEqual({ caught: pyType })
  })
})
