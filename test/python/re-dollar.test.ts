/**
 * `re`'s `$` as CPython's: without re.M it matches at the end and before a final newline. The runtime
 * writes it `(?=\n?$)`, which the VM's linear engine takes as a test of the position (as `$`), so long
 * inputs (beyond the host engine's cap) match the same, in linear time. Results against CPython for
 * short inputs are in the corpus (hand_extended.txt, re-dollar-*).
 */
import { expect, test } from 'bun:test'
import { runPythonBlock } from '../../src/python/index.ts'
import { LinearRegex } from '../../src/vm/builtins/linear-regex.ts'

test('the linear engine reads (?=\\n?$) as JavaScript does, with and without m', () => {
  const inputs = ['', 'a', 'a\n', 'a\n\n', '\n', 'ba', 'a\nb', 'a\r\n', 'ab\na\n']
  for (const flags of ['', 'm', 'i', 's']) {
    for (const source of ['a(?=\\n?$)', '(?=\\n?$)', 'a+(?=\\n?$)\\n?', '(?:a|b)(?=\\n?$)']) {
      const linear = new LinearRegex(source, flags)
      for (const s of inputs) {
        const host = new RegExp(source, flags).exec(s)
        const m = linear.exec(s, 0, false, () => {}) as { index: number } | null
        expect([source, flags, s, m?.index ?? null]).toEqual([source, flags, s, host?.index ?? null])
      }
    }
  }
})

test('long inputs (the linear engine) match as short ones (the host engine)', async () => {
  const body = (n: number) => `import re\nt = "x" * ${n} + "a\\n"\nreturn {"s": re.search(r"(x+)(a)$", t).span(2), "n": re.findall(r"a$", t), "e": re.sub(r"$", "!", t)[-4:], "none": re.search(r"x+a$", t + "\\n") is None}`
  const short = await runPythonBlock(body(50))
  const long = await runPythonBlock(body(40_000))
  expect(short.error).toBeUndefined()
  expect(long.error).toBeUndefined()
  expect(short.result).toEqual({ s: [50, 51], n: ['a'], e: 'a!\n!', none: true })
  expect(long.result).toEqual({ s: [40_000, 40_001], n: ['a'], e: 'a!\n!', none: true })
})
