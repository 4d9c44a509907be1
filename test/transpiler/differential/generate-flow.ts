/**
 * Control-flow scenarios for the value differential generator
 * (generate-values.ts): `let` loop bindings seen by callbacks, labelled
 * break/continue in nested loops, switch with fall-through and a default in
 * the middle, try/catch/finally where finally returns or overrides, throws of
 * non-Error values, early returns from loops, while and do-while.
 *
 * A scenario is statements for the entry plus, for some, a helper function
 * (returned separately: helpers are top-level in AJS).
 */
import fc from 'fast-check'

export interface Scenario {
  body: string
  helpers: string[]
}

const pick = <T>(...xs: T[]) => fc.constantFrom(...xs)
let helperId = 0

/** A condition over the loop counters i and j (and n from the arguments). */
const cond = fc.oneof(
  fc.tuple(pick('i', 'j', '(i + j)', '(i * j)', '(i - j)', '(n + i)'), fc.integer({ min: 2, max: 4 }), fc.integer({ min: 0, max: 3 }))
    .map(([e, k, r]) => `${e} % ${k} === ${r}`),
  fc.tuple(pick('i', 'j'), pick('>', '<', '==='), fc.integer({ min: 0, max: 3 })).map(([v, o, k]) => `${v} ${o} ${k}`),
)

const loopHead = (v: string, k: number, kind: number): [string, string] => {
  if (kind === 0) return [`for (let ${v} = 0; ${v} < ${k}; ${v}++) {`, '}']
  if (kind === 1) return [`for (const ${v} of [${Array.from({ length: k }, (_, i) => i).join(', ')}]) {`, '}']
  return [`let ${v}w = 0\nwhile (${v}w < ${k}) {\nconst ${v} = ${v}w++`, '}']
}

/** Labelled loops: continue/break of the outer or inner loop from inside the inner one. */
const labelled = fc.tuple(
  fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }),
  fc.array(fc.tuple(cond, pick('continue outer', 'break outer', 'continue inner', 'break inner', 'continue', 'break')), { minLength: 1, maxLength: 3 }),
  fc.boolean(),
).map(([a, b, ka, kb, exits, afterInner]) => {
  const [oh, oe] = loopHead('i', a, ka)
  const [ih, ie] = loopHead('j', b, kb)
  // The while form declares its counter before the label: a label goes right before its loop.
  const label = (name: string, head: string) => head.startsWith('let ') ? head.replace(/\nwhile/, `\n${name}: while`) : `${name}: ${head}`
  return [label('outer', oh), label('inner', ih), ...exits.map(([c, x]) => `if (${c}) ${x}`), 'out.push(i * 10 + j)', ie,
    afterInner ? "out.push('after' + i)" : '', oe].join('\n')
})

/** A switch over several discriminants: cases with and without break, default anywhere, continue of the loop around it. */
const CASE_LABELS = ['0', '1', '2', "'1'", "'a'", 'null', 'undefined', '(-0)', 'NaN', 'n % 3']
const switches = fc.tuple(
  fc.uniqueArray(pick(...CASE_LABELS), { minLength: 1, maxLength: 5 }),
  fc.integer({ min: 0, max: 5 }),
  fc.array(pick('break', '', 'continue', "out.push('x')"), { minLength: 6, maxLength: 6 }),
).map(([labels, defaultAt, ends]) => {
  const cases = labels.map((l, i) => `case ${l}:\nout.push('c' + ${JSON.stringify(l)})\n${ends[i]}`)
  cases.splice(Math.min(defaultAt, cases.length), 0, `default:\nout.push('d')\n${ends[5]}`)
  return `for (const v of [0, 1, 2, '1', 'a', null, undefined, NaN, -0, 7]) {\nswitch (v) {\n${cases.join('\n')}\n}\nout.push('end')\n}`
})

/** Thrown values: non-Error values of every kind, and errors. */
const THROWN = ["'str'", '42', 'null', 'undefined', '{ code: 7 }', '[1, 2]', "Error('m')", "TypeError('t')", "new RangeError('r')", '0', 'false', '(-0)']
const showCaught = "typeof e === 'object' && e !== null && !Array.isArray(e) && 'message' in e ? e.name + ':' + e.message : show(e)"

type Act = 'none' | 'return' | 'throw' | 'push'
const act = pick<Act>('none', 'return', 'throw', 'push')

