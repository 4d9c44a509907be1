/**
 * Special methods of guest classes (extended profile, runtime/dunders.ts): metered like any call,
 * refused where they cannot run at once, refused by the contract profile, and never a way to the
 * object model. Their results against CPython are in the differential corpus (hand_model.txt).
 */
import { describe, expect, test } from 'bun:test'
import { pythonError, pythonVmOptions, runPythonBlock, transpilePython } from '../../src/python/index.ts'
import { AgentVM, defineAtom } from '../../src/vm/index.ts'

const BAG = 'class Bag:\n    def __init__(self, xs):\n        self.xs = xs\n    def __len__(self):\n        return len(self.xs)\n    def __iter__(self):\n        return iter(self.xs)\n    def __add__(self, o):\n        return Bag(self.xs + o.xs)\n'

describe('fuel', () => {
  test('a __len__ or __iter__ that loops forever ends FUEL_EXHAUSTED', async () => {
    const loop = 'class A:\n    def __len__(self):\n        while True:\n            pass\n    def __iter__(self):\n        while True:\n            yield 1\n    def __bool__(self):\n        while True:\n            pass\n'
    for (const use of ['len(A())', 'list(A())', 'sum(A())', '0 in A()', 'bool(A())', '[x for x in A()]']) {
      const r = await runPythonBlock(`${loop}x = ${use}\nreturn {}`, { fuel: 20_000 })
      expect([use, r.error?.code]).toEqual([use, 'FUEL_EXHAUSTED'])
    }
  })
  test('each special method call is charged: the fuel grows with the calls', async () => {
    const body = (n: number) => `${BAG}b = Bag([1, 2])\nt = 0\nfor i in range(${n}):\n    t += len(b) + len(b + b)\nreturn {"t": t}`
    const a = await runPythonBlock(body(10), { fuel: 1e6 })
    const b = await runPythonBlock(body(100), { fuel: 1e6 })
    expect(a.result).toEqual({ t: 60 })
    expect(b.result).toEqual({ t: 600 })
    // The loop alone (range, +=) is far cheaper than the method calls it makes.
    const plain = await runPythonBlock(`${BAG}t = 0\nfor i in range(100):\n    t += 2 + 4\nreturn {"t": t}`, { fuel: 1e6 })
    expect(b.fuelUsed - a.fuelUsed).toBeGreaterThan(3 * (plain.fuelUsed - (await runPythonBlock(`${BAG}t = 0\nfor i in range(10):\n    t += 2 + 4\nreturn {"t": t}`, { fuel: 1e6 })).fuelUsed))
  })
})

/** The Python error of a body run with an atom `lookup` (its functions may then wait for it). */
async function errorWithAtom(body: string) {
  const { ast } = transpilePython(body, { params: ['initial'], externals: { lookup: { fields: ['id'] } } })
  const lookup = defineAtom('lookup', { type: 'object', properties: { id: { type: 'number' } } }, undefined, async (x: { id: number }) => x.id)
  const r = await new AgentVM({ lookup }, pythonVmOptions()).run(ast, { initial: {} })
  return pythonError(r.error!)
}

/** A special method called where function values may wait for an atom: NotImplementedError naming it and the rewrite, located. */
async function expectNotAtOnce(body: string, method: string, rewrite: string, line: number) {
  const e = await errorWithAtom(body)
  expect([e?.pythonType, e?.line]).toEqual(['NotImplementedError', line])
  expect(e?.message).toContain(`${method}() cannot run here`)
  expect(e?.message).toContain(rewrite)
}

