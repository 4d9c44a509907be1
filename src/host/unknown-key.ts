/**
 * The words of every key check of the serve config (server/config.ts, the
 * budgetTokens part in server/budget.ts, a tenant's plan in
 * codemode/policy.ts): `unknown key (did you mean "fuel"? expected one of:
 * fuel, timeoutMs, ...)`, so a misspelt key names the one it was meant to be.
 */
import { closest } from '../diagnostics/suggest.ts'

export function unknownKeyMessage(key: string, keys: readonly string[]): string {
  const near = closest(key, keys)
  return `unknown key (${near ? `did you mean "${near}"? ` : ''}expected one of: ${keys.join(', ')})`
}
