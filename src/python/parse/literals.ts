/**
 * Literals to the tree: numbers, string literals with their escapes, and
 * f-strings with their replacement fields and format specs.
 */
import type { SyntaxNode } from '@lezer/common'
import type { Expr, FPart, Loc } from '../ir.ts'
import { ParserBase } from './base.ts'
import { kids } from './lezer.ts'

export abstract class LiteralParser extends ParserBase {

  protected number(n: SyntaxNode, loc: Loc): Expr {
    const raw = this.text(n).replace(/_/g, '')
    if (/[jJ]$/.test(raw)) this.unsupported('Complex numbers', 'Use floats.', n)
    if (/^0[xX]/.test(raw)) return { k: 'int', v: BigInt(raw).toString(), loc }
    if (/^0[oO]/.test(raw)) return { k: 'int', v: BigInt('0o' + raw.slice(2)).toString(), loc }
    if (/^0[bB]/.test(raw)) return { k: 'int', v: BigInt(raw).toString(), loc }
    if (/^\d+$/.test(raw)) {
      if (/^0\d/.test(raw) && /[1-9]/.test(raw)) this.refuse('PY_SYNTAX', { detail: 'leading zeros in decimal integer literals are not permitted', fix: 'Remove the leading zeros (use 0o for octal).' }, n)
      return { k: 'int', v: BigInt(raw).toString(), loc }
    }
    return { k: 'float', v: Number(raw), loc }
  }

  protected stringLiteral(n: SyntaxNode): string {
    const raw = this.text(n)
    const m = /^([a-zA-Z]*)('''|"""|'|")/.exec(raw)!
    const prefix = m[1]!.toLowerCase()
    if (prefix.includes('b')) this.unsupported('Bytes literals', 'Use str literals.', n)
    const q = m[2]!
    const body = raw.slice(m[0].length, raw.length - q.length)
    return prefix.includes('r') ? body : this.unescape(body, n.from + m[0].length)
  }

  protected unescape(s: string, at: number): string {
    if (!s.includes('\\')) return s
    let out = ''
    for (let i = 0; i < s.length; i++) {
      const ch = s[i]!
      if (ch !== '\\') { out += ch; continue }
      const e = s[++i]
      switch (e) {
        case '\n': break
        case '\r': if (s[i + 1] === '\n') i++; break
        case 'n': out += '\n'; break
        case 't': out += '\t'; break
        case 'r': out += '\r'; break
        case '\\': out += '\\'; break
        case "'": out += "'"; break
        case '"': out += '"'; break
        case 'a': out += '\x07'; break
        case 'b': out += '\b'; break
        case 'f': out += '\f'; break
        case 'v': out += '\v'; break
        case 'x': case 'u': case 'U': {
          const len = e === 'x' ? 2 : e === 'u' ? 4 : 8
          const hex = s.slice(i + 1, i + 1 + len)
          if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) this.refuse('PY_SYNTAX', { detail: `truncated \\${e} escape`, fix: `Write \\${e} with ${len} hex digits.` }, at + i)
          const cp = parseInt(hex, 16)
          if (cp > 0x10ffff) this.refuse('PY_SYNTAX', { detail: 'illegal Unicode character', fix: 'Use a code point up to \\U0010ffff.' }, at + i)
          out += String.fromCodePoint(cp)
          i += len
          break
        }
        case 'N': this.unsupported('`\\N{...}` escapes', 'Write the character itself or its \\u escape.', at + i - 1 as unknown as SyntaxNode); break
        default:
          if (e !== undefined && /[0-7]/.test(e)) {
            let oct = e
            while (oct.length < 3 && /[0-7]/.test(s[i + 1] ?? '')) oct += s[++i]
            out += String.fromCodePoint(parseInt(oct, 8))
          } else out += '\\' + (e ?? '')
      }
    }
    return out
  }

  protected fstring(n: SyntaxNode): FPart[] {
    const raw = this.text(n)
    const m = /^([a-zA-Z]*)('''|"""|'|")/.exec(raw)!
    const isRaw = m[1]!.toLowerCase().includes('r')
    const start = n.from + m[0].length
    const end = n.to - m[2]!.length
    const parts: FPart[] = []
    let pos = start
    const literal = (from: number, to: number) => {
      if (to <= from) return
      const raw = this.src.slice(from, to)
      const single = /\{\{|\}\}|[{}]/g
      for (let m = single.exec(raw); m; m = single.exec(raw)) {
        if (m[0].length === 1) this.refuse('PY_SYNTAX', { detail: `f-string: single '${m[0]}' is not allowed`, fix: 'Write `{{` and `}}` for literal braces.' }, from + m.index)
      }
      let t = raw.replace(/\{\{/g, '{').replace(/\}\}/g, '}')
      if (!isRaw) t = this.unescape(t, from)
      if (t) parts.push(t)
    }
    for (const r of kids(n)) {
      if (r.name !== 'FormatReplacement') continue
      if (this.src[r.from + 1] === '{') {
        this.refuse('PY_SYNTAX', { detail: 'f-string: `{{` is an escaped brace, so this `}` is single', fix: 'Write `{{` and `}}` for literal braces, or put a space before a dict display: `f"{ {\'a\': 1}[k]}"`.' }, r.from)
      }
      literal(pos, r.from)
      parts.push(...this.replacement(r))
      pos = r.to
    }
    literal(pos, end)
    return parts
  }

  protected replacement(r: SyntaxNode): FPart[] {
    const c = kids(r).filter((x) => x.name !== '{' && x.name !== '}')
    const exprNodes: SyntaxNode[] = []
    let conv = ''
    let spec: Expr | null = null
    let selfDoc = false
    for (const x of c) {
      if (x.name === 'FormatConversion') conv = this.text(x).slice(1)
      else if (x.name === 'FormatSelfDoc') selfDoc = true
      else if (x.name === 'FormatSpec') spec = this.formatSpec(x)
      else exprNodes.push(x)
    }
    const e = this.exprList(exprNodes, r)
    const out: FPart[] = []
    if (selfDoc) {
      out.push(this.src.slice(exprNodes[0]!.from - 0, c.find((x) => x.name === 'FormatSelfDoc')!.to).replace(/^\{/, ''))
      if (!conv && !spec) conv = 'r'
    }
    out.push({ e, conv, spec })
    return out
  }

  protected formatSpec(x: SyntaxNode): Expr {
    const loc = this.at(x)
    const parts: FPart[] = []
    let pos = x.from + 1
    for (const r of kids(x)) {
      if (r.name !== 'FormatReplacement') continue
      if (r.from > pos) parts.push(this.src.slice(pos, r.from))
      parts.push(...this.replacement(r))
      pos = r.to
    }
    if (x.to > pos) parts.push(this.src.slice(pos, x.to))
    if (parts.every((p) => typeof p === 'string')) return { k: 'const', v: (parts as string[]).join(''), loc }
    return { k: 'fstr', parts, loc }
  }
}
