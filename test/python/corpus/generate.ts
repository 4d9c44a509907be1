/**
 * Generated corpus bodies: a seeded, type-directed generator of small Python programs over ints
 * (small and beyond 2^53), floats, strings, lists, tuples and dicts, with arithmetic, comparisons,
 * formatting, slicing, methods, comprehensions, loops and try/except. Programs are mostly well
 * typed; some raise on purpose (division by zero, bad index, mixed types), and the exception class
 * must then match. The seed is fixed: the same bodies every run.
 */
import type { CorpusCase } from './cases.ts'

export const GENERATOR_SEED = 0x5eed_2026
export const GENERATED_CASES = 320

type Ty = 'int' | 'float' | 'str' | 'list' | 'bool' | 'dict' | 'tuple'

class Rng {
  constructor(private s: number) {}
  next(): number {
    // mulberry32
    let t = (this.s = (this.s + 0x6d2b79f5) | 0)
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!
  }
  chance(p: number): boolean {
    return this.next() < p
  }
}

const INT_LITERALS = ['0', '1', '2', '3', '7', '-1', '-5', '10', '12', '100', '255', '-17', '9007199254740993', '2 ** 64', '10 ** 18', '-(2 ** 70)']
const FLOAT_LITERALS = ['0.1', '0.2', '2.5', '-1.5', '3.0', '1e-07', '1e16', '0.5', '1.1', '-0.0', '123.456', '2.675', '1e300', '0.001']
const STR_LITERALS = ['"abc"', '"Hello"', '""', '"a b c"', '"😀x"', '"Ünï"', '"x,y,,z"', '"  pad  "', '"42"', '"MiXeD"']
const SPECS = ['', '>8', '<6', '^7', '.2f', '.3e', ',', '08.3f', '+d', 'x', '.1%', '.4g', '_', '0=+9.2f', '#o', '*^9']

class Gen {
  private vars: Array<[string, Ty]> = []
  private counter = 0
  constructor(private readonly r: Rng) {}

  private varsOf(t: Ty): string[] {
    return this.vars.filter(([, ty]) => ty === t).map(([n]) => n)
  }

