/**
 * Adversarial guest programs (AJS source): each case asserts the exact
 * outcome (error code or bounded result) and that the host realm is
 * unchanged afterwards. Families follow issue 7; tables in guest-cases.ts.
 */
import { test, describe } from 'bun:test'
import { check, type Case } from './helpers.ts'
import {
  PROTOTYPE_CASES, FUNCTION_REACH_CASES, COERCION_CASES, REDOS_CASES, CPU_CASES, MEMORY_CASES, DEPTH_CASES,
} from './guest-cases.ts'

const FAMILIES: Array<[string, Case[]]> = [
  ['prototype pollution and host-object reach', PROTOTYPE_CASES],
  ['Function/constructor reach', FUNCTION_REACH_CASES],
  ['coercion hooks and guarded ToPrimitive', COERCION_CASES],
  ['ReDoS through every regex entry point', REDOS_CASES],
  ['CPU bombs', CPU_CASES],
  ['memory bombs', MEMORY_CASES],
  ['deep recursion and deep values', DEPTH_CASES],
]

for (const [family, cases] of FAMILIES) {
  describe(family, () => {
    for (const c of cases) {
      test(c.name, () => check(c), 30_000)
    }
  })
}

