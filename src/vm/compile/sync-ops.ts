/** Ops compiled structurally that never wait by themselves (their children may). */
export const SYNC_STRUCTURAL_OPS: ReadonlySet<string> = new Set([
  'seq', 'scope', 'if', 'while', 'doWhile', 'for', 'forOf', 'forIn', 'switch', 'break', 'continue',
  'return', 'throw', 'try', 'expr', 'Error', 'varSet', 'constSet', 'varsLet', 'varGet', 'varsImport',
  'varsExport', 'destructure', 'map', 'filter', 'reduce', 'find', 'memoize',
])
