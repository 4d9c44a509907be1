/**
 * Size budget of the browser bundle of `ajs-lang/vm` (dist/browser/vm.min.js,
 * minified, dependencies inlined), measured gzipped at level 9. The budget
 * has a little headroom over the current size; raise it only on purpose.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { ensureBuilt, ROOT } from './built.ts'

// Raised from 42 KB to 46 KB on purpose: the linear-time regex engine (~3 KB gzipped)
// replaced refusing polynomial/exponential patterns with running them safely.
// Raised from 46 KB to 48 KB on purpose (issue 12): regex matches streamed and counted, sizes of
// results checked before they are built, scans charged (builtins/regex-ops.ts, builtins/sizes.ts).
// Raised by 160 bytes on purpose (issue 14): AgentVMOptions.functions, the generic hook another
// frontend's runtime plugs into (ajs-lang/python); the Python runtime itself stays out of this bundle.
// Raised by 1.6 KB on purpose (issue 12, second part): input-schema pattern guard, source cache with
// transpile bounds, per-limit-set validation cache, per-tenant procedure quotas, agentRun fuel leases.
// Raised by 1,000 bytes on purpose (issue 11): the items form of `parallel` that `Promise.all(xs.map(...))`
// lowers to (forks on copies of the variables, the PARALLEL_ASSIGN check, linked cancel groups), the
// validator's check of ops with several forms, and pausing loops in helpers and in array callbacks.
// Lowered from 52,012 to 49,000 bytes (issue 28): regular expressions (the guarded host RegExp, the
// ReDoS check and the linear-time engine) and the error texts table are opt-in parts that register
// themselves (ajs-lang/vm/regex, ajs-lang/vm/texts; sizes budgeted in vm-parts.test.ts); the full
// entry, ajsc and the server include them. 55,341 -> 48,630 bytes; the SHA-256 constants computed,
// not listed: 48,119 bytes. Budget 48,500.
// Kept at 48,750 (issue 28): the VM hooks of Python's lazy generators and the in-place operands took
// it to 49,567 bytes; the hash atom's SHA-256 and storeProcedure's body became opt-in parts
// (ajs-lang/vm/hash, ajs-lang/vm/procedures) and loops and && / || share one compare(): 48,647 bytes at 1cf5df3.
// Lowered from 48,750 to 47,700 bytes (issue 28): JSON Schema validation (tosijs-schema) is an opt-in part
// (ajs-lang/vm/schema, with `s`); the VM checks the plain-data schemas the transpiler and s.object write
// itself (args-check.ts), so most programs and atoms need no part. 48,648 B at 19e5604 -> 47,502 B at
// 1c765ac; 47,589 B at 63ddb13 (gzip -9 under Bun, as this test measures: Node's zlib gives ~200 B less).
// Raised from 47,700 to 47,840 bytes on purpose (issue 28, rules ÷ native): `let x = <expr>` and `x = <expr>`
// run as the expression's own specialised closure in a store variant (nested-fusion.ts Into), one
// closure call fewer per store; rules 0.86-0.88 of its time (bench/ab.mjs, both orders). 47,835 B.
// Raised to 47,950 (issue 28, agent-typical): a stored call's location stamp and store in one closure,
// `let n = user.name` in one closure, slot reads in place in object literals and method receivers;
// agent-typical 0.94-0.99 of its time (bench/ab.mjs, three pairs of both orders). 47,948 B.
// 47,960: a template literal reads its variables in place (agent-typical ~0.98, string-build ~0.94). 47,957 B.
// Raised to 48,270 on purpose: `localeCompare` is JavaScript's (Intl.Collator with the locales and options
// given, "en" by default on every host, collators cached, arguments size-checked first) instead of a
// comparison of UTF-16 code units that sorted 'Banana' before 'apple'; and the transpiler and VM share one
// list of callback methods (toSorted). 47,957 -> 48,265 B.
// 48,310: toLocaleLowerCase / toLocaleUpperCase in the locales given (they ignored them: 'I'.toLocaleLowerCase('tr')
// was 'i', not 'ı'), and replace's non-string replacement converted as in JavaScript. 48,303 B.
// 48,500: builtins give JavaScript's results where test/vm/builtin-differential.test.ts found they did not
// (includes/startsWith/endsWith of a regex, padStart/padEnd/repeat bounds, lastIndexOf(x, undefined), flat
// depth, sort's comparator, Object.keys/Array.from of null, Array.from's ToLength, JSON.parse of non-text,
// JSON.stringify's key list charged per object, an array length converted). 48,303 -> 48,489 B.
// 48,640: more of the same (an argument that cannot be converted fails only where it is read, an own property
// hides a method, padStart's empty filler, collator cache keys typed) and a security fix: a locales object's
// length is checked before Intl iterates it ({ length: 'Infinity' } hung the host). 48,489 -> 48,623 B.
// 48,710: Date.parse reads an ISO date and time without a zone as UTC on every host (it was the host's time
// zone: the same program gave other numbers elsewhere, and a replayed workflow could branch otherwise). 48,707 B.
// 48,730: hasOwnProperty of strings and arrays as JavaScript's (it was a TYPE_ERROR). 48,728 B.
// 48,690: localeCompare converts with guestString and Intl's errors go through nativeOp (no copies of either). 48,683 B.
// 48,815: a number's toLocaleString is JavaScript's (Intl.NumberFormat, "en" by default, sharing the collator's
// checks and cache), and every other value's too (it was METHOD_NOT_ALLOWED; models format money with it). +122 B.
// 49,350 on purpose: Date.parse is the VM's own reader (builtins/date-parse.ts): ISO text, what Date's toString /
// toUTCString / toDateString print, RFC 2822 and a few written forms, as V8 reads them in UTC, every other text NaN
// (it was the host engine's legacy parser, which V8, JavaScriptCore and SpiderMonkey do not share). 48,786 -> 49,339 B (+553).
// 49,440: the two above together (toLocaleString 970ed24 on Date.parse 6d0b274): 49,436 B.
// 49,490: JS semantics found by the value differential generator: array holes skipped by the callback methods and
// flat, `in` seeing what objects and arrays inherit, for...in skipping deleted keys (~120 B, inside the 49,440 above),
// then a sort comparator's result read with ToNumber and Object.is (+21 B). A clean worktree at 0594c0c measures
// 49,460 B (not 49,436), HEAD with these 49,481 B.
// 49,600: `throw e` of a caught value keeps the first error's place, code and hint (errors.ts rethrownError;
// the host was told the handler's line, and a rethrown TypeError became THROWN). +104 B.
// 49,690: `in` reads the names objects and arrays inherit from the engine's own methods, read once at load (it
// consulted the live host prototypes, which a host library can add to). 49,579 -> 49,687 B (+108; a written list
// of the names was +200).
// 49,340 (issue 28, the bundle goal): the compiler trusts what validateAst checked; 16 structural checks it
// repeated (callee, method and key strings, lists that must be arrays, declaration kinds, parallel's forms,
// template quasis) are gone (test/vm/validated-shapes.test.ts: each shape is refused by the validator first,
// traced or not). HEAD at b4dbabc measured 49,697 B; 49,697 -> 49,334 B (-363).
// 49,210: the same for the compiler's fences of an expression node, a step, a step list, an assignment target and
// a pattern kind (validateAst checked each; the kind lookup keeps to EXPR_COMPILERS' own keys). 49,330 -> 49,207 B (-123).
// 49,160: Object.hasOwn(o, k) for Object.prototype.hasOwnProperty.call(o, k) in the VM's own lookups (tables, options,
// args; not the guest-facing methods nor guards.ts). 49,207 -> 49,157 B (-50).
// 49,190: toSpliced, which models write beside toSorted / toReversed / with (METHOD_NOT_ALLOWED, uncatchable). +30 B.
// 49,150: Scope.lookupForWrite refuses a constant itself, and one assignedSlot() refuses an undeclared name, for
// assignments, assignment patterns and step results (the same errors, in the same order). 49,187 -> 49,146 B (-41).
// 49,115: the compiler's refusals of a forbidden property name call guards.ts forbidden() (the same error) instead of
// spelling it out at eight sites. 49,146 -> 49,110 B (-36).
// 49,090: EFFECTFUL_CORE_OPS takes the io and procedure ops from the vocabulary's categories (the same list, in the
// same order: test/vm/seed-options.test.ts). 49,110 -> 49,084 B (-26).
// 49,330: structuredClone (a deep copy as JavaScript's: sharing, cycles, holes, NaN, -0 and undefined kept, charged
// per item, 5,000 levels deep at most); it was AJS3002 with a JSON round trip as the hint, which loses them. +240 B.
// 49,390 (security): for...in pays for an object's key list; Intl's locales get "en" last (the host's default locale
// leaked through [] or 'zz') and a long locales array is refused before the engine lists its keys. +60 B.
// 49,420 (security): a hole a callback method skips costs SLOT_COST and a tick; a comparator sort pays the engine's
// copy of the array, and a text it returns is a paid scan (ToNumber reads it whole). +34 B.
// 49,380: the compiler's unknown-operator refusal is gone (validateAst checks every op field against OPERATORS;
// test/vm/validated-shapes.test.ts), and && / || / ?? and their assignments share takesRight(). 49,418 -> 49,375 B (-43).
// 49,890 (security): a long text converted to a number or compared pays per character first (sizes.ts chargeText,
// operators.ts numArg / strictEq / equalsConst, the number-argument positions of string, number and array methods).
// 49,293 -> 49,803 B (+510) in clean copies of af85731^ and 665186d. 50,000: a.includes/indexOf(s), Object.is, a
// default sort and the Set helpers pay for the long texts they compare or hash (sizes.ts chargeTextMatches,
// chargeTexts): 49,916 B at f18e2ed (+623 over af85731^ in all); trim's charge of a long text: 49,981 B at b2318b5.
// 50,070: the 49,981 B above was esbuild's bundle under Node's zlib (/tmp/vmsize.sh); this test's file, dist/browser/vm.min.js
// from scripts/build.mjs under Bun, measures 50,060 B at 321d260 (a clean clone in CI failed at 50,000). No code change.
// 50,200 (security): a text over 64 characters used as a property key pays per character, one over 16,383 is refused
// (V8 hashes it by its length alone: keys of one length collide; sizes.ts chargeKey, guards.ts toKey). +125 B.
// 50,260: Dates (`new Date(...)` and the Date methods) are an opt-in part, ajs-lang/vm/dates (3,404 B, budgeted in
// vm-parts.test.ts); the VM keeps only the hook that finds a Date static or refuses it naming the part (date-hook.ts). +59 B.
// 50,660 (security): a pattern over 64 characters is searched for by Knuth-Morris-Pratt (builtins/text-search.ts), not by
// the engine's search, quadratic at worst in V8 and JavaScriptCore (seconds for one call on 200,000 characters). +385 B.
// 50,860 (security): Date.parse cuts a text over 64 characters to its short form, reading it once (date-parse.ts cut;
// the two expressions backtracked over a long fraction or zone name). 50,693 -> 50,851 B (+158; dce9afd's Set.from, +44 B,
// had taken the 50,649 B of bb404d8 past 50,660).
// 51,150 (security): in the Set helpers a text over 16,383 characters stands in the native Set as a token found through
// its pieces (text-tokens.ts; V8 compared every such text of one length with each other: 9 s for one Set.from).
// 50,911 -> 51,141 B (+230; f6bfd54's Maps, +60 B, had taken ce89962's 50,851 B past 50,860).
// 51,760 (security): JSON.parse refuses an object key over 16,383 characters before the native parse (json.ts checkKeys;
// V8 compared every such key of one length with the others: 5 s for one parse on 2,949 fuel). 51,242 -> 51,716 B (+474)
// in esbuild bundles of clean copies of af38ff2 and 5135646 under Bun (af38ff2 was already past 51,150).
// (51,242 at af38ff2 against 51,150: d0f14ea's Object.groupBy +60 B, 811903e's capability error text +26, 60973fa's
// Array.filled for new Array(n).fill(v) +65, between 51,141 and there.)
// 52,200: s.replace(pattern, callback) and replaceAll with a callback (replace-callback.ts: the matches found first, paid,
// each a metered callback; they were AJS2040). 51,722 -> 52,186 B (+464) at 653e32f.
// 52,700 (JSON.parse speed): a long string full of escaped quotes (JSON in a string, a document of quoted words) is not
// searched for its end before the parse (which cost 0.6 of the parse itself: guest JSON.parse x1.7-2.3 of native); its
// end is guessed, proven by parsing that one string, which is kept and put back into a parse of the rest (json-keys.ts).
// 52,191 -> 52,692 B (+501) in esbuild bundles of clean copies of 4601768 and 4601768 with json.ts and json-keys.ts, under Bun.
// 52,810: the same for documents in records (probes crossed into the next string: `:"` and `,"` now bound the first). +108 B.
// 52,880: an array item of prose (dense commas) is read as before: a guess would cross into the next item. +70 B.
// 52,900: new RegExp(p, flags), the global's table entry (its work is the regex part's): 52,884 -> 52,899 B (+15), clean builds of 4e6e88e~1 and 4e6e88e under Bun.
// 52,960: documents in pretty-printed records read once too (a key's colon, whitespace, then a quote bounds the string before
// it; `:"` only did when compact), and those searches bounded by what a wrong guess is charged. 52,885 -> 52,955 B (+70),
// clean copies of 76a08bd without and with it, under Bun.
// 53,020: btoa and atob (global functions, one builder): 52,947 -> 53,017 B (+70), clean builds of 02cf4dc~1 and a51423c under Bun (measured on those commits alone: the Intl and server commits between touch no VM file).
// 53,040: new RegExp's arguments made texts in the core (so the regex part holds no coercion of its own: -328 B there): 53,017 -> 53,034 B (+17).
// 53,180 (JSON.parse speed): a text whose colons show every object key short (json-keys.ts shortKeys: the quote each colon
// follows and the one before it; fewer than one colon per 256 characters, or per 64 at the first long string read as before)
// is parsed at once: bare arrays of documents were read string by string (x2.1 of native). 53,034 -> 53,178 B (+144).
// 53,210: "did you mean" bounded (diagnostics/suggest.ts, one edit distance for the VM and every frontend): no name over
// 64 letters compared, at most 250,000 letter pairs per error (an AST with three 40,000-letter names took 41 s to refuse). +22 B.
export const BUDGET_GZIP_BYTES = 53_210

describe('browser bundle of ajs-lang/vm', () => {
  test(`fits in ${BUDGET_GZIP_BYTES / 1024} KB gzipped and holds no parser or Node built-ins`, () => {
    ensureBuilt()
    const code = readFileSync(join(ROOT, 'dist/browser/vm.min.js'))
    const gz = gzipSync(code, { level: 9 }).length
    console.log(`dist/browser/vm.min.js: ${code.length} bytes minified, ${gz} bytes gzip -9`)
    expect(gz).toBeLessThanOrEqual(BUDGET_GZIP_BYTES)
    const meta = JSON.parse(readFileSync(join(ROOT, 'dist/browser/meta.json'), 'utf8')) as { inputs: Record<string, unknown> }
    const inputs = Object.keys(meta.inputs)
    expect(inputs.filter((i) => /acorn|src\/transpiler|src\/capabilities|src\/cli/.test(i))).toEqual([])
    expect(code.toString()).not.toMatch(/from\s*"node:/)
  }, 60_000)
})