describe('a program whose function values may wait for an atom', () => {
  test('a special method cannot run at once there: NotImplementedError naming the method and the rewrite', async () => {
    const e = await errorWithAtom(`${BAG}def get(n):\n    return lookup(n)\nf = get\nb = Bag([1]) + Bag([f(3)])\nreturn {"n": len(b)}`)
    expect(e?.pythonType).toBe('NotImplementedError')
    expect(e?.message).toContain('Bag.__add__() cannot run here')
    expect(e?.message).toContain('def add(self, ...)')
    expect(e?.line).toBe(13)
  })
  test('the same methods run when no function value waits (a host call made directly)', async () => {
    const body = `${BAG}def get(n):\n    return lookup(n)\nb = Bag([1]) + Bag([get(3)])\nreturn {"n": len(b), "l": list(b)}`
    const { ast } = transpilePython(body, { params: ['initial'], externals: { lookup: { fields: ['id'] } } })
    const lookup = defineAtom('lookup', { type: 'object', properties: { id: { type: 'number' } } }, undefined, async (x: { id: number }) => x.id)
    const r = await new AgentVM({ lookup }, pythonVmOptions()).run(ast, { initial: {} })
    expect(r.result).toEqual({ n: 2, l: [1, 3] })
  })
})

test('a slice of an object reaches its __getitem__ as a slice object; slice is a type of the extended profile only', async () => {
  const r = await runPythonBlock('class A:\n    def __getitem__(self, k):\n        return [isinstance(k, slice), k.start, k.stop, k.step, repr(k), [1, 2, 3][k]]\nreturn {"x": A()[1:2], "y": A()[::-1]}')
  expect(r.result).toEqual({ x: [true, 1, 2, null, 'slice(1, 2, None)', [2]], y: [true, null, null, -1, 'slice(None, None, -1)', [3, 2, 1]] })
  expect(() => transpilePython('k = slice(1, 2)\nreturn {}', { params: ['initial'], profile: 'contract' })).toThrow('`slice` is not allowed')
})

const refusal = (body: string, profile?: 'contract' | 'extended') => {
  try {
    transpilePython(body, { params: ['initial'], profile })
  } catch (e) {
    return e as { codeName?: string; line?: number; column?: number; hint?: string; message: string }
  }
  throw new Error('not refused')
}

describe('refusals', () => {
  test('the contract profile refuses a class with special methods, located, with the profile in the hint', () => {
    const e = refusal(`x = 1\n${BAG}return {"n": len(Bag([1]))}`, 'contract')
    expect(e.line).toBe(2)
    expect(e.hint).toContain("profile: 'extended'")
  })
  test('a special method the runtime never calls is refused at its def, with the rewrite', () => {
    const e = refusal('class A:\n    def __set_name__(self, owner, name):\n        return 1\nreturn {}')
    expect(e.message).toContain('`__set_name__`')
    expect([e.line, e.column]).toEqual([2, 4])
    expect(e.hint).toContain('def size(self)')
  })
  test('a class body assigns a special method only as another of its methods, or __hash__ = None', async () => {
    for (const [line, col] of [['    __len__ = 3', 4], ['    __radd__ = print', 4], ['    __set_name__ = __add__', 4]] as const) {
      const e = refusal(`class A:\n    def __add__(self, o):\n        return 1\n${line}\nreturn {}`)
      expect([line, e.codeName, e.line, e.column, e.hint]).toEqual([line, 'PY_UNSUPPORTED', 4, col, expect.stringContaining('`__radd__ = __add__`')])
    }
    const r = await runPythonBlock('class A:\n    def __add__(self, o):\n        return ("add", o)\n    __radd__ = __add__\nclass B(A):\n    __hash__ = None\nout = {"r": 5 + A(), "l": A() + 6}\ntry:\n    {B()}\nexcept TypeError as e:\n    out["e"] = str(e)\nreturn out')
    expect(r.result).toEqual({ r: ['add', 5], l: ['add', 6], e: "unhashable type: 'B'" })
  })
  test('reading a special method by name stays refused (no way to the object model)', async () => {
    expect([refusal(`${BAG}return {"n": Bag([1]).__len__()}`).codeName, refusal(`${BAG}return {"n": Bag([1]).__dict__}`).codeName]).toEqual(['PY_DUNDER', 'PY_DUNDER'])
    expect(refusal(`${BAG}return {"n": getattr(Bag([1]), "__len__")()}`).codeName).toBe('PY_ARGUMENTS')
    for (const name of ['__len__', '__class__', '__dict__']) {
      const r = await runPythonBlock(`${BAG}n = "${name}"\nreturn {"n": str(getattr(Bag([1]), n))}`)
      expect(r.error?.message).toBe(`AttributeError: getattr() of the special attribute '${name}' is not available in code blocks; use ordinary attribute names`)
    }
  })
})

