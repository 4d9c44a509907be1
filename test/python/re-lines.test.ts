/**
 * All matches of a pattern with both `$` under re.M and `\Z`, past the host engine's cap, run on the
 * form runtime/re-lines.ts writes (an end put after the text, a sticky form for the match at the
 * text's end). CPython's answers for texts of 102,000 characters are in the corpus
 * (hand_extended.txt, re-multiline-dollar-z-all-matches-long-text); here: the fuel is linear in the
 * text, so 1.2 million characters run in bounded fuel.
 */
import { expect, test } from 'bun:test'
import { runPythonBlock } from '../../src/python/index.ts'

/** Fuel of `call` on a text of about `n` characters, less that of the same block without it. */
async function fuelOf(call: string, n: number): Promise<number> {
  const run = async (expr: string) => {
    const r = await runPythonBlock(`import re\nt = "xy " * ${n / 3} + "\\nab\\r\\n c"\nr = ${expr}\nreturn {}`, { fuel: 1e6 })
    expect(r.error?.message).toBeUndefined()
    return r.fuelUsed!
  }
  return (await run(call)) - (await run('None'))
}

test('findall, finditer, sub, subn, split and search of $ under re.M with \\Z: 10x the text costs ~10x the fuel', async () => {
  const calls = [
    're.findall(r"\\w+$\\Z|$", t, re.M)', 'list(re.finditer(r"(\\w+)$\\Z|^", t, re.M))', 're.sub(r"\\s*$\\Z", "!", t, flags=re.M)',
    're.subn(r"b+$\\Z|x$", "", t, flags=re.M)', 're.split(r"(\\w*)$\\Z", t, flags=re.M)', 're.search(r"\\w+$\\Z", t, re.M)',
  ]
  for (const call of calls) {
    // Both sizes are past the host engine's cap (10,000 characters for these patterns: degree 2).
    const small = await fuelOf(call, 120_000)
    const large = await fuelOf(call, 1_200_000)
    expect([call, large / small]).toEqual([call, expect.closeTo(10, 0)])
    expect(large).toBeLessThan(100)
  }
})

test('a text holding \\r and all fifteen spare spaces runs past the cap (stand-ins from the private use area): CPython\'s answers', async () => {
  // CPython 3.11: {"v": [[" ", "\r", "b"], "\u2009\u200a\u1680\u202f\u205f!", ["\r"]]}
  const r = await runPythonBlock(`import re
spaces = "\\r" + "".join(chr(c) for c in list(range(0x2000, 0x200b)) + [0x1680, 0x202f, 0x205f, 0x3000])
t = "xy " * 34000 + "\\nab"
return {"v": [re.findall(r"\\w+$\\Z|\\s$", spaces + t + "\\r\\nb", re.M)[-3:], re.sub(r"\\s$\\Z", "!", t + spaces, flags=re.M)[-6:], re.findall(r"[\\r\\ue000]+$", t + spaces + "\\r\\n", re.M)]}`)
  expect(r.error?.message).toBeUndefined()
  expect(r.result).toEqual({ v: [[' ', '\r', 'b'], '\u2009\u200a\u1680\u202f\u205f!', ['\r']] })
})

test('texts that each choose other stand-ins (a form each; a bounded few kept) all match as in CPython', async () => {
  // 70 texts past the cap holding \r, the fifteen spaces and the first k PUA characters: 70 choices.
  // CPython 3.11: {"v": [140, ["ab0", "ab10", "ab100"]]}
  const r = await runPythonBlock(`import re
spaces = "\\r" + "".join(chr(c) for c in list(range(0x2000, 0x200b)) + [0x1680, 0x202f, 0x205f, 0x3000])
p = re.compile(r"(\\w+)\\r?$\\Z|\\r$", re.M)
out = []
for k in range(0, 140, 2):
    t = spaces + "".join(chr(0xe000 + i) for i in range(k)) + "xy " * 4000 + "\\r\\nab" + str(k) + "\\r"
    out.append(len(p.findall(t)))
    out.append(p.findall(t)[-1])
return {"v": [sum(out[::2]), sorted(set(out[1::2]))[:3]]}`, { fuel: 1e6 })
  expect(r.error?.message).toBeUndefined()
  expect(r.result).toEqual({ v: [140, ['ab0', 'ab10', 'ab100']] })
})

test('what may follow a \\Z and reads the same one past the end as at it (characters, classes, groups of them, $) runs past the cap: CPython\'s answers', async () => {
  // CPython 3.11: {"v": [[["ab", ""]], " \na!", [[102002, 102003], [102003, 102003]]]}
  const r = await runPythonBlock(`import re
t = "xy " * 34000 + "\\nab"
return {"v": [re.findall(r"(\\w+)$\\Z(\\s*|x)", t, re.M), re.sub(r"b$\\Z(?:[ab]+|\\n)?", "!", t, flags=re.M)[-4:], [m.span() for m in re.finditer(r"(?P<w>\\w)\\Z.*|$", t, re.M)][-2:]]}`)
  expect(r.error?.message).toBeUndefined()
  expect(r.result).toEqual({ v: [[['ab', '']], ' \na!', [[102002, 102003], [102003, 102003]]] })
})

test('a pattern of an exponential shape with $ under re.M and \\Z (the linear engine on every text) finds all matches on a short text too: CPython\'s answers', async () => {
  // CPython 3.11: {"v": [["ab", ""], "ab!\n!!", ["ab\n", "ab", "", None, ""]]} (a ValueError before, whatever the text)
  const r = await runPythonBlock(`import re
return {"v": [re.findall(r"(a|ab)*$\\Z", "ab\\naab", re.M), re.sub(r"(?:a|ab)+$\\Z|$", "!", "ab\\naab", flags=re.M), re.split(r"(a|ab)*$\\Z", "ab\\naab", flags=re.M)]}`)
  expect(r.error?.message).toBeUndefined()
  expect(r.result).toEqual({ v: [['ab', ''], 'ab!\n!!', ['ab\n', 'ab', '', null, '']] })
})
