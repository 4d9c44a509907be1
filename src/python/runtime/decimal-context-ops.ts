/**
 * The arithmetic methods of a decimal context (`ctx.add(a, b)`, `ctx.divide(a, b)`, `ctx.sqrt(a)`,
 * `ctx.quantize(a, b)`, ...), as CPython 3.11's `_decimal`: each operand an int or a Decimal (else
 * `conversion from float to Decimal is not supported`), the result rounded in that context and its
 * conditions flagged in that context's flags and raised by its traps, whatever the current context
 * is. The methods that are a Decimal's too run that method in the context (decimal.ts).
 */
import { PyDict, typeName } from './values.ts'
import { typeError } from './errors.ts'
import { intOf, isIntValue } from './numbers.ts'
import type { PyRun } from './fuel.ts'
import { Dec, sciText, type Ctx } from './decimal-num.ts'
import { PyContext } from './decimal-context.ts'
import { DIGITWISE_BINARY } from './decimal-digitwise.ts'
import { PyDecimal, decOfInt, decimalArith, decimalDivmod, decimalMethod, decimalPowMod, decimalSign, settled } from './decimal.ts'

/** The binary operators by their context method's name. */
const ARITH: Readonly<Record<string, string>> = { add: '+', subtract: '-', multiply: '*', divide: '/', divide_int: '//', remainder: '%' }

/** Methods of one operand (CPython's METH_O): the sign operations, and the Decimal methods of that name. */
const SIGN: Readonly<Record<string, 'neg' | 'pos' | 'abs'>> = { minus: 'neg', plus: 'pos', abs: 'abs' }
const UNARY_METHODS = new Set(['sqrt', 'exp', 'ln', 'log10', 'normalize', 'next_plus', 'next_minus', 'to_integral', 'to_integral_value', 'to_integral_exact',
  'copy_abs', 'copy_negate', 'is_zero', 'is_nan', 'is_qnan', 'is_snan', 'is_infinite', 'is_finite', 'is_signed', 'to_eng_string',
  'is_normal', 'is_subnormal', 'number_class', 'canonical', 'is_canonical', 'logb', 'logical_invert'])
const OTHER_UNARY = new Set(['to_sci_string', 'copy_decimal'])

/** Methods of two operands (METH_VARARGS) that are a Decimal's method with one argument. */
const BINARY_METHODS = new Set(['quantize', 'compare', 'max', 'min', 'copy_sign', 'same_quantum', 'scaleb', 'compare_total', 'compare_total_mag', 'compare_signal', 'max_mag', 'min_mag', 'next_toward', 'remainder_near', ...DIGITWISE_BINARY])

/** The names of the context methods (the compile-time check of method names, builtins-table.ts). */
export const CONTEXT_METHOD_NAMES: readonly string[] = [...Object.keys(ARITH), ...Object.keys(SIGN), ...UNARY_METHODS, ...OTHER_UNARY, ...BINARY_METHODS, 'divmod', 'fma', 'power', 'radix']

/** An operand of a context method: an int exactly, or a Decimal (CPython's `convert_op_raise`). */
function operand(x: unknown): Dec {
  if (x instanceof PyDecimal) return x.d
  if (isIntValue(x)) return decOfInt(intOf(x))
  return typeError(`conversion from ${typeName(x)} to Decimal is not supported`)
}