  expr(t: Ty, depth: number): string {
    const r = this.r
    const known = this.varsOf(t)
    if (depth <= 0 || r.chance(0.25)) {
      if (known.length && r.chance(0.6)) return r.pick(known)
      return this.leaf(t)
    }
    const d = depth - 1
    switch (t) {
      case 'int': return r.pick<() => string>([
        () => `(${this.expr('int', d)} ${r.pick(['+', '-', '*', '//', '%'])} ${this.expr('int', d)})`,
        () => `(${this.expr('int', d)} ** ${r.int(0, 4)})`,
        () => `(${this.expr('int', d)} ${r.pick(['&', '|', '^'])} ${this.expr('int', d)})`,
        () => `(${this.expr('int', d)} ${r.pick(['<<', '>>'])} ${r.int(0, 8)})`,
        () => `abs(${this.expr('int', d)})`,
        () => `-${this.expr('int', d)}`,
        () => `len(${this.expr(r.pick(['str', 'list', 'dict', 'tuple'] as const), d)})`,
        () => `int(${this.expr('float', d)})`,
        () => `round(${this.expr('float', d)})`,
        () => `sum(${this.expr('list', d)})`,
        () => `max(${this.expr('int', d)}, ${this.expr('int', d)})`,
        () => `min(${this.expr('list', d)}, default=${r.pick(INT_LITERALS)})`,
        () => `${this.expr('list', d)}[${this.expr('int', d)}]`,
        () => `(${this.expr('int', d)} if ${this.expr('bool', d)} else ${this.expr('int', d)})`,
        () => `${this.expr('dict', d)}.get(${this.expr('str', d)}, ${this.expr('int', d)})`,
        () => `${this.expr('str', d)}.find(${this.expr('str', d)})`,
        () => `${this.expr('list', d)}.count(${this.expr('int', d)})`,
        () => `int(${this.expr('str', d)})`,
        () => `len(set(${this.expr('list', d)}))`,
        () => `sum(x for x in ${this.expr('list', d)} if x > ${this.expr('int', d)})`,
        () => `(${this.expr('int', d)}, ${this.expr('int', d)})[${r.int(-2, 2)}]`,
        () => `${this.expr('str', d)}.count(${r.pick(['"a"', '"l"', '""', '" "'])})`,
        () => `round(${this.expr('int', d)}, ${r.int(-3, 1)})`,
        () => `${this.expr('list', d)}.index(${this.expr('int', d)})`,
      ])()
      case 'float': return r.pick<() => string>([
        () => `(${this.expr(r.pick(['int', 'float'] as const), d)} ${r.pick(['+', '-', '*', '/'])} ${this.expr('float', d)})`,
        () => `(${this.expr('int', d)} / ${this.expr('int', d)})`,
        () => `(${this.expr('float', d)} ${r.pick(['//', '%'])} ${this.expr(r.pick(['int', 'float'] as const), d)})`,
        () => `float(${this.expr('int', d)})`,
        () => `round(${this.expr('float', d)}, ${r.int(-2, 4)})`,
        () => `abs(${this.expr('float', d)})`,
        () => `(${this.expr('float', d)} ** ${r.pick(['2', '0.5', '-1', '3'])})`,
        () => `sum([${this.expr('float', d)}, ${this.expr('float', d)}, ${this.expr('int', d)}])`,
        () => `max(${this.expr('float', d)}, ${this.expr('int', d)})`,
        () => `float(${r.pick(['"1.5"', '" -2e3 "', '"inf"', '"0.1"', '"x1"'])})`,
      ])()
      case 'str': if (this.insideF) return r.chance(0.5) ? this.leaf('str') : `str(${this.expr('int', d)})`
        return r.pick<() => string>([
        () => `(${this.expr('str', d)} + ${this.expr('str', d)})`,
        () => `str(${this.expr(r.pick(['int', 'float', 'list', 'bool', 'tuple', 'dict'] as const), d)})`,
        () => this.fstring(`{${this.inF(() => this.expr(r.pick(['int', 'float', 'str'] as const), d))}:${r.pick(SPECS)}}`),
        () => this.fstring(`<{${this.inF(() => this.expr(r.pick(['int', 'str', 'list'] as const), d))}!r}>`),
        () => `${this.expr('str', d)}.${r.pick(['upper', 'lower', 'strip', 'title', 'capitalize', 'swapcase'])}()`,
        () => `${this.expr('str', d)}[${r.pick(['1:', ':-1', '::-1', '1:4', '::2', '-3:', '5:1:-1'])}]`,
        () => `(${this.expr('str', d)} * ${r.int(0, 3)})`,
        () => `"-".join(${this.expr('str', d)}.split(${r.pick(['', '","', '" "'])}))`,
        () => `${this.expr('str', d)}.replace(${r.pick(['"a"', '"l"', '" "'])}, ${r.pick(['"_"', '""', '"AA"'])})`,
        () => `("%s|%5d|%.2f" % (${this.expr('str', d)}, ${this.expr('int', d)}, ${this.expr('float', d)}))`,
        () => `"{}:{:>4}".format(${this.expr('int', d)}, ${this.expr('str', d)})`,
        () => `${this.expr('str', d)}.center(${r.int(0, 9)}, "*")`,
        () => `${this.expr('str', d)}.zfill(${r.int(0, 6)})`,
        () => `${this.expr('str', d)}[${this.expr('int', d)}]`,
        () => `${this.expr('str', d)}.strip(${r.pick(['"x"', '" p"', '"😀"'])})`,
        () => `",".join(sorted(${this.expr('str', d)}.split()))`,
        () => `${this.expr('str', d)}.split(",")[${r.int(-1, 1)}]`,
        () => `" ".join(str(x) for x in ${this.expr('list', d)})`,
        () => `${this.expr('str', d)}.partition(" ")[${r.int(0, 2)}]`,
      ])()
      case 'list': return r.pick<() => string>([
        () => `[${this.expr('int', d)}, ${this.expr('int', d)}, ${this.expr('int', d)}]`,
        () => `sorted(${this.expr('list', d)}${r.pick(['', ', reverse=True', ', key=abs', ', key=lambda v: -v'])})`,
        () => `[${this.comp()}]`,
        () => `${this.expr('list', d)}[${r.pick(['1:', ':2', '::-1', '::2', '-2:', '1:-1'])}]`,
        () => `list(range(${r.int(-3, 3)}, ${r.int(0, 12)}, ${r.pick(['1', '2', '3', '-1'])}))`,
        () => `(${this.expr('list', d)} + ${this.expr('list', d)})`,
        () => `[len(w) for w in ${this.expr('str', d)}.split()]`,
        () => `list(${this.expr('dict', d)}.values())`,
        () => `[i * j for i, j in zip(${this.expr('list', d)}, ${this.expr('list', d)})]`,
        () => `[i for i, _ in enumerate(${this.expr('str', d)})]`,
        () => `sorted(set(${this.expr('list', d)}))`,
        () => `list(reversed(${this.expr('list', d)}))`,
        () => `[x for x in ${this.expr('list', d)} if x in ${this.expr('list', d)}]`,
        () => `sorted(${this.expr('list', d)}, key=lambda v: (v % ${r.int(1, 4)}, -v))`,
        () => `(${this.expr('list', d)} * ${r.int(0, 2)})`,
      ])()
      case 'bool': return r.pick<() => string>([
        () => `(${this.expr('int', d)} ${r.pick(['<', '<=', '==', '!=', '>', '>='])} ${this.expr(r.pick(['int', 'float'] as const), d)})`,
        () => `(${this.expr('int', d)} < ${this.expr('int', d)} <= ${this.expr('int', d)})`,
        () => `(${this.expr('str', d)} ${r.pick(['<', '==', 'in', 'not in'])} ${this.expr('str', d)})`,
        () => `(${this.expr('int', d)} in ${this.expr('list', d)})`,
        () => `(${this.expr('bool', d)} ${r.pick(['and', 'or'])} ${this.expr('bool', d)})`,
        () => `(not ${this.expr(r.pick(['bool', 'list', 'str', 'int'] as const), d)})`,
        () => `(${this.expr('list', d)} ${r.pick(['<', '=='])} ${this.expr('list', d)})`,
        () => `isinstance(${this.expr(r.pick(['int', 'float', 'bool'] as const), d)}, ${r.pick(['int', 'float', '(int, float)', 'bool'])})`,
        () => `(${this.expr('str', d)} in ${this.expr('dict', d)})`,
      ])()
      case 'dict': return r.pick<() => string>([
        () => `{${this.expr('str', d)}: ${this.expr('int', d)}, ${this.leaf('str')}: ${this.expr('int', d)}}`,
        () => `{w: len(w) for w in ${this.expr('str', d)}.split()}`,
        () => `dict(zip(${this.expr('str', d)}.split(), ${this.expr('list', d)}))`,
        () => `{**${this.expr('dict', d)}, "k": ${this.expr('int', d)}}`,
        () => `{k: v for k, v in zip("abc", ${this.expr('list', d)}) if v ${r.pick(['>', '<', '!='])} ${this.expr('int', d)}}`,
        () => `dict(sorted(${this.expr('dict', d)}.items(), key=lambda kv: kv[1]))`,
        () => `(${this.expr('dict', d)} | ${this.expr('dict', d)})`,
      ])()
      case 'tuple': return r.pick<() => string>([
        () => `(${this.expr('int', d)}, ${this.expr('str', d)})`,
        () => `tuple(${this.expr('list', d)})`,
        () => `(${this.expr('float', d)},)`,
        () => `divmod_free(${this.expr('int', d)})`.replace(/divmod_free\((.*)\)$/, (_m, x) => `(${x} // 3, ${x} % 3)`),
      ])()
    }
  }

