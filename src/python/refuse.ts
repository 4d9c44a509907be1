/**
 * Refusals: everything outside the subset is a located TranspileError with
 * a stable code (AJS7xxx) and a hint phrased for a code block's author.
 */
import { transpileError, SourceLocator, type TranspileError, type CodeName } from '../diagnostics/index.ts'
import type { Loc } from './ir.ts'

/** `contract`: exactly the Block Runtime Contract's builtins and rules; `extended`: the superset (docs/python.md). */
export type PythonProfile = 'contract' | 'extended'

/** The hint's tail for what only the extended profile accepts. */
export const EXTENDED_HINT = "The `extended` profile accepts it: transpilePython(body, { profile: 'extended' })."

export class Refuser {
  /** Which Python the source may use. */
  profile: PythonProfile = 'extended'
  private readonly locator: SourceLocator
  private readonly frames: SourceLocator
  /**
   * `parsed` is the text given to the parser: the body as given, with its
   * common indentation (`indent` characters) removed from every line.
   */
  constructor(parsed: string, original: string, readonly file: string, private readonly indent: number) {
    this.locator = new SourceLocator(parsed)
    this.frames = new SourceLocator(original)
  }

  /** An offset of the text the parser reads as an offset of the parsed text (parse/match-subject.ts). */
  unpatch: (offset: number) => number = (o) => o

  /** Line/column of an offset of the parsed text, in the body as given. */
  loc(offset: number): Loc {
    const p = this.locator.position(this.unpatch(offset))
    return [p.line, p.column + this.indent]
  }

  get extended(): boolean {
    return this.profile === 'extended'
  }

  /** The contract profile's refusal of something the extended profile accepts. */
  extendedOnly(what: string, fix: string, at: Loc | number): TranspileError {
    return this.error('PY_UNSUPPORTED', { name: what, fix: `${fix} ${EXTENDED_HINT}` }, at)
  }

  error(name: CodeName, params: Record<string, string>, at: Loc | number): TranspileError {
    const [line, column] = typeof at === 'number' ? this.loc(at) : at
    return transpileError(name, params, this.frames, this.file, line, column)
  }
}

/** The contract profile's hint for any `import`. */
export const CONTRACT_IMPORT_FIX = 'Code blocks have no modules: use the allowed builtins (abs, len, sorted, sum, ...) and str/list/dict methods; data arrives through `initial` and the input fields.'

/** Hints for names a block author may reach for but the sandbox does not allow. */
export const FORBIDDEN_NAMES: Readonly<Record<string, string>> = {
  eval: 'Code blocks cannot run code from strings; write the expression directly.',
  exec: 'Code blocks cannot run code from strings; write the statements directly.',
  compile: 'Code blocks cannot compile code; write the statements directly.',
  open: 'Code blocks have no file I/O; data arrives through `initial` and the input fields, and leaves in the returned dict.',
  getattr: 'Code blocks cannot traverse the object model; use `d[key]` or `d.get(key)` on dicts.',
  setattr: 'Code blocks cannot traverse the object model; use `d[key] = value` on dicts.',
  hasattr: 'Code blocks cannot traverse the object model; use `key in d` on dicts.',
  delattr: 'Code blocks cannot traverse the object model; use `del d[key]` on dicts.',
  type: 'Use `isinstance(x, int)` (or a tuple of types) to test a type.',
  vars: 'Code blocks cannot traverse the object model; work with the dicts you were given.',
  dir: 'Code blocks cannot traverse the object model; use `list(d)` for the keys of a dict.',
  globals: 'Code blocks cannot traverse the object model; pass values as variables.',
  locals: 'Code blocks cannot traverse the object model; build a dict explicitly: `{"a": a}`.',
  __import__: 'Code blocks have no modules; use the allowed builtins.',
  print: 'Code blocks have no output stream; put what you want to see in the returned dict.',
  input: 'Code blocks cannot read input interactively; use `initial` and the input fields.',
  breakpoint: 'Code blocks cannot be debugged interactively; return intermediate values in the dict.',
  help: 'Not available in code blocks.',
  id: 'Object identities are not available; compare values with `==` or `is None`.',
  hash: 'Not available in code blocks; use the value itself as a dict key.',
  memoryview: 'Binary data is not supported in code blocks.',
  bytes: 'Binary data is not supported in code blocks; use str.',
  bytearray: 'Binary data is not supported in code blocks; use str or list.',
  object: 'Classes and objects are not supported; use dicts.',
  super: 'Classes are not supported; use dicts and functions.',
  classmethod: 'Classes are not supported; use dicts and functions.',
  staticmethod: 'Classes are not supported; use dicts and functions.',
  property: 'Classes are not supported; use dicts and functions.',
  iter: 'Use a `for` loop over the value, or `list(x)`.',
  next: 'Use a `for` loop with `break`, or index a list: `xs[0]`.',
  map: '`map` is not an allowed builtin; use a list comprehension: `[f(x) for x in xs]`.',
  filter: '`filter` is not an allowed builtin; use a list comprehension: `[x for x in xs if cond]`.',
  any: '`any` is not an allowed builtin; use `len([x for x in xs if cond]) > 0` or a loop with `break`.',
  all: '`all` is not an allowed builtin; use `len([x for x in xs if not cond]) == 0` or a loop with `break`.',
  chr: '`chr` is not an allowed builtin here; keep text as str.',
  ord: '`ord` is not an allowed builtin here; compare characters directly (`c >= "a"`).',
  pow: '`pow` is not an allowed builtin; use the `**` operator.',
  divmod: '`divmod` is not an allowed builtin; use `(a // b, a % b)`.',
  repr: '`repr` is not an allowed builtin; use an f-string with `!r`: `f"{x!r}"`.',
  format: '`format` is not an allowed builtin; use an f-string: `f"{x:.2f}"`.',
  hex: '`hex` is not an allowed builtin; use `f"{n:#x}"`.',
  oct: '`oct` is not an allowed builtin; use `f"{n:#o}"`.',
  bin: '`bin` is not an allowed builtin; use `f"{n:#b}"`.',
  callable: 'Functions are not values in code blocks.',
  issubclass: 'Use `isinstance(value, cls)` instead.',
  frozenset: '`frozenset` is not an allowed builtin here; use a tuple (hashable) or a set.',
  slice: 'Use slice syntax: `xs[a:b:c]`.',
  complex: 'Complex numbers are not supported.',
  ascii: 'Use an f-string with `!a`: `f"{x!a}"`.',
}
