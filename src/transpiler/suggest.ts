/** The transpiler's "did you mean" text (the edit distance is diagnostics/suggest.ts's, shared with every frontend and the VM). */
import { closest } from '../diagnostics/suggest.ts'

/** `Did you mean `x`? ` or an empty string (prefix of a hint). */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const best = closest(name, candidates)
  return best === undefined ? '' : `Did you mean \`${best}\`? `
}