  private insideF = false

  /** Python 3.11 cannot nest the same quotes in an f-string: f-strings use single quotes and never nest. */
  private fstring(inner: string): string {
    return `f'${inner}'`
  }

  private inF(make: () => string): string {
    const was = this.insideF
    this.insideF = true
    try { return make() } finally { this.insideF = was }
  }

  private comp(): string {
    const r = this.r
    const src = r.pick(['range(8)', 'range(-4, 5)', '[3, 1, 4, 1, 5, 9, 2, 6]', this.varsOf('list')[0] ?? '[1, 2, 3]'])
    const cond = r.pick(['', ' if v % 2', ' if v > 1', ' if v != 4'])
    const body = r.pick(['v', 'v * v', 'v // 2', '-v', 'v % 3', 'v ** 2 - v'])
    return `${body} for v in ${src}${cond}`
  }

  private leaf(t: Ty): string {
    const r = this.r
    switch (t) {
      case 'int': return r.pick(INT_LITERALS)
      case 'float': return r.pick(FLOAT_LITERALS)
      case 'str': return r.pick(STR_LITERALS)
      case 'list': return r.pick(['[]', '[1, 2, 3]', '[5, -2, 9, 0]', '[10]', '[2, 2, 1]'])
      case 'bool': return r.pick(['True', 'False'])
      case 'dict': return r.pick(['{}', '{"a": 1, "b": 2}', '{"x": -3}'])
      case 'tuple': return r.pick(['()', '(1, "a")', '(2.5, 3)'])
    }
  }

