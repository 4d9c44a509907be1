/**
 * decimal.Decimal against CPython 3.11: every expression of decimal/exprs.txt runs as its own block
 * (the run's default context) and must give CPython's `repr(value)`, or its exception class and
 * message, byte for byte. CPython's outputs are committed (decimal/expected.json; regenerate with
 * `python3 test/python/decimal/regen.py`), so this runs without python3. decimal/random.json holds
 * seeded random operations (every operator, precisions 1-40, all rounding modes) the same way.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createPythonVM, runPythonBlock, transpilePython } from '../../src/python/index.ts'

const DIR = join(import.meta.dir, 'decimal')
const expected = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')) as { python: string; cases: Array<[string, string]> }

const IMPORTS = `from decimal import Decimal, Context, MAX_PREC, MAX_EMAX, MIN_EMIN, MIN_ETINY, InvalidOperation, DivisionByZero, ROUND_05UP, ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, ROUND_HALF_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, ROUND_UP, getcontext, localcontext, setcontext
from fractions import Fraction
import math, json`

/** What the VM gives for an expression, in the regen script's terms. */
async function observe(expr: string): Promise<string> {
  const body = `${IMPORTS}\ntry:\n    r = repr(${expr})\nexcept Exception as e:\n    r = type(e).__name__ + ": " + str(e)\nreturn {"r": r}`
  const out = await runPythonBlock(body, { profile: 'extended' })
  return out.error ? `(not run: ${out.error.message})` : (out.result as { r: string }).r
}

describe(`decimal expressions against CPython ${expected.python}`, () => {
  test('the corpus is large', () => expect(expected.cases.length).toBeGreaterThanOrEqual(300))
  test.each(expected.cases)('%s', async (expr, want) => {
    expect(await observe(expr)).toBe(want)
  })
})

type RandomCase = [string, string, string, number, string, number, number, string]
const random = JSON.parse(readFileSync(join(DIR, 'random.json'), 'utf8')) as { python: string; cases: RandomCase[] }

describe(`seeded random decimal arithmetic against CPython ${random.python}`, () => {
  // One block for all: [a, op, b, prec, rounding, Emax (-Emin), clamp, CPython's str(result) or exception class].
  test(`${random.cases.length} operations`, async () => {
    const body = `${IMPORTS}
${readFileSync(join(DIR, 'ops.py'), 'utf8')}
out = []
for a, op, b, prec, rounding, emax, clamp, _ in cases:
    out.append(run(a, op, b, prec, rounding, emax, clamp))
return {"out": out}`
    const r = await runPythonBlock(body, { profile: 'extended', params: ['initial', 'cases'], input: { cases: random.cases }, fuel: 1e6 })
    expect(r.error).toBeUndefined()
    const got = (r.result as { out: string[] }).out
    const diffs = random.cases.flatMap((c, i) => (got[i] === c[7] ? [] : [[...c, got[i]]]))
    expect(diffs).toEqual([])
  })
})

type FlagCase = [string, string, string, number, string, number, number, string[], [string, string[]]]
const flagged = JSON.parse(readFileSync(join(DIR, 'flags.json'), 'utf8')) as { python: string; cases: FlagCase[] }

describe(`seeded random decimal flags and traps against CPython ${flagged.python}`, () => {
  // [a, op, b, prec, rounding, Emax (-Emin), clamp, the trapped signals, CPython's [str(result) or 'Class: message', the flags set]].
  test(`${flagged.cases.length} operations in contexts with random traps`, async () => {
    const body = `${IMPORTS}
${readFileSync(join(DIR, 'ops.py'), 'utf8')}
out = []
for a, op, b, prec, rounding, emax, clamp, traps, _ in cases:
    out.append(run_flagged(a, op, b, prec, rounding, emax, clamp, traps))
return {"out": out}`
    const r = await runPythonBlock(body, { profile: 'extended', params: ['initial', 'cases'], input: { cases: flagged.cases }, fuel: 1e6 })
    expect(r.error).toBeUndefined()
    const got = (r.result as { out: Array<[string, string[]]> }).out
    const diffs = flagged.cases.flatMap((c, i) => (JSON.stringify(got[i]) === JSON.stringify(c[8]) ? [] : [[...c, got[i]]]))
    expect(diffs).toEqual([])
  })
})

const programs = JSON.parse(readFileSync(join(DIR, 'signals.json'), 'utf8')) as { python: string; cases: Array<[string, string]> }
const SIGNAL_IMPORTS = 'from decimal import Clamped, ConversionSyntax, DecimalException, DivisionByZero, FloatOperation, Inexact, InvalidOperation, Overflow, Rounded, Subnormal, Underflow, DefaultContext, BasicContext, ExtendedContext\nimport math'

