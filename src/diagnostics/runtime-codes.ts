/**
 * Stable codes of errors raised while validating or running a program.
 * Tests assert these codes, never the prose. Transpile-time codes live in
 * `codes.ts`; both form one registry.
 */

export interface RuntimeCodeSpec {
  message: string
  hint: string
  /** Fatal errors end the run; `try` cannot catch them. */
  fatal?: boolean
}

export const RUNTIME_CODES = {
  AST_INVALID: { message: 'The program is not a valid ajs/1 AST', hint: 'Run validateAst(ast) to see every problem with its JSON pointer.' },
  AST_VERSION: { message: 'Unsupported AST format version', hint: 'Recompile the source with this version of ajs-lang, or upgrade the VM.' },
  AST_TOO_LARGE: { message: 'The AST exceeds the size limit', hint: 'Split the agent, or raise `limits.maxAstNodes` for trusted input.' },
  AST_TOO_DEEP: { message: 'The AST nests deeper than the limit', hint: 'Flatten deeply nested expressions into separate statements.' },
  ARGS_INVALID: { message: 'The arguments do not match the input schema', hint: 'Pass args that match the program\'s inputSchema.' },
  OPTIONS_INVALID: { message: 'Invalid run options', hint: 'Check the option names and types against the RunOptions documentation.' },
  FUEL_EXHAUSTED: { message: 'Out of fuel', hint: 'Raise `fuel` in the run options, or make the agent do less work.', fatal: true },
  TIMEOUT: { message: 'The run exceeded its time limit', hint: 'Raise `timeoutMs`, or make capabilities answer faster.', fatal: true },
  ABORTED: { message: 'The run was aborted', hint: 'The host cancelled the run (its AbortSignal or its interrupt flag).', fatal: true },
  HEAP_LIMIT: { message: 'The program tried to hold more memory than allowed', hint: 'Build smaller values, or raise `maxHeapBytes`.', fatal: true },
  STACK_OVERFLOW: { message: 'Maximum call depth exceeded', hint: 'Check the recursion has a base case, or raise `limits.maxCallDepth`.' },
  QUOTA_EXCEEDED: { message: 'Atom call quota exceeded', hint: 'Raise the quota for this atom in `quotas`.' },
  LIBRARY_MISSING: { message: 'The program needs a runtime library this VM does not have', hint: 'Pass the library to the VM: new AgentVM(atoms, { libraries: [pythonLibrary] }) (or import its ajs-lang/runtime/<name> module once).' },
  FEATURE_MISSING: { message: 'The program uses a part of the VM this build leaves out', hint: 'Import the opt-in part the message names once (e.g. \'ajs-lang/vm/regex\'); ajs-lang\'s full entry, ajsc and the server include every part.' },
  LIBRARY_VERSION: { message: 'The program needs a newer version of a runtime library than this VM has', hint: 'Upgrade ajs-lang on the host that runs the program.' },
  UNKNOWN_ATOM: { message: 'The program uses an atom this VM does not have', hint: 'Register it on the VM that runs the program: new AgentVM({ myAtom }) with myAtom made by defineAtom(), or fix the name.' },
  UNKNOWN_IDENTIFIER: { message: 'Unknown identifier', hint: 'Declare the variable before using it.' },
  UNKNOWN_FUNCTION: { message: 'Unknown function', hint: 'Define a helper function with that name or register an atom.' },
  FORBIDDEN_NAME: { message: 'Forbidden property or variable name', hint: '`__proto__`, `constructor` and `prototype` cannot be used as names or keys.' },
  METHOD_NOT_ALLOWED: { message: 'Method is not available', hint: 'Only allowlisted methods of strings, arrays, numbers and builtin namespaces can be called.' },
  TYPE_ERROR: { message: 'Type error', hint: 'Check the types of the values involved.' },
  REFERENCE_ERROR: { message: 'Reference error', hint: 'Declare the variable before using it.' },
  CONST_ASSIGN: { message: 'Assignment to a constant', hint: 'Declare the variable with `let` if it must change.' },
  PARALLEL_ASSIGN: { message: 'A parallel item body cannot assign a variable declared outside it', hint: 'Return the value from the body instead: the step\'s value is the array of what each item returned, in order.' },
  REGEX_UNSAFE: { message: 'Regular expression rejected by the ReDoS guard', hint: 'Avoid backreferences (capture and compare the groups in code) and lookbehind of unbounded length (bound it, e.g. {1,50}); on long inputs also lookahead and the u flag.' },
  RANGE_ERROR: { message: 'Value out of range', hint: 'Check the sizes and numbers passed to the builtin.' },
  JSON_ERROR: { message: 'Invalid JSON', hint: 'Check the text passed to JSON.parse / jsonParse.' },
  CAPABILITY_MISSING: { message: 'Missing capability', hint: 'Pass the capability in vm.run(ast, args, { capabilities }).' },
  CAPABILITY_ERROR: { message: 'A capability failed', hint: 'See the cause; the host capability threw or rejected.' },
  ATOM_INPUT_INVALID: { message: 'Atom input does not match its schema', hint: 'Pass the fields the atom declares, with the right types.' },
  ATOM_OUTPUT_INVALID: { message: 'Atom output does not match its schema', hint: 'The atom implementation returned a value its schema does not allow.' },
  ATOM_ERROR: { message: 'Atom failed', hint: 'See the cause.' },
  ATOM_TIMEOUT: { message: 'Atom exceeded its time limit', hint: 'Raise the atom\'s timeoutMs, or make it faster.' },
  PROCEDURE_NOT_FOUND: { message: 'Unknown or expired procedure token', hint: 'Store the procedure again with storeProcedure.' },
  PROCEDURE_TOO_LARGE: { message: 'The procedure AST exceeds the size limit', hint: 'Store a smaller AST or raise maxSize.' },
  VALUE_TOO_LARGE: { message: 'A value crossing the host boundary is too large', hint: 'Return smaller values from capabilities or pass smaller args.' },
  VALUE_NOT_DATA: { message: 'A value crossing the host boundary is not plain data', hint: 'Pass JSON-like data: no functions, cycles or class instances with hidden state.' },
  SOURCE_NOT_SUPPORTED: { message: 'This VM build cannot compile source text', hint: 'Import AgentVM from "ajs-lang" (with the transpiler), or transpile ahead of time with ajsc.' },
  HELPER_WAITS: { message: 'A function that waits for an atom was called where the answer is needed at once', hint: 'Call atoms outside the function (a generator, a sort key or comparison), and pass their results in.' },
  THROWN: { message: 'Uncaught error thrown by the program', hint: 'Catch it with try/catch, or fix the condition that throws.' },
  INTERNAL: { message: 'Internal VM error', hint: 'This is a bug in ajs-lang; please report it with the program.' },
} as const satisfies Record<string, RuntimeCodeSpec>

export type RuntimeCode = keyof typeof RUNTIME_CODES
