/** The VM's "did you mean" text (the edit distance is diagnostics/suggest.ts's, shared with every frontend). */
import { closest } from '../diagnostics/suggest.ts'

/** ` (did you mean "x"?)`, or an empty string: the tail of a VM error's message. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const c = closest(name, candidates)
  return c ? ` (did you mean "${c}"?)` : ''
}
