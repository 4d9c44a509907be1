/** The names a code block may use without defining them: the contract's builtins, types and exception classes. */
import { EXCEPTION_ALIASES, EXCEPTION_TREE, EXTENDED_EXCEPTION_TREE } from './runtime/values.ts'
import { METHOD_NAMES } from './runtime/methods.ts'
import { STR_METHODS } from './runtime/str-methods.ts'
import { CONTEXT_METHOD_NAMES } from './runtime/decimal-context-ops.ts'

/** The contract's allowed builtins that are functions (types are callable too: see BUILTIN_TYPES). */
export const BUILTIN_FUNCTIONS: ReadonlySet<string> = new Set([
  'abs', 'enumerate', 'isinstance', 'len', 'max', 'min', 'range', 'reversed', 'round', 'sorted', 'sum', 'zip',
])

/** The extended profile's builtins beyond the contract's (none reaches the object model or the host). */
export const EXTENDED_FUNCTIONS: ReadonlySet<string> = new Set([
  'any', 'all', 'map', 'filter', 'print', 'repr', 'ascii', 'divmod', 'pow', 'hash', 'iter', 'next',
  'chr', 'ord', 'hex', 'bin', 'oct', 'type', 'format', 'getattr', 'hasattr', 'setattr',
])

/** The extended profile's builtin types beyond the contract's (the base of every class, `slice`, `frozenset`). */
export const EXTENDED_TYPES: ReadonlySet<string> = new Set(['object', 'slice', 'frozenset'])

/** Builtin types: callable as conversions and usable with isinstance. */
export const BUILTIN_TYPES: ReadonlySet<string> = new Set(['bool', 'dict', 'float', 'int', 'list', 'set', 'str', 'tuple'])

export const EXCEPTION_NAMES: ReadonlySet<string> = new Set(EXCEPTION_TREE.map(([name]) => name))

/** The extended profile's exception classes beyond the contract's (`GeneratorExit`, `ConnectionError`, `IOError`, ...). */
export const EXTENDED_EXCEPTION_NAMES: ReadonlySet<string> = new Set([...EXTENDED_EXCEPTION_TREE.map(([name]) => name), ...Object.keys(EXCEPTION_ALIASES)])

/** Every method name some receiver type has (checked at compile time; the receiver's type is checked at run time). */
export const ALL_METHODS: ReadonlySet<string> = new Set([...METHOD_NAMES, ...Object.keys(STR_METHODS), 'sort', 'most_common', 'elements', 'total', 'subtract', 'move_to_end',
  'match', 'search', 'fullmatch', 'findall', 'finditer', 'sub', 'subn', 'group', 'groups', 'groupdict', 'start', 'end', 'span',
  '__enter__', '__exit__', 'isoformat', 'strftime', 'time', 'timetz', 'weekday', 'isoweekday', 'isocalendar', 'toordinal', 'date', 'total_seconds', 'close', 'send', 'throw', 'utcoffset', 'tzname', 'astimezone', 'timestamp', 'limit_denominator', 'as_integer_ratio',
  // decimal.Decimal and decimal.Context
  'quantize', 'normalize', 'sqrt', 'to_integral_value', 'to_integral', 'to_integral_exact', 'is_zero', 'is_nan', 'is_qnan', 'is_snan', 'is_infinite', 'is_finite', 'is_signed',
  'adjusted', 'as_tuple', 'copy_abs', 'copy_negate', 'copy_sign', 'compare', 'fma', 'exp', 'ln', 'log10', 'create_decimal',
  'max', 'min', 'to_eng_string', 'same_quantum', 'next_plus', 'next_minus', 'scaleb', 'clear_flags', 'clear_traps', 'create_decimal_from_float', 'Etiny', 'Etop',
  ...CONTEXT_METHOD_NAMES])
