/**
 * Case tables of the hardening suite (issue 12), one per class. Budgets and
 * limits are stated per case; `maxFuel` is the fuel the run may report.
 */
import { BIG, DAG } from './helpers.ts'
import type { BoundedCase } from './bounds.ts'
import { arr, bin, id, lit, obj, prog, ret } from '../vm/ast.ts'

const MiB16 = 16 * 1024 * 1024
const HEAP = { maxHeapBytes: MiB16 }

/** 1. VM internals are guest data: regex values are opaque and read-only. */
export const REGEX_OPAQUE: BoundedCase[] = [
  { name: 'writing maxInput on a regex', body: "const r = /^(a|a)*$/\nr.maxInput = 1e9\nreturn r.test('a'.repeat(40) + '!')", expect: { code: 'TYPE_ERROR' } },
  { name: 'swapping the host RegExp', body: "const r = /^a$/\nr.re = /(a+)+$/\nreturn r.test('a')", expect: { code: 'TYPE_ERROR' } },
  { name: 'Object.assign onto a regex', body: "const r = /^(a|a)*$/\nObject.assign(r, { maxInput: 1e9, source: 'x' })\nreturn r.test('a'.repeat(40) + '!')", expect: { code: 'TYPE_ERROR' } },
  { name: 'computed write onto a regex', body: "const r = /a/\nconst k = 'max' + 'Input'\nr[k] = 1e9\nreturn 1", expect: { code: 'TYPE_ERROR' } },
  { name: 'delete on a regex', body: 'const r = /a/\ndelete r.source\nreturn r.source', expect: { code: 'TYPE_ERROR' } },
  { name: 'a failed write leaves the regex guarded', body: "const r = /^(a|a)*$/\ntry { r.maxInput = 1e9 } catch (e) {}\nreturn r.test('a'.repeat(50000) + '!')", expect: { result: false } },
  { name: 'keys, values, entries, spread and for-in see nothing', body: 'const r = /a/g\nconst seen = []\nfor (const k in r) seen.push(k)\nreturn [Object.keys(r), Object.values(r), Object.entries(r), { ...r }, seen]', expect: { result: [[], [], [], {}, []] } },
  { name: 'internal names read as undefined', body: "const r = /a/\nreturn [typeof r.re, typeof r.maxInput, typeof r.linear, typeof r.fresh, typeof r['engine'], typeof r.core]", expect: { result: ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined'] } },
  { name: 'regex facts read like JavaScript', body: 'const r = /a+/gi\nreturn [r.source, r.flags, r.global, r.ignoreCase, r.sticky, r.lastIndex]', expect: { result: ['a+', 'gi', true, true, false, 0] } },
  { name: 'a regex-valued property stays opaque', body: "const o = { r: /a/ }\nreturn [JSON.stringify(o), typeof o.r.re, Object.keys(o.r).length]", expect: { result: ['{"r":{}}', 'undefined', 0] } },
  { name: 'a regex returned is its source text', body: 'return { r: /a+/g }', expect: { result: { r: '/a+/g' } } },
  { name: 'match arrays hold no host object', body: "const m = 'ab'.match(/(?<x>a)/)\nreturn [typeof m.groups, Object.keys(m.groups), typeof m.re]", expect: { result: ['object', ['x'], 'undefined'] } },
]

/** Regex results carry JavaScript's `index`, `input` and `groups` (issue 11, point 5). */
export const REGEX_RESULTS: BoundedCase[] = [
  { name: 'named groups of match', body: "const line = 'from 127 x'\nreturn line.match(/(?<ip>\\d+) x/).groups.ip", expect: { result: '127' } },
  { name: 'index of matchAll results', body: "return [...'a1b2c3'.matchAll(/(\\d)/g)].map((m) => m.index)", expect: { result: [1, 3, 5] } },
  { name: 'index and input of exec', body: "const m = /b+/.exec('aabbb')\nreturn [m.index, m.input, m[0]]", expect: { result: [2, 'aabbb', 'bbb'] } },
  { name: 'groups is undefined without named groups', body: "return 'ab'.match(/b/).groups === undefined", expect: { result: true } },
  { name: 'named groups on the linear engine (long input)', body: "const s = 'x'.repeat(200000) + ' 42 x'\nconst m = s.match(/(?<ip>\\d+) x/)\nreturn [m.groups.ip, m.index]", expect: { result: ['42', 200001] }, options: { fuel: 10_000 } },
  { name: 'regexMatch atom result has index', body: "const m = regexMatch({ pattern: 'c', value: 'abc' })\nreturn m.index", expect: { result: 2 } },
]

/** 2. Native work is paid for, and bounded before it starts. */
export const NATIVE_WORK: BoundedCase[] = [
  { name: 'Object.assign of a huge length', body: 'const a = []\nObject.assign(a, { length: 2e8 })\nreturn a.includes(1)', expect: { code: 'HEAP_LIMIT' }, maxFuel: 1 },
  { name: 'Object.assign of a large length is charged per slot', body: 'const a = []\nObject.assign(a, { length: 5e6 })\nreturn a.length', expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 100 } },
  { name: 'includes in a loop', body: 'const a = Array.from({ length: 1e6 })\nlet n = 0\nwhile (true) { if (a.includes(1)) n++ }\nreturn n', expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 300 } },
  { name: 'indexOf in a loop', body: 'const a = Array.from({ length: 1e6 })\nwhile (true) { a.indexOf(1) }\nreturn 1', expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 300 } },
  { name: 'Set.has in a loop', body: 'const a = Array.from({ length: 1e6 })\nwhile (true) { Set.has(a, 1) }\nreturn 1', expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 300 } },
  { name: 'Set.from in a loop', body: 'const a = Array.from({ length: 1e6 })\nwhile (true) { Set.from(a) }\nreturn 1', expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 300 } },
  { name: 'flat in a loop', body: 'const a = Array.from({ length: 1e6 })\nwhile (true) { a.flat() }\nreturn 1', expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 300 } },
  { name: 'keys() in a loop', body: 'const a = Array.from({ length: 1e6 })\nwhile (true) { a.keys() }\nreturn 1', expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 300 } },
  { name: 'JSON.stringify in a loop', body: 'const a = Array.from({ length: 1e6 })\nwhile (true) { JSON.stringify(a) }\nreturn 1', expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 300 } },
  { name: 'long native calls in a loop meet the deadline with a huge budget (includes)', body: 'const a = Array.from({ length: 4e6 })\nwhile (true) { a.includes(1) }\nreturn 1', expect: { code: 'TIMEOUT' }, options: { fuel: 1e12, timeoutMs: 300 } },
  { name: 'long native calls in a loop meet the deadline with a huge budget (slice)', body: 'const a = Array.from({ length: 2e6 })\nwhile (true) { a.slice() }\nreturn 1', expect: { code: 'TIMEOUT' }, options: { fuel: 1e12, timeoutMs: 300 } },
  { name: 'long native calls in a loop meet the deadline with a huge budget (string)', body: "const s = 'ab'.repeat(4e6)\nwhile (true) { s.toUpperCase() }\nreturn 1", expect: { code: 'TIMEOUT' }, options: { fuel: 1e12, timeoutMs: 300 } },
  { name: 'host-engine regex calls in a loop meet the deadline (found by the fuzzer)', body: "const t = 'ab'.repeat(2000)\nlet a = false\nwhile (true) { a = /[a-z]+@/.test(t) }\nreturn a", expect: { code: 'TIMEOUT' }, options: { fuel: 1e12, timeoutMs: 300 } },
  { name: 'host-engine regex calls are charged per character read', body: "const t = 'ab'.repeat(2000)\nlet n = 0\nwhile (true) { if (/[a-z]+@/.test(t)) n++ }\nreturn n", expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 20 } },
  { name: 'string includes in a loop', body: BIG(22) + "while (true) { s.includes('y') }\nreturn 1", expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 300 } },
  { name: 'shared references flattened', body: DAG(30) + 'return a.flat(Infinity).length', expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 300 } },
  { name: 'for-in over a 16M-character string stops at once', body: BIG() + 'for (const k in s) { break }\nreturn 1', expect: { result: 1 }, maxFuel: 400 },
  { name: 'for-of over a 16M-character string stops at once', body: BIG() + 'for (const c of s) { break }\nreturn 1', expect: { result: 1 }, maxFuel: 400 },
  { name: 'destructuring the first character of a 16M-character string', body: BIG() + 'const [c, d] = s\nreturn c + d', expect: { result: 'xx' }, maxFuel: 400 },
  { name: 'for-of over a long string is charged per character', body: BIG(22) + 'let n = 0\nfor (const c of s) { n++ }\nreturn n', expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 300 } },
  { name: 'find over a 16M-character string', body: BIG() + "return [...s].find((c) => c === 'y')", expect: { code: 'HEAP_LIMIT' }, maxFuel: 400 },
  { name: 'the find step over a 16M-character string', program: prog([
    { op: 'varsLet', vars: { s: lit('x'), i: lit(0) } },
    { op: 'while', condition: bin('<', id('i'), lit(24)), body: [{ op: 'varSet', key: 's', value: bin('+', id('s'), id('s')) }, { op: 'varSet', key: 'i', value: bin('+', id('i'), lit(1)) }] },
    { op: 'find', items: id('s'), as: 'c', condition: bin('===', id('c'), lit('y')), result: 'r' },
    ret(id('r')),
  ]), expect: { code: 'HEAP_LIMIT' }, maxFuel: 400 },
  { name: 'Array.from of a 16M-character string', body: BIG() + 'return Array.from(s).length', expect: { code: 'HEAP_LIMIT' }, maxFuel: 400 },
  { name: 'linear regex: an anchored pattern on 3M characters ends at once', body: "const s = 'b'.repeat(3e6)\nlet n = 0\nfor (let i = 0; i < 8; i++) { if (/^a/.test(s)) n++ }\nreturn n", expect: { result: 0 }, maxFuel: 35 },
  { name: 'linear regex on positions where no match is in progress (\\b)', body: "const s = 'b'.repeat(1e6)\nlet n = 0\nfor (let i = 0; i < 8; i++) { if (/\\bq/.test(s)) n++ }\nreturn n", expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 40 } },
  { name: 'linear regex on positions where no match is in progress (^ with m)', body: "const s = 'b'.repeat(1e6)\nlet n = 0\nfor (let i = 0; i < 8; i++) { if (/^a/m.test(s)) n++ }\nreturn n", expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 40 } },
  { name: 'linear regex meets the deadline with a huge budget', body: "const s = 'b'.repeat(1e7)\nwhile (true) { /\\bq/.test(s) }\nreturn 1", expect: { code: 'TIMEOUT' }, options: { fuel: 1e12, timeoutMs: 300 } },
  { name: 'memoize with a key of shared nested arrays', program: prog([
    { op: 'varsLet', vars: { a: arr(lit(1)), i: lit(0) } },
    { op: 'while', condition: bin('<', id('i'), lit(40)), body: [{ op: 'varSet', key: 'a', value: arr(id('a'), id('a')) }, { op: 'varSet', key: 'i', value: bin('+', id('i'), lit(1)) }] },
    { op: 'memoize', key: id('a'), steps: [ret(lit(1))], result: 'm' },
    ret(id('m')),
  ]), expect: { code: 'HEAP_LIMIT' }, options: HEAP, maxFuel: 100 },
  { name: 'cache with a key of shared nested arrays', program: prog([
    { op: 'varsLet', vars: { a: arr(lit(1)), i: lit(0) } },
    { op: 'while', condition: bin('<', id('i'), lit(40)), body: [{ op: 'varSet', key: 'a', value: arr(id('a'), id('a')) }, { op: 'varSet', key: 'i', value: bin('+', id('i'), lit(1)) }] },
    { op: 'cache', key: obj({ k: id('a') }), steps: [ret(lit(1))], result: 'm' },
    ret(id('m')),
  ]), expect: { code: 'HEAP_LIMIT' }, options: HEAP, maxFuel: 100 },
]

