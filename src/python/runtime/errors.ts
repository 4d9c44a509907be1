/**
 * Raising Python exceptions from the runtime. The VM matches a failure of a
 * host function by shape (`code`, `message`, `value`), so what is thrown here
 * is a small record, not an Error (no stack to capture on a hot path such as
 * a `KeyError` caught by the guest).
 */
import { PyException, typeByName } from './values.ts'

export class PyRaise {
  readonly code = 'THROWN'
  constructor(readonly value: PyException, readonly message: string) {}
}

/** `str(e)` of an exception made from `args` (`KeyError` shows its key's repr, like CPython). */
export function exceptionMessage(typeNameOf: string, args: readonly unknown[], str: (x: unknown) => string, repr: (x: unknown) => string): string {
  if (args.length === 0) return ''
  if (args.length === 1) return typeNameOf === 'KeyError' ? repr(args[0]) : str(args[0])
  return `(${args.map(repr).join(', ')})`
}

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
