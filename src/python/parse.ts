/**
 * Python source to the subset's tree (ir.ts), with @lezer/python as the
 * parser. Lezer recovers from errors, so every error node becomes a syntax
 * refusal; constructs outside the subset are refused here, located, with a hint.
 * The conversion itself lives in parse/, one file per concern.
 */
import { pythonParser } from './parser.ts'
import type { SyntaxNode } from '@lezer/common'
import type { Stmt } from './ir.ts'
import { StatementParser } from './parse/statements.ts'
import { bareYield, emptyPatternGroup, kids, trailingPointFloat } from './parse/lezer.ts'
import { patchAt, specAlignEquals } from './parse/fstring-align.ts'
import { patchSignedExponents, signedExponentPoints } from './parse/exponent.ts'

export { CLASS_DUNDERS } from './parse/definitions.ts'
export { PUNCT } from './parse/lezer.ts'

export class PyParser extends StatementParser {
  parseScript(): Stmt[] {
    let text = this.src
    let tree = pythonParser().parse(text)
    const exponents = signedExponentPoints(tree, text)
    if (exponents.length) tree = pythonParser().parse((text = patchSignedExponents(text, exponents)))
    // An f-string nested in a field that lezer could not read shows its own fields once that one is mended.
    for (let seen = 0, round = 0; round < 4; round++) {
      const aligns = specAlignEquals(tree, this.src)
      if (aligns.length === seen) break
      seen = aligns.length
      tree = pythonParser().parse(patchAt(text, aligns))
    }
    let bad: SyntaxNode | null = null
    tree.iterate({
      enter: (ref) => {
        if (bad) return false
        if (ref.type.isError && !emptyPatternGroup(ref.node) && !bareYield(ref.node) && !trailingPointFloat(ref.node)) { bad = ref.node; return false }
        return undefined
      },
    })
    if (bad) this.syntaxError(bad)
    return this.statements(kids(tree.topNode))
  }

  private syntaxError(n: SyntaxNode): never {
    // Lezer cuts a parse stack deeper than it keeps (an expression ~650 levels deep or chained), and
    // the cut reads as a syntax error after it: say so, not "unexpected `0`" in valid Python.
    const deep = depthBefore(n)
    if (deep >= PARSER_DEPTH) {
      return this.refuse('PY_SYNTAX', { detail: `the expression here nests or chains deeper than the parser reads (over ${PARSER_DEPTH} levels)`, fix: 'Split it: give parts of it names first (`head = a + b + c`), or build it in a loop.' }, n.from)
    }
    const near = this.src.slice(n.from, Math.max(n.to, n.from + 1)).split('\n')[0]!.trim()
    const parentName = n.parent?.name ?? ''
    let fix = 'Check the indentation, colons, brackets and quotes near the marker.'
    const lineStart = this.src.lastIndexOf('\n', n.from - 1) + 1
    const before = this.src.slice(lineStart, n.from)
    const header = /^\s*(if|elif|else|for|while|def|try|except|finally|with|class)\b/.exec(before)
    if (header && !before.trimEnd().endsWith(':')) fix = `Add \`:\` at the end of the \`${header[1]}\` line.`
    else if (/Body|Statement/.test(parentName) && near === '') fix = 'A block needs an indented body; write `pass` for an empty one.'
    return this.refuse('PY_SYNTAX', { detail: near ? `unexpected \`${near.slice(0, 30)}\`` : 'unexpected end of input', fix }, n.from)
  }
}

/** Tree depth from which a syntax error is lezer's cut of a deep parse, not the text's fault. */
const PARSER_DEPTH = 500

/** How deep the parse is at `n` or was before it (its ancestors' earlier siblings): walked with a stack, as it may be deep. */
function depthBefore(n: SyntaxNode): number {
  let deepest = 0
  let above = 0
  for (let p: SyntaxNode | null = n; p; p = p.parent) {
    deepest = Math.max(deepest, ++above)
    for (let s = p.prevSibling; s; s = s.prevSibling) {
      const stack: Array<[SyntaxNode, number]> = [[s, 1]]
      while (stack.length > 0) {
        const [x, d] = stack.pop()!
        if (d > deepest) deepest = d
        for (let c = x.firstChild; c; c = c.nextSibling) stack.push([c, d + 1])
      }
    }
  }
  return deepest
}
