/**
 * Raising Python exceptions from the runtime. The VM matches a failure of a
 * host function by shape (`code`, `message`, `value`), so what is thrown here
 * is a small record, not an Error (no stack to capture on a hot path such as
 * a `KeyError` caught by the guest).
 */
import { PyException, PyType, typeByName } from './values.ts'

export class PyRaise {
  readonly code = 'THROWN'
  constructor(readonly value: PyException, readonly message: string) {}
}

/**
 * `str(e)` of an exception made from `args`, by its class or a subclass of it: a `KeyError` shows its
 * key's repr, an `OSError` made with `(errno, strerror[, filename])` reads `[Errno 2] No such file:
 * 'a.txt'`, like CPython.
 */
export function exceptionMessage(type: PyType | string, args: readonly unknown[], str: (x: unknown) => string, repr: (x: unknown) => string): string {
  const t = typeof type === 'string' ? typeByName(type) : type
  if (args.length === 0) return ''
  if (args.length === 1) return t?.isSubclassOf(KEY_ERROR) ? repr(args[0]) : str(args[0])
  if (args.length <= 5 && t?.isSubclassOf(OS_ERROR)) {
    const head = `[Errno ${str(args[0])}] ${str(args[1])}`
    if (args.length >= 3 && args[2] !== null) return `${head}: ${repr(args[2])}${args.length === 5 && args[4] !== null ? ` -> ${repr(args[4])}` : ''}`
    return head
  }
  return `(${args.map(repr).join(', ')})`
}

const KEY_ERROR = typeByName('KeyError')!
const OS_ERROR = typeByName('OSError')!

/** Make a Python exception of a builtin class with a message. */
export function pyException(type: string, message: string): PyException {
  return new PyException(typeByName(type)!, [message], message)
}

/** Throw a Python exception of a builtin class. */
export function raise(type: string, message: string): never {
  throw new PyRaise(pyException(type, message), message)
}

export const typeError = (message: string): never => raise('TypeError', message)
export const valueError = (message: string): never => raise('ValueError', message)
