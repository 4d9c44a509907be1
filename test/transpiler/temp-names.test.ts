/**
 * The names the lowering makes for values it keeps (`all$N`, `item$N`,
 * `index$N`) are never text of the source: N counts up, skipping every N for
 * which the source holds the name anywhere (`all$12` holds `all$1`), the
 * answer `source.includes(name)` gives. They are found from one scan of the
 * source per prefix; these tests hold that to includes() itself.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'

const BODY = `async function twice(x) { return (await slow({ n: x })) * 2 }
async function main({ n, xs }) {
  const [a, b] = await Promise.all([slow({ n }), slow({ n })])
  const c = await Promise.all(xs.map(twice))
  const d = await Promise.all(xs.map(({ v }) => slow({ n: v })))
  await Promise.all(xs.map(() => slow({ n })))
  return a + b + c.length + d.length
}
`

/** The temp names of `source`'s AST, in the order they were made (by number). */
function tempNames(source: string): string[] {
  const found = JSON.stringify(transpile(source).ast).match(/\b(all|item|index)\$\d+/g) ?? []
  return [...new Set(found)].sort((a, b) => Number(a.split('$')[1]) - Number(b.split('$')[1]))
}

/** The definition: counter values skipped while the source includes the name. */
function expected(source: string, prefixes: string[]): string[] {
  let n = 0
  return prefixes.map((prefix) => {
    let name: string
    do name = `${prefix}$${++n}`
    while (source.includes(name))
    return name
  })
}

describe('temp names', () => {
  test('skip the numbers the source holds after the prefix, and only those', () => {
    const plain = tempNames(BODY)
    expect(plain).toEqual(['all$1', 'all$2', 'item$3', 'index$4', 'all$5', 'item$6', 'item$7'])
    const prefixes = plain.map((s) => s.split('$')[0]!)
    for (const comment of ['all$1 all$12 all$2x', 'xall$1 all$01 all$ item$2', 'index$3345 item$99999 all$1all$2', 'item$1 item$2 item$3 item$4 item$5 item$6 index$7']) {
      const source = `// ${comment}\n${BODY}`
      expect(tempNames(source)).toEqual(expected(source, prefixes))
    }
  })

  test('agree with includes() on generated comments', () => {
    const pieces = ['all$', 'item$', 'index$', '1', '2', '3', '4', '0', 'x', ' ']
    let seed = 7
    const pick = () => pieces[(seed = (seed * 1103515245 + 12345) % 2147483648) % pieces.length]!
    const prefixes = tempNames(BODY).map((s) => s.split('$')[0]!)
    for (let k = 0; k < 200; k++) {
      const source = `// ${Array.from({ length: 12 }, pick).join('')}\n${BODY}`
      expect(tempNames(source)).toEqual(expected(source, prefixes))
    }
  })
})