/** A helper with try/catch/finally whose parts each may return, throw or fall through. */
const tryHelper = fc.tuple(act, pick<Act | 'rethrow'>('none', 'return', 'throw', 'push', 'rethrow'), act, pick(...THROWN), pick(...THROWN), fc.boolean(), fc.boolean())
  .map(([inTry, inCatch, inFinally, t1, t2, hasCatch, inLoop]) => {
    const name = `tf${helperId++}`
    const line = (a: Act | 'rethrow', where: string, thrown: string) =>
      a === 'return' ? `if (x !== 1) return '${where}' + x` : a === 'throw' ? `if (x > 0) throw ${thrown}` : a === 'push' ? `log.push('${where}')` : a === 'rethrow' ? 'throw e' : ''
    const tryPart = `try {\nlog.push('t' + x)\n${line(inTry === 'none' ? 'throw' : inTry, 'try', t1)}\n}`
    const catchPart = hasCatch ? ` catch (e) {\nlog.push(${showCaught})\n${line(inCatch, 'catch', t2)}\n}` : ''
    const finallyPart = ` finally {\nlog.push('f')\n${line(inFinally, 'finally', t2)}\n}`
    const body = `${tryPart}${catchPart}${hasCatch && inFinally === 'none' ? '' : finallyPart}`
    const wrapped = inLoop ? `for (let k = 0; k < 3; k++) {\nif (k === x) break\n${body}\n}` : body
    const helper = `function ${name}(x, log) {\n${wrapped}\nreturn 'end' + x\n}`
    const call = `for (const x of [0, 1, 2]) {\nconst log = []\ntry {\nout.push(show(${name}(x, log)))\n} catch (e) {\nout.push('escaped', ${showCaught})\n}\nout.push(log)\n}`
    return { body: call, helpers: [helper] }
  })

/** A helper returning from inside nested loops, a switch or a try/finally. */
const earlyReturn = fc.tuple(fc.integer({ min: 0, max: 9 }), pick('for', 'while', 'do', 'switch', 'finally')).map(([t, kind]) => {
  const name = `er${helperId++}`
  const inner = kind === 'switch'
    ? `switch (x % 3) {\ncase 0:\nif (x > t) return 's' + x\nbreak\ndefault:\nacc += x\n}`
    : kind === 'finally' ? `try {\nif (x > t) return 'f' + x\n} finally {\nacc += 1\n}` : `if (x > t) return 'r' + x\nacc += x`
  const loop = kind === 'while'
    ? `let i = 0\nwhile (i < xs.length) {\nconst x = xs[i++]\n${inner}\n}`
    : kind === 'do' ? `let i = 0\ndo {\nconst x = xs[i++] ?? 0\n${inner}\n} while (i < xs.length)` : `for (const x of xs) {\nfor (let r = 0; r < 2; r++) {\n${inner}\n}\n}`
  const helper = `function ${name}(xs, t) {\nlet acc = 0\n${loop}\nreturn acc\n}`
  return { body: `out.push(${name}(xs, ${t}), ${name}([], ${t}), ${name}([${t}, ${t + 1}], ${t}))`, helpers: [helper] }
})

/** Per-iteration `let` bindings seen by callbacks, and the counter changed in the body or by a callback. */
const loopBindings = fc.tuple(fc.integer({ min: 0, max: 5 }), pick('', 'i++', ';[0].forEach(() => { i += 1 })', 'if (i % 2 === 0) continue'), fc.boolean())
  .map(([k, change, twoVars]) => {
    const head = twoVars ? `for (let i = 0, j = ${k}; i < j; i++, j--) {` : `for (let i = 0; i < ${k}; i++) {`
    return `{\nconst seen = []\n${head}\nseen.push([10, 20].map((x) => x + i))\n${change}\nseen.push(xs.filter((x) => x > i).length)\n}\nout.push(seen)\n}`
  })

/** while and do-while with a body that may break or continue. */
const whiles = fc.tuple(fc.integer({ min: -1, max: 4 }), fc.integer({ min: 1, max: 3 }), pick('', 'if (w === 2) continue', 'if (w > 3) break'), fc.boolean())
  .map(([start, step, exit, isDo]) => isDo
    ? `{\nlet w = ${start}\ndo {\nw += ${step}\n${exit}\nout.push(w)\n} while (w < 6)\nout.push('done' + w)\n}`
    : `{\nlet w = ${start}\nwhile (w < 6) {\nw += ${step}\n${exit}\nout.push(w)\n}\nout.push('done' + w)\n}`)

/** One control-flow scenario. */
export const flowScenario: fc.Arbitrary<Scenario> = fc.oneof(
  labelled.map((body) => ({ body: `{\n${body}\n}`, helpers: [] })),
  switches.map((body) => ({ body, helpers: [] })),
  tryHelper,
  earlyReturn,
  loopBindings.map((body) => ({ body, helpers: [] })),
  whiles.map((body) => ({ body, helpers: [] })),
)

/** Call before sampling, so helper names are the same on every run. */
export function resetFlowIds(): void {
  helperId = 0
}
