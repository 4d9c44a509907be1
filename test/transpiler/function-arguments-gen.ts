/**
 * A seeded generator of programs passing functions to helpers (src/transpiler/function-arguments.ts),
 * for function-arguments-fuzz.test.ts: helpers taking a function beside data, default and destructured
 * parameters, recursion, a helper handing a function of its own to another, async helpers awaiting the
 * function; called from statement slots without braces, ternaries, `&&`, array callbacks and
 * expression-bodied arrows, with arrows reading variables of several enclosing scopes, and names the
 * helpers declare that the caller declares too (parameters, loop variables, catch parameters).
 */
import { seededRandom } from '../../src/workflows/engine/random.ts'

/** A deterministic generator of numbers in [0, 1): the workflows' mulberry32. */
export const random = seededRandom

interface Helper {
  readonly name: string
  readonly source: string
  /** Builds the call: `fn` is the function argument's text, `v` a number expression. */
  readonly call: (fn: string, v: string) => string
  readonly async?: boolean
  /** The helpers its source calls. */
  readonly uses?: readonly string[]
}

/** Helpers whose function parameter maps a number to a number; their locals are named as the callers' variables. */
const HELPERS: readonly Helper[] = [
  { name: 'apply', source: 'function apply(f, x) { return f(x) }', call: (f, v) => `apply(${f}, ${v})` },
  { name: 'twice', source: 'function twice(f, x) { const k = 1000; return f(f(x)) + k - 1000 }', call: (f, v) => `twice(${f}, ${v})` },
  { name: 'sumMap', source: 'function sumMap(xs, f) { let t = 0; for (const x of xs) t += f(x); return t }', call: (f, v) => `sumMap([${v}, 1], ${f})` },
  { name: 'viaMap', source: 'function viaMap(n, f) { return [n, n + 1].map(f).reduce((a, b) => a + b, 0) }', call: (f, v) => `viaMap(${v}, ${f})` },
  { name: 'rec', source: 'function rec(f, n) { return n <= 0 ? 0 : f(n) + rec(f, n - 1) }', call: (f, v) => `rec(${f}, (${v}) % 3)` },
  { name: 'withDefault', source: 'function withDefault(f, x, y = 2) { return f(x) * y }', call: (f, v) => `withDefault(${f}, ${v})` },
  { name: 'destr', source: 'function destr({ a, b }, f) { const x = a * 2; return f(x) - b }', call: (f, v) => `destr({ a: ${v}, b: 1 }, ${f})` },
  { name: 'arrowHelper', source: 'const arrowHelper = (f, i) => f(i) + f(i + 1)', call: (f, v) => `arrowHelper(${f}, ${v})` },
  { name: 'guarded', source: 'function guarded(f, x) { try { return f(x) } catch (e) { return -1 } }', call: (f, v) => `guarded(${f}, ${v})` },
  { name: 'loopy', source: 'function loopy(f, n) { let out = 0; for (let i = 0; i < 2; i++) if (i < n) out += f(i + n); return out }', call: (f, v) => `loopy(${f}, ${v})` },
  { name: 'nested', source: 'function nested(f, x) { return twice((y) => f(y) + 1, x) }', call: (f, v) => `nested(${f}, ${v})`, uses: ['twice'] },
  // Passing the function on to other helpers, and through two helpers recursing into each other.
  { name: 'passOn', source: 'function passOn(g, x) { const f = 2; return twice(g, x) + apply(g, f) }', call: (f, v) => `passOn(${f}, ${v})`, uses: ['twice', 'apply'] },
  { name: 'evens', source: 'function evens(f, n) { return n <= 0 ? 0 : f(n) + odds(f, n - 1) }\nconst odds = (g, n) => n <= 0 ? 0 : evens(g, n - 1) - g(n)', call: (f, v) => `evens(${f}, (${v}) % 4)` },
  { name: 'loopOn', source: 'function loopOn(f, n) { let t = 0; for (const x of [n, 1]) { const y = x; for (const x of [y]) t += apply(f, x) + evens(f, y % 3) } return t }', call: (f, v) => `loopOn(${f}, ${v})`, uses: ['apply', 'evens'] },
  { name: 'retryOn', async: true, source: 'async function retryOn(g, n) { const x = await retry(g, n); return x + (await awaitTwice(g, 1)) }', call: (f, v) => `(await retryOn(${f}, ${v}))`, uses: ['retry', 'awaitTwice'] },
  { name: 'shadow', source: 'function shadow(f, y) { const e = 3; let i = 4; const out = [y]; return f(out[0]) + e + i }', call: (f, v) => `shadow(${f}, ${v})` },
  { name: 'hid', source: 'function hid(f, v) { const double = 5; const inc0 = 1; return f(v) + double + inc0 }', call: (f, v) => `hid(${f}, ${v})` },
  { name: 'mapAll', source: 'const mapAll = (xs, f) => xs.map(f).concat(xs.filter((x) => f(x) > 2))', call: (f, v) => `mapAll([${v}, 2], ${f}).length` },
  { name: 'fold$', source: 'function fold$(xs, f, acc = 0) { return xs.reduce((a, x) => a + f(x), acc) }', call: (f, v) => `fold$([1, ${v}], ${f})` },
  { name: 'comp', source: 'function comp(f, g, x) { return g(f(x)) }', call: (f, v) => `comp(${f}, ${v})` },
  { name: 'retry', async: true, source: 'async function retry(f, n) { for (let i = 0; i < 3; i++) { try { return await f(n + i) } catch (e) { n = n + 1 } } return null }', call: (f, v) => `(await retry(${f}, ${v}))` },
  { name: 'awaitTwice', async: true, source: 'async function awaitTwice(f, x) { const a = await f(x); return a + (await f(a)) }', call: (f, v) => `(await awaitTwice(${f}, ${v}))` },
]