/**
 * `a.abc` read 10 and 100 times through a class whose `hook(self, name)` returns len(name): the
 * sums, and fuel growing with the reads faster than plain class attribute reads do.
 */
async function expectChargedReads(hook: string) {
  const body = (n: number) => `class A:\n    def ${hook}(self, name):\n        return len(name)\na = A()\nt = 0\nfor i in range(${n}):\n    t += a.abc\nreturn {"t": t}`
  const a = await runPythonBlock(body(10), { fuel: 1e6 })
  const b = await runPythonBlock(body(100), { fuel: 1e6 })
  expect([a.result, b.result]).toEqual([{ t: 30 }, { t: 300 }])
  const plain = (n: number) => runPythonBlock(`class A:\n    abc = 3\na = A()\nt = 0\nfor i in range(${n}):\n    t += a.abc\nreturn {"t": t}`, { fuel: 1e6 })
  expect(b.fuelUsed - a.fuelUsed).toBeGreaterThan((await plain(100)).fuelUsed - (await plain(10)).fuelUsed)
}

describe('__getattr__ and __setattr__', () => {
  const HOOKS = 'class A:\n    def __getattr__(self, name):\n        while True:\n            pass\n    def __setattr__(self, name, value):\n        while True:\n            pass\n'
  test('a hook that loops forever ends FUEL_EXHAUSTED, for each way to reach it', async () => {
    for (const use of ['x = A().missing', 'x = hasattr(A(), "m")', 'x = getattr(A(), "m", 0)', 'a = A()\na.v = 1', 'setattr(A(), "v", 1)', 'A().method()']) {
      const r = await runPythonBlock(`${HOOKS}${use}\nreturn {}`, { fuel: 20_000 })
      expect([use, r.error?.code]).toEqual([use, 'FUEL_EXHAUSTED'])
    }
  })
  test('each hook call is charged: the fuel grows with the calls', async () => {
    await expectChargedReads('__getattr__')
  })
  test('special names never reach a hook: the runtime looks special methods up on the class, a program cannot name one', async () => {
    const body = 'log = []\nclass A:\n    def __getattr__(self, name):\n        log.append(name)\n        return 1\nout = {}\ntry:\n    len(A())\nexcept TypeError as e:\n    out["len"] = str(e)\nout["truth"] = bool(A())\nout["log"] = log\nreturn out'
    expect((await runPythonBlock(body)).result).toEqual({ len: "object of type 'A' has no len()", truth: true, log: [] })
    expect(refusal('class A:\n    def __getattr__(self, name):\n        return 1\nx = A().__dict__').codeName).toBe('PY_DUNDER')
    expect(refusal('class A:\n    def __getattr__(self, name):\n        return 1\nx = getattr(A(), "__len__")').codeName).toBe('PY_ARGUMENTS')
    const special = await runPythonBlock('class A:\n    def __setattr__(self, name, value):\n        super().__setattr__("__" + name + "__", value)\na = A()\na.dict = 1\nreturn {}')
    expect(special.error?.message).toBe("AttributeError: __setattr__ of the special attribute '__dict__' is not available in code blocks; use ordinary attribute names")
    expect(refusal('class A:\n    def f(self):\n        return super().__set_name__("x")\nreturn {}').codeName).toBe('PY_DUNDER')
    expect(refusal('class A:\n    def f(self):\n        return object.__getattr__(self, "x")\nreturn {}').codeName).toBe('PY_DUNDER')
  })
  test('a hook (__getattr__, __getattribute__) cannot run at once where function values may wait for an atom: NotImplementedError with the rewrite', async () => {
    for (const hook of ['__getattr__', '__getattribute__']) {
      await expectNotAtOnce(`class A:\n    def ${hook}(self, name):\n        return name\ndef get(n):\n    return lookup(n)\nf = get\nx = A().b\nreturn {"x": x}`, `A.${hook}`, 'def get(self, name)', 7)
    }
  })
  test('the contract profile refuses them (__getattr__, __getattribute__) with the class, naming the extended profile', () => {
    for (const hook of ['__getattr__', '__getattribute__']) {
      const e = refusal(`x = 1\nclass A:\n    def ${hook}(self, name):\n        return 1\nreturn {"a": A().b}`, 'contract')
      expect([hook, e.line]).toEqual([hook, 2])
      expect(e.hint).toContain("profile: 'extended'")
    }
  })
})