describe(`decimal flags and traps programs (decimal/signals.txt) against CPython ${programs.python}`, () => {
  test.each(programs.cases)('%s', async (program, want) => {
    const fn = program.split('\n').map((l) => `    ${l}`).join('\n')
    const body = `${IMPORTS}\n${SIGNAL_IMPORTS}\ndef program():\n${fn}\ntry:\n    r = repr(program())\nexcept Exception as e:\n    r = type(e).__name__ + ": " + str(e)\nreturn {"r": r}`
    const out = await runPythonBlock(body, { profile: 'extended' })
    expect(out.error ? `(not run: ${out.error.message})` : (out.result as { r: string }).r).toBe(want)
  })
})

/** The TranspileError a body is refused with (undefined when it compiles). */
function refusal(body: string, profile: 'contract' | 'extended'): unknown {
  try {
    transpilePython(body, { profile })
  } catch (e) {
    return e
  }
  return undefined
}

describe('decimal in the profiles', () => {
  test('the contract profile refuses the import at its line, naming the extended profile', () => {
    const err = refusal('x = 1\nfrom decimal import Decimal\nreturn {"d": str(Decimal("1.1"))}', 'contract')
    expect((err as { line: number }).line).toBe(2)
    expect((err as { hint: string }).hint).toContain("profile: 'extended'")
  })

  test('a huge precision or power ends on fuel, not on memory', async () => {
    const prec = await runPythonBlock('from decimal import Decimal, getcontext\ngetcontext().prec = 10 ** 9\nreturn {"r": str(Decimal(1) / 7)}', { profile: 'extended', fuel: 1000 })
    expect(prec.error?.code).toBe('FUEL_EXHAUSTED')
    const pow = await runPythonBlock('from decimal import Decimal, getcontext\ngetcontext().prec = 10 ** 6\nreturn {"r": str(Decimal("1.0000001") ** (10 ** 7))}', { profile: 'extended', fuel: 1000 })
    expect(pow.error?.code).toBe('FUEL_EXHAUSTED')
  })

  test('the context belongs to the run: a change does not reach the next run, also on the same VM', async () => {
    await runPythonBlock('from decimal import getcontext\ngetcontext().prec = 3\nreturn {}', { profile: 'extended' })
    const r = await runPythonBlock('from decimal import Decimal\nreturn {"r": str(Decimal(1) / 3)}', { profile: 'extended' })
    expect(r.result).toEqual({ r: '0.3333333333333333333333333333' })
    const vm = createPythonVM()
    const set = transpilePython('from decimal import Decimal, getcontext\ngetcontext().prec = 3\nreturn {"r": str(Decimal(1) / 3)}', { profile: 'extended' }).ast
    const read = transpilePython('from decimal import Decimal\nreturn {"r": str(Decimal(1) / 3)}', { profile: 'extended' }).ast
    expect((await vm.run(set, { initial: null })).result).toEqual({ r: '0.333' })
    expect((await vm.run(read, { initial: null })).result).toEqual({ r: '0.3333333333333333333333333333' })
  })

  test("the context templates and flags belong to the run: a changed DefaultContext or a trap does not reach the next run on the same VM", async () => {
    const vm = createPythonVM()
    const change = transpilePython('from decimal import Decimal, DefaultContext, ExtendedContext, Inexact, getcontext\nDefaultContext.prec = 3\nExtendedContext.traps[Inexact] = True\nDecimal(1) / 7\ngetcontext().traps[Inexact] = True\nreturn {}', { profile: 'extended' }).ast
    const read = transpilePython('from decimal import Decimal, DefaultContext, ExtendedContext, Inexact, getcontext\nx = str(Decimal(1) / 3)\nreturn {"x": x, "flags": getcontext().flags[Inexact], "d": repr(DefaultContext), "e": ExtendedContext.traps[Inexact]}', { profile: 'extended' }).ast
    expect((await vm.run(change, { initial: null })).error).toBeUndefined()
    expect((await vm.run(read, { initial: null })).result).toEqual({
      x: '0.3333333333333333333333333333', flags: true, e: false,
      d: 'Context(prec=28, rounding=ROUND_HALF_EVEN, Emin=-999999, Emax=999999, capitals=1, clamp=0, flags=[], traps=[InvalidOperation, DivisionByZero, Overflow])',
    })
  })

  test('localcontext restores the context after the block, also when it raises', async () => {
    const r = await runPythonBlock(`from decimal import Decimal, localcontext
try:
    with localcontext() as ctx:
        ctx.prec = 2
        inside = str(Decimal(1) / 3)
        raise ValueError("x")
except ValueError:
    pass
with localcontext(prec=5) as ctx:
    kw = str(Decimal(2).sqrt())
return {"inside": inside, "after": str(Decimal(1) / 3), "kw": kw}`, { profile: 'extended' })
    expect(r.result).toEqual({ inside: '0.33', after: '0.3333333333333333333333333333', kw: '1.4142' })
  })

  test('the signals are catchable by their CPython bases', async () => {
    const r = await runPythonBlock(`from decimal import Decimal, DivisionByZero, InvalidOperation, DecimalException
caught = []
for a, b in [(1, 0), (0, 0)]:
    try:
        Decimal(a) / Decimal(b)
    except ZeroDivisionError as e:
        caught.append(["zero", type(e).__name__, str(e)])
    except DecimalException as e:
        caught.append(["decimal", type(e).__name__, str(e)])
try:
    Decimal("1,5")
except ArithmeticError as e:
    caught.append(["arith", type(e).__name__, isinstance(e, InvalidOperation)])
return {"caught": caught}`, { profile: 'extended' })
    expect(r.result).toEqual({ caught: [
      ['zero', 'DivisionByZero', "[<class 'decimal.DivisionByZero'>]"],
      ['decimal', 'InvalidOperation', "[<class 'decimal.DivisionUndefined'>]"],
      ['arith', 'InvalidOperation', true],
    ] })
  })
})