  private fresh(t: Ty): string {
    const name = `${t[0]}${this.counter++}`
    this.vars.push([name, t])
    return name
  }

  statement(depth: number): string[] {
    const r = this.r
    const t = r.pick<Ty>(['int', 'int', 'float', 'str', 'list', 'bool', 'dict', 'tuple'])
    const kind = r.int(0, 9)
    if (kind <= 4 || depth <= 0) { const e = this.expr(t, 3); return [`${this.fresh(t)} = ${e}`] }
    if (kind === 5) {
      const src = r.pick(['range(5)', this.expr('list', 1), 'range(10, 0, -3)'])
      const step = this.expr('int', 1)
      const acc = this.fresh('int')
      const v = `k${this.counter++}`
      return [`${acc} = 0`, `for ${v} in ${src}:`, `    ${acc} += ${v} * ${step}`, ...(r.chance(0.3) ? [`    if ${acc} > 50:`, '        break'] : []), ...(r.chance(0.3) ? ['else:', `    ${acc} -= 1`] : [])]
    }
    if (kind === 6) {
      const [c, a, b] = [this.expr('bool', 2), this.expr(t, 2), this.expr(t, 2)]
      const name = this.fresh(t)
      return [`if ${c}:`, `    ${name} = ${a}`, 'else:', `    ${name} = ${b}`]
    }
    if (kind === 7) {
      const e = this.expr(t, 3)
      const name = this.fresh(t)
      const exc = r.pick(['ZeroDivisionError', 'IndexError', 'KeyError', 'ValueError', 'TypeError', '(ValueError, TypeError)', 'LookupError', 'ArithmeticError', 'Exception'])
      return ['try:', `    ${name} = ${e}`, `except ${exc} as err:`, `    ${name} = ${this.leaf(t)}`]
    }
    if (kind === 8) {
      const e = this.expr('list', 2)
      const lst = this.fresh('list')
      return [`${lst} = ${e}`, `${lst}.${r.pick(['append(7)', 'sort()', 'reverse()', 'extend([1, 2])', 'insert(1, 0)', 'sort(reverse=True)'])}`]
    }
    if (r.chance(0.5)) {
      const [a, b] = [this.expr('int', 2), this.expr('int', 1)]
      const f = `fn${this.counter++}`
      const name = this.fresh('int')
      return [`def ${f}(p, q=${b}):`, `    return p ${r.pick(['+', '-', '*', '//', '%'])} q`, `${name} = ${f}(${a}) + ${f}(${a}, q=${r.int(1, 5)})`]
    }
    const n = this.fresh('int')
    return [`${n} = 0`, `while ${n} < ${r.int(0, 6)}:`, `    ${n} += ${r.int(1, 2)}`]
  }

  body(): string {
    const lines: string[] = []
    const n = this.r.int(2, 6)
    for (let i = 0; i < n; i++) lines.push(...this.statement(2))
    const out = this.vars.map(([name]) => `"${name}": ${name}`)
    lines.push(`return {${out.join(', ')}}`)
    return lines.join('\n')
  }
}

/** The generated cases (deterministic for GENERATOR_SEED). */
export function generateCases(count = GENERATED_CASES): CorpusCase[] {
  const rng = new Rng(GENERATOR_SEED)
  const out: CorpusCase[] = []
  for (let i = 0; i < count; i++) {
    const body = new Gen(rng).body()
    out.push({ name: `gen/${String(i).padStart(3, '0')}`, body, params: ['initial'], initial: {}, input: {} })
  }
  return out
}