describe('__getattribute__', () => {
  test('a __getattribute__ that loops forever ends FUEL_EXHAUSTED, for each way to read an attribute, also through a subclass', async () => {
    const loop = 'class A:\n    v = 1\n    def m(self):\n        return 1\n    def __getattribute__(self, name):\n        while True:\n            pass\nclass B(A):\n    pass\n'
    for (const use of ['x = A().v', 'x = hasattr(A(), "v")', 'x = getattr(A(), "v", 0)', 'x = A().m()', 'x = A().get("k")', 'a = A()\na.v += 1', 'x = f"{A().v}"', 'x = B().v']) {
      const r = await runPythonBlock(`${loop}${use}\nreturn {}`, { fuel: 20_000 })
      expect([use, r.error?.code]).toEqual([use, 'FUEL_EXHAUSTED'])
    }
  })
  test('each call is charged: the fuel grows with the calls; one that reads self.x inside recurses to RecursionError', async () => {
    await expectChargedReads('__getattribute__')
    const rec = await runPythonBlock('class A:\n    def __getattribute__(self, name):\n        return self.other\nx = A().v\nreturn {}', { fuel: 1e7 })
    expect([rec.error?.code, pythonError(rec.error!)?.pythonType, rec.error?.line]).toEqual(['STACK_OVERFLOW', 'RecursionError', 3])
  })
  test('special names never reach it: the runtime finds special methods on the class; object.__getattribute__ of one is a located AttributeError', async () => {
    const body = 'log = []\nclass A:\n    def __len__(self):\n        return 2\n    def __getattribute__(self, name):\n        log.append(name)\n        return 1\nreturn {"len": len(A()), "truth": bool(A()), "log": log}'
    expect((await runPythonBlock(body)).result).toEqual({ len: 2, truth: true, log: [] })
    const special = await runPythonBlock('class A:\n    def __getattribute__(self, name):\n        return object.__getattribute__(self, "__" + name + "__")\na = A()\nx = a.dict\nreturn {}')
    expect([special.error?.message, special.error?.line]).toEqual(["AttributeError: __getattribute__ of the special attribute '__dict__' is not available in code blocks; use ordinary attribute names", 3])
  })
})

