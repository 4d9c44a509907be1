/**
 * `re` flags as CPython applies them, where the corpus (hand_extended.txt, re-flags-*) cannot reach:
 * texts beyond the host engine's cap (the linear engine), and what is refused. Under re.M `^` is a
 * lookbehind and `$` a lookahead (CPython's line end is \n only); past the cap `$` runs as
 * runtime/re-lines.ts writes it, and what that cannot take is a ValueError naming the rewrite.
 */
import { expect, test } from 'bun:test'
import { runPythonBlock } from '../../src/python/index.ts'

const run = async (body: string) => {
  const r = await runPythonBlock(`import re\n${body}`)
  return r.error ? { error: r.error.message } : r.result
}

test('re.M, re.S and re.I on a long text (the linear engine) give what CPython gives', async () => {
  // CPython 3.11: {"a": true, "b": [40001, 40003], "c": [true, 2], "f": [true, false]}
  const body = `t = "x" * 40000 + "\\nab"
return {"a": bool(re.fullmatch(r"x+\\n\\w+", t, re.M)), "b": re.search(r"\\w+\\Z", t, re.M).span(),
        "c": [bool(re.fullmatch(r"(?s)x+.ab", t, re.M | re.I)), len(re.findall(r"^\\w+$", t, re.M))],
        "f": [bool(re.fullmatch(r"X+\\nAB", t, re.I)), bool(re.fullmatch(r"x+.ab", t))]}`
  expect(await run(body)).toEqual({ a: true, b: [40001, 40003], c: [true, 2], f: [true, false] })
})

test('fullmatch and \\Z under re.M with ^ or $ on a long text (the linear engine) run: CPython\'s answers', async () => {
  // CPython 3.11: {"v": [true, [0, 40000], [40001, 40003], false, [40001, 40003]]}
  const body = `t = "x" * 40000 + "\\nab"
return {"v": [bool(re.fullmatch(r"x+$\\n\\w+", t, re.M)), re.search(r"^\\w+\\Z", "x" * 40000, re.M).span(), re.search(r"\\w+$\\Z", t, re.M).span(),
              bool(re.fullmatch(r"x+$\\n\\w+", t.replace("\\n", "\\r"), re.M)), re.search(r"\\w+$\\Z", t.replace("\\n", "\\u2028"), re.M).span()]}`
  expect(await run(body)).toEqual({ v: [true, [0, 40000], [40001, 40003], false, [40001, 40003]] })
  // A group ending at \Z ends at the text's end (the end put after the text is none of its characters).
  // CPython 3.11: {"v": [["a", "b"], [40002, 40003], {"z": "b"}, "ab", [0, 40000]]} (fullmatch with its own \\Z too)
  const groups = `t = "x" * 40000 + "\\nab"
m = re.search(r"(a*)(b$\\Z)", t, re.M)
m3 = re.search(r"^(\\w)(?P<z>\\w)$\\Z", t, re.M)
return {"v": [m.groups(), m.span(2), m3.groupdict(), re.fullmatch(r"x+$\\n(\\w+)", t, re.M)[1], re.fullmatch(r"\\w+$\\Z", "x" * 40000, re.M).span()]}`
  expect(await run(groups)).toEqual({ v: [['a', 'b'], [40002, 40003], { z: 'b' }, 'ab', [0, 40000]] })
})

/** A text of \\r and every character re-lines.ts could swap it for: fifteen spaces and the private use area. */
const ALL_STAND_INS = 'ALL = "\\r" + "".join(chr(c) for c in list(range(0x2000, 0x200b)) + [0x1680, 0x202f, 0x205f, 0x3000] + list(range(0xe000, 0xf900)))'

test('what still needs the lookahead on a long text is a ValueError with the rewrite: a text with \\r and every stand-in, a \\Z followed by ^', async () => {
  const refused = [
    ['re.search(r"b+$", t + ALL, re.M)', 'every character that could stand in for them'],
    ['re.findall(r"b+$", t + ALL, re.M)', 'every character that could stand in for them'],
    // After the end put after the text, ^ would read the wrong side of it.
    ['re.search(r"a+$\\Z|(b\\Z)^", t, re.M)', 'a `\\Z` in a lookbehind, in a group repeated by more than `?`, or followed by'],
    ['re.findall(r"(?<=b\\Z)|a+$", t, re.M)', 'a `\\Z` in a lookbehind, in a group repeated by more than `?`, or followed by'],
  ]
  for (const [call, why] of refused) {
    const r = await run(`t = "x" * 40000 + "\\nab"\n${ALL_STAND_INS}\ntry:\n    ${call}\n    return {"r": "ran"}\nexcept ValueError as e:\n    return {"r": str(e)}`) as { r: string }
    expect([call, r.r]).toEqual([call, expect.stringContaining(why!)])
    expect(r.r).toContain('test the text after the match in code')
  }
  // The same calls on a short text run (the host engine): CPython's answers.
  expect(await run(`t = "xx\\nab"\n${ALL_STAND_INS}\nreturn {"v": [re.search(r"b+$", t + ALL, re.M), re.findall(r"b+$", t + ALL, re.M), re.search(r"a+$\\Z|(b\\Z)^", t, re.M), re.findall(r"(?<=b\\Z)|a+$", t, re.M)]}`)).toEqual({ v: [null, [], null, ['']] })
})

test('a compiled pattern\'s pos / endpos: the whole text runs, a window is NotImplementedError (it was ignored)', async () => {
  expect(await run('p = re.compile(r"^b")\nreturn {"v": [bool(p.search("ab", 0)), bool(p.match("b", 0, 5)), bool(p.fullmatch("b", pos=0, endpos=1))]}')).toEqual({ v: [false, true, true] })
  for (const call of ['p.search("ab", 1)', 'p.match("ab", 1)', 'p.findall("ab", endpos=1)', 'p.fullmatch("ab", pos=1)', 'list(p.finditer("ab", 0, 1))']) {
    const r = await run(`p = re.compile(r"^b")\n${call}\nreturn {}`)
    expect([call, r]).toEqual([call, { error: expect.stringContaining("pos and endpos are not supported here: slice the text") }])
  }
})