describe('decimal work is paid before it is done', () => {
  const FUEL = 2000
  const cases: Array<[string, string]> = [
    ['a fixed-point format of a huge exponent', 'getcontext().Emax = 10 ** 15\nreturn {"s": len(f"{Decimal(\'1E+999999999999\'):f}")}'],
    ['a huge width', 'return {"s": len(f"{Decimal(1):>999999999999}")}'],
    ['an int of a huge exponent', 'getcontext().Emax = 10 ** 15\nreturn {"n": int(Decimal("1E+999999999999")) > 0}'],
    ['statistics over a huge exponent', 'import statistics\ngetcontext().Emax = 10 ** 15\nreturn {"m": str(statistics.mean([Decimal("1E+999999999999")]))}'],
    ['a quantize far below the value', 'getcontext().prec = 10 ** 12\nreturn {"q": str(Decimal(1).quantize(Decimal("1E-999999999")))}'],
    ['logical_invert at a huge precision (prec ones)', 'getcontext().prec = 10 ** 12\nreturn {"q": str(Decimal(1).logical_invert())}'],
    ['rotate at a huge precision', 'getcontext().prec = 10 ** 12\nreturn {"q": str(Decimal(123).rotate(5))}'],
    ['a shift by a huge count', 'getcontext().prec = 10 ** 12\nreturn {"q": str(Decimal(123).shift(10 ** 11))}'],
  ]
  test.each(cases)('%s ends on fuel', async (_what, code) => {
    const r = await runPythonBlock(`from decimal import Decimal, getcontext\n${code}`, { profile: 'extended', fuel: FUEL })
    // Paid for before it is built: out of fuel, or past the string ceiling for a text.
    expect(['FUEL_EXHAUSTED', 'HEAP_LIMIT']).toContain(String(r.error?.code))
  })
  test('a million trailing zeros are stripped in one pass (hash key, normalize)', async () => {
    const r = await runPythonBlock('from decimal import Decimal\nd = Decimal("1" + "0" * 999999)\nreturn {"k": len({d: 1, Decimal(10) ** 999999: 2, Decimal("1E+999999"): 3}), "n": str(d.normalize())}', { profile: 'extended', fuel: 1e5 })
    expect(r.result).toEqual({ k: 1, n: '1E+999999' })
  })
  test('a comparison with a fraction far apart in magnitude builds nothing big', async () => {
    const r = await runPythonBlock('from decimal import Decimal, getcontext\nfrom fractions import Fraction\ngetcontext().Emax = 10 ** 15\nd = Decimal("1E+999999999999")\nreturn {"r": [d > Fraction(1, 3), -d < Fraction(1, 3), Decimal("1E-999999999999") < Fraction(1, 10 ** 30), Decimal(0) < Fraction(1, 3), d > Fraction(0)]}', { profile: 'extended', fuel: FUEL })
    expect(r.result).toEqual({ r: [true, true, true, true, true] })
  })
})

test('a Decimal method left out is refused at compile time, located, with the methods the docs list', () => {
  const e = refusal('from decimal import Decimal\nd = Decimal("7")\nreturn {"r": str(d.conjugate())}', 'extended') as { codeName: string; line: number; column: number; hint: string }
  expect({ code: e.codeName, line: e.line, column: e.column }).toEqual({ code: 'PY_ATTRIBUTE', line: 3, column: 19 })
  expect(e.hint).toContain('Decimal')
})

test('a million-digit coefficient: rounding it again and again is paid for, its text is written once', async () => {
  const body = 'from decimal import Decimal\nd = Decimal("9" * 999998)\nout = []\nfor i in range(30):\n    out.append(len(str(-d)))\nreturn {"n": out[-1]}'
  expect((await runPythonBlock(body, { profile: 'extended', fuel: 1000 })).error?.code).toBe('FUEL_EXHAUSTED')
  const r = await runPythonBlock(body, { profile: 'extended', fuel: 1e6 })
  expect(r.result).toEqual({ n: 38 })
})