describe('@ and @= (matmul)', () => {
  test('a __matmul__, __rmatmul__ or __imatmul__ that loops forever ends FUEL_EXHAUSTED', async () => {
    const loop = 'class A:\n    def __matmul__(self, o):\n        while True:\n            pass\n    def __rmatmul__(self, o):\n        while True:\n            pass\n    def __imatmul__(self, o):\n        while True:\n            pass\n'
    for (const use of ['x = A() @ 1', 'x = 1 @ A()', 'x = A()\nx @= 1', 'x = [1]\nx @= A()']) {
      const r = await runPythonBlock(`${loop}${use}\nreturn {}`, { fuel: 20_000 })
      expect([use, r.error?.code]).toEqual([use, 'FUEL_EXHAUSTED'])
    }
  })
  test("no builtin type answers: CPython's TypeError, naming @= for the augmented form, located", async () => {
    const r = await runPythonBlock('x = [1]\ny = 2\nz = x @ y\nreturn {}')
    expect([r.error?.message, r.error?.line]).toEqual(["TypeError: unsupported operand type(s) for @: 'list' and 'int'", 3])
    const a = await runPythonBlock('x = 1\nx @= 2\nreturn {}')
    expect([a.error?.message, a.error?.line]).toEqual(["TypeError: unsupported operand type(s) for @=: 'int' and 'int'", 2])
  })
  test('the contract profile refuses @ and @= at the operator, naming the extended profile', () => {
    const e = refusal('x = 1\ny = x @ x\nreturn {}', 'contract')
    expect([e.codeName, e.line, e.column]).toEqual(['PY_UNSUPPORTED', 2, 6])
    expect(e.hint).toContain("profile: 'extended'")
    const f = refusal('x = 1\nx @= x\nreturn {}', 'contract')
    expect([f.codeName, f.line, f.column]).toEqual(['PY_UNSUPPORTED', 2, 2])
    expect(f.hint).toContain("profile: 'extended'")
  })
})

describe('augmented assignment errors name the augmented operator, as CPython', () => {
  test('a guest class without the method, either side, and each lowering of the target (name, attribute, item), located', async () => {
    const cls = 'class A:\n    def __sub__(self, o):\n        return NotImplemented\n'
    for (const [use, message, line] of [
      ['x = A()\nx -= 1', "unsupported operand type(s) for -=: 'A' and 'int'", 5],
      ['x = 1\nx -= A()', "unsupported operand type(s) for -=: 'int' and 'A'", 5],
      ['x = A()\nx.n = 1\nx.n <<= 1.5', "unsupported operand type(s) for <<=: 'int' and 'float'", 6],
      ['x = {"k": [1]}\nx["k"] -= 1', "unsupported operand type(s) for -=: 'list' and 'int'", 5],
      ['def f(t):\n    for i in range(3):\n        t += i\n    return t\nx = f(None)', "unsupported operand type(s) for +=: 'NoneType' and 'int'", 6],
      ['x = {1}\nx *= [2]', "unsupported operand type(s) for *=: 'set' and 'list'", 5],
      ['x = 2\nx *= [2]\nx = A()\nx *= [2]', "unsupported operand type(s) for *=: 'A' and 'list'", 7],
    ] as const) {
      const r = await runPythonBlock(`${cls}${use}\nreturn {}`)
      expect([use, r.error?.message, r.error?.line]).toEqual([use, `TypeError: ${message}`, line])
    }
  })
})

describe('del of a class attribute', () => {
  test("deletes the class's own attribute: reads find a base's again; a missing one, a builtin type's and a property without deleter are CPython's errors, located", async () => {
    const cls = 'class B:\n    x = 1\nclass A(B):\n    x = 2\n    @property\n    def p(self):\n        return 3\n'
    const ok = await runPythonBlock(`${cls}del A.x\na = A()\nr = [A.x, a.x]\ndel A.p\na.p = 4\nreturn {"r": r, "p": a.p}`)
    expect(ok.result).toEqual({ r: [1, 1], p: 4 })
    for (const [use, message] of [
      ['del A.x\ndel A.x', "AttributeError: type object 'A' has no attribute 'x'"],
      ['x = 1\ndel A.y', "AttributeError: type object 'A' has no attribute 'y'"],
      ['x = 1\ndel int.y', "TypeError: cannot set 'y' attribute of immutable type 'int'"],
      ['a = A()\ndel a.p', "AttributeError: property 'p' of '_block.<locals>.A' object has no deleter"],
    ] as const) {
      const r = await runPythonBlock(`${cls}${use}\nreturn {}`)
      expect([use, r.error?.message, r.error?.line]).toEqual([use, message, 9])
    }
  })
})