/** 3. Memory past `maxHeapBytes`: refused before it is allocated (16 MiB in each case). */
export const MEMORY: BoundedCase[] = [
  { name: 'replaceAll with $` (string pattern)', body: "return 'a'.repeat(1e5).replaceAll('a', '$`').length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: "replace with $' (regex, native engine)", body: "return 'a'.repeat(1e5).replace(/a/g, \"$'\").length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'replaceAll with $& repeated', body: "return 'ab'.repeat(5e5).replaceAll(/ab/g, '$&'.repeat(10)).length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'replace with $` on the linear engine', body: "return 'a'.repeat(3e5).replace(/a|b/g, '$`').length", expect: { code: 'HEAP_LIMIT' }, options: { ...HEAP, fuel: 5_000 } },
  { name: 'template with thousands of placeholders', body: "return template({ template: '{{big}}'.repeat(5000), vars: { big: 'x'.repeat(1e5) } }).length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'template with a large value nested', body: "return template({ template: '{{a.b}}-'.repeat(3000), vars: { a: { b: Array.from({ length: 1000 }).map(() => 'xxxxxxxxxx') } } }).length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'concat of many references to one large array', body: 'const a = Array.from({ length: 1e6 })\nreturn [].concat(a, a, a, a, a, a, a, a, a, a).length', expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'entries() of a large array', body: 'const a = Array.from({ length: 5e5 })\nreturn a.entries().length', expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'Object.entries of a large array', body: 'const a = Array.from({ length: 5e5 })\nreturn Object.entries(a).length', expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'JSON.parse of many empty arrays', body: "return JSON.parse('[' + '[],'.repeat(2e6) + '[]]').length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'JSON.parse of many small numbers', body: "return JSON.parse('[' + '1,'.repeat(3e6) + '1]').length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'match(/a?/g) on 5M characters', body: "return 'a'.repeat(5e6).match(/a?/g).length", expect: { code: 'HEAP_LIMIT' }, options: { ...HEAP, timeoutMs: 10_000 } },
  { name: 'matchAll on a long input', body: "return [...'ab'.repeat(1e6).matchAll(/(a)(b)/g)].length", expect: { code: 'HEAP_LIMIT' }, options: { ...HEAP, timeoutMs: 10_000 } },
  { name: "normalize('NFKC') expansion", body: "return '\\uFDFA'.repeat(1e6).normalize('NFKC').length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'toUpperCase expansion', body: "return '\\u0390'.repeat(3e6).toUpperCase().length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'encodeURIComponent expansion', body: "return encodeURIComponent('\\u0800'.repeat(1e6)).length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'object spread of a long string', body: "const s = 'x'.repeat(1e6)\nreturn Object.keys({ ...s }).length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'Object.keys of a long string', body: "return Object.keys('x'.repeat(1e6)).length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'split of a long string', body: "return 'x'.repeat(4e6).split('').length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'string concat of many copies', body: "const s = 'x'.repeat(1e6)\nreturn s.concat(s, s, s, s, s, s, s, s, s).length", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
]

/** HEAP_LIMIT, FUEL_EXHAUSTED and TIMEOUT stay fatal: no builtin turns them into a catchable error. */
export const FATAL: BoundedCase[] = [
  { name: 'String.fromCodePoint over the heap', body: "try { return String.fromCodePoint(...Array.from({ length: 600 }).map(() => 65)) } catch (e) { return 'caught' }", expect: { code: 'HEAP_LIMIT' }, options: { maxHeapBytes: 1000 } },
  { name: 'decodeURIComponent over the heap', body: "try { return decodeURIComponent('%41'.repeat(600)) } catch (e) { return 'caught' }", expect: { code: 'HEAP_LIMIT' }, options: { maxHeapBytes: 1000 } },
  { name: 'decodeURI over the heap', body: "try { return decodeURI('%41'.repeat(600)) } catch (e) { return 'caught' }", expect: { code: 'HEAP_LIMIT' }, options: { maxHeapBytes: 1000 } },
  { name: 'Array.prototype.with out of fuel', body: 'const a = Array.from({ length: 1e5 })\nlet n = 0\nwhile (true) { try { a.with(0, 1) } catch (e) { n++ } }\nreturn n', expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 100 } },
  { name: 'toFixed out of fuel inside try', body: 'let n = 0\nwhile (true) { try { n.toFixed(2) } catch (e) { n++ } }\nreturn n', expect: { code: 'FUEL_EXHAUSTED' }, options: { fuel: 50 } },
  { name: 'JSON.stringify over the heap inside try', body: DAG() + "try { return JSON.stringify(a) } catch (e) { return 'caught' }", expect: { code: 'HEAP_LIMIT' } },
  { name: 'replace over the heap inside try', body: "try { return 'a'.repeat(1e5).replaceAll('a', '$`') } catch (e) { return 'caught' }", expect: { code: 'HEAP_LIMIT' }, options: HEAP },
  { name: 'a caught HEAP_LIMIT does not let the run go on', body: "let n = 0\nfor (let i = 0; i < 3; i++) { try { 'x'.repeat(1e9) } catch (e) { n++ } }\nreturn n", expect: { code: 'HEAP_LIMIT' } },
  { name: 'timeout inside try', body: "try { while (true) {} } catch (e) { return 'caught' }", expect: { code: 'TIMEOUT' }, options: { fuel: 1e12, timeoutMs: 100 } },
  { name: 'timeout inside try/finally', body: "try { while (true) {} } finally { return 'finally' }", expect: { code: 'TIMEOUT' }, options: { fuel: 1e12, timeoutMs: 100 } },
]
