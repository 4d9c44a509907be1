/**
 * `ajs-lang/vm/regex`: regular expressions for the VM (the guarded host
 * RegExp, the static ReDoS check and the metered linear-time engine).
 * Importing it registers it with every AgentVM of the process
 * (builtins/regex-hook.ts); the full entry, `ajsc`, the server and the
 * Python and flow entries import it. A VM without it refuses every regex
 * with FEATURE_MISSING naming this import.
 */
import { GuardedRegex, REGEX_STEP_BUDGET, makeRegex, regexDegree, toRegex } from '../builtins/regex.ts'
import { regexExec, regexMatch, regexMatchAll, regexReplace, regexSearch, regexSplit, regexTest } from '../builtins/regex-ops.ts'
import { registerRegex } from '../builtins/regex-hook.ts'
import { constructRegex } from '../builtins/regex-construct.ts'

registerRegex({
  Regex: GuardedRegex,
  make: makeRegex,
  construct: constructRegex,
  from: toRegex,
  degree: regexDegree,
  stepBudget: REGEX_STEP_BUDGET,
  exec: regexExec,
  match: regexMatch,
  matchAll: regexMatchAll,
  search: regexSearch,
  test: regexTest,
  replace: regexReplace,
  split: regexSplit,
})

export {}