/** `ctx.name(...)`; undefined when a context has no such method (the caller's AttributeError). */
export function contextOperation(rt: PyRun, c: PyContext, name: string, a: unknown[], kw: PyDict | null): unknown {
  const one = SIGN[name] !== undefined || UNARY_METHODS.has(name) || OTHER_UNARY.has(name)
  const op = ARITH[name]
  if (!one && op === undefined && !BINARY_METHODS.has(name) && name !== 'divmod' && name !== 'fma' && name !== 'power' && name !== 'radix') return undefined
  if (name === 'power') return power(rt, c, a, kw)
  // CPython's argument errors: METH_O and METH_NOARGS name the method with its class, PyArg_ParseTuple does not.
  if (kw && kw.size) typeError(one || name === 'radix' ? `Context.${name}() takes no keyword arguments` : `${name}() takes no keyword arguments`)
  if (name === 'radix') {
    if (a.length) typeError(`Context.radix() takes no arguments (${a.length} given)`)
    return new PyDecimal(decOfInt(10), rt)
  }
  const arity = one ? 1 : name === 'fma' ? 3 : 2
  if (a.length !== arity) typeError(one ? `Context.${name}() takes exactly one argument (${a.length} given)` : `function takes exactly ${arity} arguments (${a.length} given)`)
  // canonical and is_canonical take a Decimal only (no int conversion), as CPython's.
  if ((name === 'canonical' || name === 'is_canonical') && !(a[0] instanceof PyDecimal)) typeError('argument must be a Decimal')
  const x = operand(a[0])
  const ctx = c.of(rt)
  if (op !== undefined) return settled(rt, ctx, decimalArith(op, x, operand(a[1]), ctx)!)
  if (name === 'divmod') return decimalDivmod(rt, new PyDecimal(x), new PyDecimal(operand(a[1])), ctx)
  const sign = SIGN[name]
  if (sign !== undefined) return settled(rt, ctx, decimalSign(sign, x, ctx))
  if (name === 'to_sci_string') return sciText(x, ctx.capitals)
  if (name === 'copy_decimal') return new PyDecimal(x, rt)
  // The rest are the Decimal's method in this context (the operands after the first as its arguments).
  return decimalMethod(rt, new PyDecimal(x, rt), name, a.slice(1), null, ctx)
}

/** `ctx.power(a, b, modulo=None)`: its keywords as CPython's. */
function power(rt: PyRun, c: PyContext, a: unknown[], kw: PyDict | null): unknown {
  // PyArg_ParseTupleAndKeywords' order: the count, each parameter by position or name, then the keywords' own errors.
  const given = new Map<string, unknown>()
  for (const [k, v] of kw?.map.values() ?? []) given.set(String(k), v)
  if (a.length + given.size > 3) typeError(`function takes at most 3 arguments (${a.length + given.size} given)`)
  const names = ['a', 'b', 'modulo']
  const args = names.map((n, i) => (i < a.length ? a[i] : given.get(n)))
  for (const at of [0, 1]) if (args[at] === undefined) typeError(`function missing required argument '${names[at]}' (pos ${at + 1})`)
  for (let i = 0; i < a.length; i++) if (given.has(names[i]!)) typeError(`argument for function given by name ('${names[i]}') and position (${i + 1})`)
  for (const k of given.keys()) if (!names.includes(k)) typeError(`'${k}' is an invalid keyword argument for this function`)
  const x = operand(args[0]), y = operand(args[1])
  const ctx = c.of(rt)
  const m = args[2] ?? null
  if (m === null) return settled(rt, ctx, decimalArith('**', x, y, ctx)!)
  return decimalPowMod(rt, new PyDecimal(x), new PyDecimal(y), new PyDecimal(operand(m)), ctx)
}

/** `is_normal`, `is_subnormal`, `number_class` of a Decimal in ctx (its Emin decides what is subnormal); undefined for another name. */
export function classify(name: string, x: Dec, ctx: Ctx): unknown {
  const normal = x.finite && !x.zero && x.adjusted >= ctx.Emin
  if (name === 'is_normal') return normal
  if (name === 'is_subnormal') return x.finite && !x.zero && !normal
  if (name !== 'number_class') return undefined
  const sign = x.sign ? '-' : '+'
  if (x.kind === 'N') return 'sNaN'
  if (x.nan) return 'NaN'
  if (x.kind === 'F') return `${sign}Infinity`
  if (x.zero) return `${sign}Zero`
  return `${sign}${normal ? 'Normal' : 'Subnormal'}`
}