describe('__delattr__', () => {
  test('a __delattr__ that loops forever ends FUEL_EXHAUSTED, also reached through a subclass', async () => {
    const loop = 'class A:\n    def __delattr__(self, name):\n        while True:\n            pass\nclass B(A):\n    pass\n'
    for (const use of ['a = A()\ndel a.x', 'b = B()\ndel b.x']) {
      const r = await runPythonBlock(`${loop}${use}\nreturn {}`, { fuel: 20_000 })
      expect([use, r.error?.code]).toEqual([use, 'FUEL_EXHAUSTED'])
    }
  })
  test('each call is charged: the fuel grows with the calls', async () => {
    const body = (n: number) => `class A:\n    def __delattr__(self, name):\n        self.n += len(name)\na = A()\na.n = 0\nfor i in range(${n}):\n    del a.abc\nreturn {"n": a.n}`
    const a = await runPythonBlock(body(10), { fuel: 1e6 })
    const b = await runPythonBlock(body(100), { fuel: 1e6 })
    expect([a.result, b.result]).toEqual([{ n: 30 }, { n: 300 }])
    const plain = (n: number) => runPythonBlock(`class A:\n    pass\na = A()\na.n = 0\nfor i in range(${n}):\n    a.abc = 1\n    del a.abc\nreturn {"n": a.n}`, { fuel: 1e6 })
    expect(b.fuelUsed - a.fuelUsed).toBeGreaterThan((await plain(100)).fuelUsed - (await plain(10)).fuelUsed)
  })
  test('special names stay out of reach: del x.__dict__ is refused, the plain delete of a special name a located AttributeError', async () => {
    expect(refusal('class A:\n    def __delattr__(self, name):\n        pass\na = A()\ndel a.__dict__\nreturn {}').codeName).toBe('PY_DUNDER')
    expect(refusal('a = 1\ndelattr(a, "x")\nreturn {}').codeName).toBe('PY_FORBIDDEN')
    const r = await runPythonBlock('class A:\n    def __delattr__(self, name):\n        object.__delattr__(self, "__" + name + "__")\na = A()\ndel a.dict\nreturn {}')
    expect([r.error?.message, r.error?.line]).toEqual(["AttributeError: __delattr__ of the special attribute '__dict__' is not available in code blocks; use ordinary attribute names", 3])
  })
  test('it cannot run at once where function values may wait for an atom: NotImplementedError with the rewrite', async () => {
    await expectNotAtOnce('class A:\n    def __delattr__(self, name):\n        pass\ndef get(n):\n    return lookup(n)\nf = get\na = A()\ndel a.b\nreturn {}', 'A.__delattr__', 'def delete(self, name)', 8)
  })
})

describe('slice assignment and deletion of guest objects', () => {
  test('a __setitem__ or __delitem__ that loops forever ends FUEL_EXHAUSTED when reached by a slice', async () => {
    const loop = 'class A:\n    def __getitem__(self, k):\n        return [1]\n    def __setitem__(self, k, v):\n        while True:\n            pass\n    def __delitem__(self, k):\n        while True:\n            pass\n'
    for (const use of ['A()[1:2] = [3]', 'del A()[::2]', 'a = A()\na[1:] += [2]']) {
      const r = await runPythonBlock(`${loop}${use}\nreturn {}`, { fuel: 20_000 })
      expect([use, r.error?.code]).toEqual([use, 'FUEL_EXHAUSTED'])
    }
  })
  test('the value reaches __setitem__ as it is (a list slice takes its items), located errors', async () => {
    const r = await runPythonBlock('class A:\n    def __setitem__(self, k, v):\n        self.got = (k.start, k.stop, k.step, v)\na = A()\na[1:2] = 7\nreturn {"got": a.got}')
    expect(r.result).toEqual({ got: [1, 2, null, 7] })
    const e = await runPythonBlock('class A:\n    def __getitem__(self, k):\n        return 1\na = A()\nx = 1\ndel a[x:]\nreturn {}')
    expect([e.error?.message, e.error?.line]).toEqual(["TypeError: 'A' object does not support item deletion", 6])
  })
})