const TOP_FUNCTIONS = 'function double(x) { return x * 2 }\nasync function slowInc(x) { return x + 1 }'

/** A program of the generator: its source and what its entry is called with. */
export interface Generated {
  readonly source: string
  readonly args: { xs: number[]; k: number }
}

export function generate(rnd: () => number): Generated {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const used = new Set<Helper>()
  const use = (h: Helper): void => {
    used.add(h)
    for (const u of h.uses ?? []) used.add(HELPERS.find((x) => x.name === u)!)
  }
  let isAsync = false
  let locals = 0
  let names = 0
  let namedF = false
  // Variables in scope at the point being written (those a function argument may read), innermost last.
  const scope: string[] = ['k', 'n', 'x']

  /** A function argument: an arrow reading variables of the scopes around it, or a function's name. */
  const fnArg = (depth: number, canAwait: boolean): string => {
    const v = pick(scope)
    const w = pick(scope)
    const param = pick(['y', 'x', 'k', 'i', 'e', 'f'])
    const r = rnd()
    if (r < 0.12) return 'double'
    if (r < 0.2 && locals > 0) return `inc${Math.floor(rnd() * locals)}`
    // Local functions named as the helpers' function parameters.
    if (r < 0.24 && namedF) return pick(['f', 'g'])
    if (r < 0.28 && canAwait) return `async (${param}) => (await slowInc(${param})) + ${v}`
    if (r < 0.31 && canAwait) return `() => slowInc(${v})`
    // A block body returning an async call, awaited as the expression body is.
    if (r < 0.34 && canAwait) return rnd() < 0.5 ? `() => { return slowInc(${v}) }` : `(${param}) => { if (${param} > 2) return slowInc(${param}); const t = ${w}; return slowInc(t) }`
    if (r < 0.42) return `function (${param}) { return ${param} * 2 + ${v} }`
    if (r < 0.5 && depth < 2) return `(${param}) => ${call(depth + 1, false, param)}`
    if (r < 0.58) return `(${param}) => { const t = ${param} + ${w}; return t * 3 + ${v} }`
    return `(${param}) => ${param} + ${v} * 2 - ${w}`
  }

  /** A call of a helper with a function argument. */
  const call = (depth: number, canAwait: boolean, v = pick(scope)): string => {
    const h = pick(HELPERS.filter((x) => canAwait || !x.async))
    use(h)
    if (h.async) isAsync = true
    // An async function passed to a helper that does not await it is a promise JavaScript computes with: not written.
    // `comp` takes two functions: the second is written here, the text before the value.
    return h.call(fnArg(depth, !!h.async), h.name === 'comp' ? `${fnArg(depth, false)}, ${v}` : v)
  }

  /** An expression holding such a call, in one of several positions. */
  const expr = (canAwait: boolean): string => {
    const r = rnd()
    if (r < 0.15) return `(k > 2 ? ${call(0, canAwait)} : ${call(0, canAwait)})`
    if (r < 0.25) return `(n > 0 && ${call(0, canAwait)})`
    if (r < 0.4) {
      const p = pick(['x', 'k', 'y', 'e'])
      scope.push(p)
      const e = `xs.map((${p}) => ${call(0, false)})`
      scope.pop()
      return e
    }
    if (r < 0.5) {
      scope.push('q')
      const e = `xs.filter((q) => { const m = q + 1; return ${call(0, false, 'm')} > 3 })`
      scope.pop()
      return e
    }
    return call(0, canAwait)
  }

  /** A statement pushing such values to `out`. */
  const statement = (): string => {
    const r = rnd()
    if (r < 0.06) {
      // Async helpers run side by side (Promise.all is a statement's whole value in AJS), each given a function reading the callback's parameter.
      isAsync = true
      const h = pick(HELPERS.filter((x) => x.async))
      use(h)
      scope.push('p')
      const call = h.call(fnArg(0, true), 'p').replace(/^\(await (.*)\)$/, '$1')
      scope.pop()
      const name = `all${names++}`
      return `const ${name} = await Promise.all(xs.map((p) => ${call}))\n  out.push(${name})`
    }
    if (r < 0.15) return `if (k > 1) out.push(${expr(true)})\n  else out.push(${expr(true)})`
    if (r < 0.3) {
      const v = pick(['x', 'i', 'f', 'e'])
      scope.push(v)
      const s = `for (const ${v} of xs) out.push(${expr(true)})`
      scope.pop()
      return s
    }
    if (r < 0.4) {
      scope.push('j')
      const s = `for (let j = 0; j < 2; j++) out.push(${expr(true)})`
      scope.pop()
      return s
    }
    if (r < 0.5) {
      const w = `w${names++}`
      scope.push(w)
      return `let ${w} = 0\n  while (${w}++ < 2) out.push(${expr(true)})`
    }
    if (r < 0.6) {
      // `e` is an object AJS and JavaScript print differently (and a number's `.message.length` throws only in JavaScript): its message's length is read.
      scope.push('em')
      const s = `try { throw new Error('m') } catch (e) { const em = e.message.length; out.push(${call(0, true, 'em')}) }`
      scope.pop()
      return s
    }
    if (r < 0.7) {
      // A local function taking a function, called here.
      const name = `loc${names++}`
      const s = `const ${name} = (g, v) => g(v) + n\n  out.push(${name}(${fnArg(0, false)}, ${pick(scope)}))`
      return s
    }
    if (r < 0.75 && !namedF) {
      namedF = true
      return `const f = (v) => v * 3 + ${pick(scope)}\n  function g(v) { return v - ${pick(scope)} }`
    }
    if (r < 0.8) {
      const name = `inc${locals++}`
      return `const ${name} = (v) => v + ${pick(scope)}`
    }
    if (r < 0.9) {
      // A local function reading the scopes around it, calling a helper itself.
      scope.push('p')
      const name = `lf${names++}`
      const s = `function ${name}(p) { return ${call(0, false, 'p')} }\n  out.push(${name}(k), xs.map(${name}))`
      scope.pop()
      return s
    }
    if (r < 0.93) {
      // A local function passing its function parameter on to itself, and an async one awaiting it.
      const name = `go${names++}`
      if (rnd() < 0.5) return `function ${name}(f, m) { return m > 0 ? ${name}(f, m - 1) + f(m) : 0 }\n  out.push(${name}(${fnArg(0, false)}, ${pick(scope)} % 3))`
      isAsync = true
      return `const ${name} = async (g, m) => { try { return await g(m) } catch (e) { return -1 } }\n  out.push(await ${name}(${fnArg(0, true)}, ${pick(scope)}))`
    }
    if (r < 0.945) {
      // A let reassigned around an async helper's call awaited at once, read by the function passed.
      isAsync = true
      const h = pick(HELPERS.filter((x) => x.async))
      use(h)
      const acc = `acc${names++}`
      scope.push(acc)
      const s = `let ${acc} = 1\n  for (const i of xs) ${acc} += ${h.call(`(y) => y + ${acc}`, 'i')}\n  out.push(${acc})`
      return s
    }
    if (r < 0.96) {
      // In a loop's head and in a parameter's default value: the copy is declared before them.
      const name = `dp${names++}`
      return rnd() < 0.5
        ? `for (let j = 0; j < 2 && ${call(0, false)} > -1e9; j++) out.push(j)`
        : `const ${name} = (a, b = ${call(0, false)}) => a + b\n  out.push(${name}(1), xs.map((v) => ${name}(v)))`
    }
    return `out.push(${expr(true)})`
  }

  const body: string[] = ['const n = xs.length', 'let x = 2', 'const out = []']
  const count = 1 + Math.floor(rnd() * 4)
  for (let i = 0; i < count; i++) body.push(statement())
  body.push('return out')
  const helpers = HELPERS.filter((h) => used.has(h)).map((h) => h.source)
  const entry = `${isAsync ? 'async ' : ''}function main({ xs, k }) {\n  ${body.join('\n  ')}\n}`
  return { source: `${TOP_FUNCTIONS}\n${helpers.join('\n')}\n${entry}\n`, args: { xs: [1, 2, 3].slice(0, 1 + Math.floor(rnd() * 3)), k: Math.floor(rnd() * 5) } }
}
