// A guest's JSON.parse side by side with native JSON.parse of the same text, in one process:
//   node bench/json-parse.mjs <rev> [<rev> ...] [--rounds N]     ('.' is the working tree)
// Each revision of src/ is extracted with `git archive` and bundled with esbuild (bench/lib/revision.mjs).
// Per text, each round runs a ~40 ms batch of native JSON.parse and one of each revision's guest
// `JSON.parse(text)` (vm.run of a one-line program, the text as its argument), in a rotating order, timed
// by the process's CPU time; the figure is the median per-call time over the rounds and ours ÷ native.
// The texts: JSON in a string (double-encoded, as tool-call arguments are), a 67k document with a quoted
// word pair per line, a short string with an escaped quote before such a document, documents in records and
// bare in an array (parsed at once: their colons show every key short, json-keys.ts shortKeys), the same in a record
// and with a colon every 40 characters (too many to read each: the items are read string by string, as before
// 6cd4f4a), a long plain string (base64), and ordinary records.
import { rmSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { bundleRevision, scratchDir } from './lib/revision.mjs'

const argv = process.argv.slice(2)
const roundsAt = argv.indexOf('--rounds')
const rounds = roundsAt >= 0 ? Number(argv[roundsAt + 1]) : 15
const revs = argv.filter((a, k) => !a.startsWith('--') && k !== roundsAt + 1)
if (revs.length === 0) { console.error('usage: node bench/json-parse.mjs <rev> [<rev> ...] [--rounds N]'); process.exit(2) }

/** Records of tool calls whose `arguments` is JSON text of about `per` characters, to about `total` characters. */
function doubleEncoded(total, per) {
  const out = []
  for (let i = 0, len = 2; len < total; i++) {
    const items = []
    for (let k = 0, n = 0; n < per; k++) { const x = { city: 'Paris' + k, n: k, note: k % 7 ? 'x' : 'say "hi"\n' }; items.push(x); n += JSON.stringify(JSON.stringify(x)).length }
    const r = { id: i, tool: 'search', arguments: JSON.stringify(items) }
    out.push(r)
    len += JSON.stringify(r).length + 1
  }
  return JSON.stringify(out)
}
const records = (total) => {
  const out = []
  for (let i = 0, len = 2; len < total; i++) { const r = { id: i, name: 'user' + i, email: `u${i}@x.com`, tags: ['a', 'b'], score: i * 1.5, ok: i % 2 === 0 }; out.push(r); len += JSON.stringify(r).length + 1 }
  return JSON.stringify(out)
}
const doc = JSON.stringify({ id: 1, title: 'doc', body: 'lorem ipsum dolor sit amet, "quoted" text\n'.repeat(1500) })
let seed = 1
const base64 = Array.from({ length: 750_000 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 63]).join('')
const texts = {
  'double-20k': doubleEncoded(18_000, 18_000),
  'double-100k': doubleEncoded(100_000, 30_000),
  'double-1M': doubleEncoded(1_000_000, 45_000),
  'doc-67k': doc,
  'short-then-doc': JSON.stringify({ a: 'x"y', body: 'lorem ipsum dolor sit amet, "quoted" text\n'.repeat(1500) }),
  'docs-3x': JSON.stringify([1, 2, 3].map((id) => ({ id, body: `lorem ipsum dolor sit amet, "quoted" text ${id}\n`.repeat(1200) }))),
  'strings-3x': JSON.stringify([1, 2, 3].map((id) => `lorem ipsum dolor sit amet, "quoted" text ${id}\n`.repeat(1200))),
  'strings-in-rec': JSON.stringify({ results: [1, 2, 3].map((id) => `lorem ipsum dolor sit amet, "quoted" text ${id}\n`.repeat(1200)) }),
  'strings-colon40': JSON.stringify([1, 2, 3].map((id) => `lorem ipsum: dolor, "quoted" text ${id}\n`.repeat(1400))),
  'base64-1M': JSON.stringify({ name: 'image.png', data: base64 + base64.slice(0, 250_000) }),
  'records-1k': records(1_000),
  'records-100k': records(100_000),
  'records-1M': records(1_000_000),
}

const dir = scratchDir('ajs-json-parse-')
const systems = [{ name: 'native', run: (text) => JSON.parse(text) }]
for (const [k, rev] of revs.entries()) {
  const M = await import(pathToFileURL(await bundleRevision(rev, dir, `r${k}`, 'index.ts')).href)
  const vm = new M.AgentVM()
  const { ast } = M.transpile('function main(text) { const v = JSON.parse(text)\nreturn 1 }')
  systems.push({ name: rev, run: (text) => vm.run(ast, { text }, { fuel: 1e9, maxHeapBytes: 1e9 }) })
}
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

console.log(`median per call over ${rounds} rounds (CPU time); ours ÷ native`)
for (const [name, text] of Object.entries(texts)) {
  // Each revision parses it (the values are compared with native in test/security/json-long-keys.test.ts).
  for (const s of systems.slice(1)) {
    const M = await s.run(text)
    if (M.error) throw new Error(`${name} ${s.name}: ${M.error.code} ${M.error.message}`)
  }
  const batch = async (s) => {
    let k = 0
    const t0 = performance.now(), c0 = cpuMs()
    while (performance.now() - t0 < 40) { await s.run(text); k++ }
    return (cpuMs() - c0) / k
  }
  for (const s of systems) { await batch(s); await batch(s) }
  const times = systems.map(() => [])
  for (let r = 0; r < rounds; r++) {
    for (let j = 0; j < systems.length; j++) { const k = (j + r) % systems.length; times[k].push(await batch(systems[k])) }
  }
  const m = times.map(median)
  const cells = systems.slice(1).map((s, k) => `${s.name} ${(m[k + 1] * 1000).toFixed(1)} µs x${(m[k + 1] / m[0]).toFixed(3)}`)
  console.log(`${name.padEnd(15)} ${String(text.length).padStart(8)} chars  native ${(m[0] * 1000).toFixed(1)} µs  ${cells.join('  ')}`)
}
rmSync(dir, { recursive: true, force: true })
