/**
 * The VM's opt-in parts (src/vm/parts/): `ajs-lang/vm` without them refuses
 * what needs them by name (FEATURE_MISSING naming the import) and keeps every
 * error code; with them (more browser scripts, registered under
 * `Symbol.for` keys) it behaves as the full entry. Run in fresh `node`
 * processes on the built browser bundles, since this test process has the
 * parts registered (bunfig.toml preload). Also prints and budgets the size of
 * each part (gzip -9, the table in docs/vm.md "Bundle size and opt-in parts").
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { createHash } from 'node:crypto'
import { ensureBuilt, ROOT } from './built.ts'
import { transpile } from '../../src/transpiler/index.ts'
import { VmError } from '../../src/vm/errors.ts'
import { RUNTIME_CODES } from '../../src/diagnostics/runtime-codes.ts'

/** gzip -9 budgets of the opt-in browser bundles (a little headroom; raise only on purpose). */
export const PART_BUDGETS: Record<string, number> = {
  // 9,500: new RegExp(p, flags) at run time (builtins/regex-construct.ts): 9,375 -> 9,472 B (+97), the working tree on 1a04dba.
  'vm-regex.min.js': 9_500,
  'vm-schema.min.js': 2_300,
  'vm-texts.min.js': 2_500,
  'vm-hash.min.js': 1_000,
  'vm-procedures.min.js': 1_500,
  'vm-dates.min.js': 3_800,
  // 1,592 B: +136 B for Map.delete's tombstones (their compaction, the copies and size that skip them), which make a
  // delete O(1) instead of a splice and an index rebuild on the next call (a delete-then-set loop was quadratic).
  // 1,864 B: +257 B for Map.walk, the live walk of for...of and forEach (entries set during the loop reached, deleted
  // ones skipped, across compactions and clears: each entry's number in Index.seqs), where a copy was walked.
  // 2,387 B: +241 B for the statics of a Set kept in a variable (builtins/set-vars.ts), on the index they share
  // with Map's (builtins/ordered-index.ts; 2,146 B without the Set statics, 1,864 B at 79dfe73 before the move).
  // 2,606 B: +219 B for a Set's methods of two Sets (union, intersection, difference, symmetricDifference,
  // isSubsetOf, isSupersetOf, isDisjointFrom: Set.merge and Set.relate).
  'vm-maps.min.js': 2_650,
}

const PROGRAMS = {
  literal: transpile('function f({ s }) { return { m: s.replace(/b+/g, "-") } }').ast,
  pattern: transpile('function f({ s }) { return { m: s.match("b+")[0] } }').ast,
  plain: transpile('function f({ s }) { return { m: s.replace("b", "-").split("").length } }').ast,
  schema: {
    ...transpile('function f({ s }) { return { s } }').ast,
    inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^a' } } },
  },
  // A default's type is in the input schema: plain data, which the VM checks itself.
  typed: transpile('function f({ s, n = 2 }) { return { m: s.repeat(n) } }').ast,
  // `enum` is for tosijs-schema (ajs-lang/vm/schema).
  rich: { ...transpile('function f({ s }) { return { s } }').ast, inputSchema: { type: 'object', properties: { s: { enum: ['abbc', 'x'] } } } },
  atom: transpile('function f({ s }) { return { m: echo({ x: s }) } }').ast,
  spin: transpile('function f() { let i = 0; while (true) { i++ } return { i } }').ast,
  hash: transpile('function f({ s }) { return { h: hash({ value: s }) } }').ast,
  date: transpile('function f({ s }) { const d = new Date(0); d.setUTCDate(40); return { bad: isNaN(new Date(s)), at: d.toISOString(), text: d.toDateString() } }').ast,
  map: transpile("function f({ s }) { const m = new Map([[s, 1]]); m.set('x', 2); return { n: m.size, v: m.get(s), e: [...m] } }").ast,
  set: transpile("function f({ s }) { const t = new Set([s, s, 'y']); t.add('x'); t.delete(s); let w = ''; for (const v of t) w += v; return { n: t.size, h: t.has('x'), e: [...t], w } }").ast,
  store: transpile('function f({ s }) { const t = storeProcedure({ ast: { ajs: 1, op: "seq", steps: [{ op: "return", value: s }] } }); return { ok: t.startsWith("proc_"), r: agentRun({ agentId: t, input: {} }) } }').ast,
}

/** Runs PROGRAMS in a fresh node process on vm.min.js plus the given parts. */
function inFreshProcess(parts: string[]): Record<string, { result?: unknown; code?: string; message?: string; hint?: string; location?: string }> {
  const url = (f: string) => JSON.stringify(`file://${join(ROOT, 'dist/browser', f)}`)
  const script = `
    const { AgentVM, defineAtom } = await import(${url('vm.min.js')})
    ${parts.map((p) => `await import(${url(p)})`).join('\n')}
    const programs = JSON.parse(process.argv[1])
    // A host atom with JSON Schemas: the input's the VM checks itself, the output's (minLength) needs the schema part.
    const echo = defineAtom('echo', { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] }, { type: 'string', minLength: 1 }, ({ x }) => x + '!')
    const vm = new AgentVM({ echo })
    const out = {}
    for (const [name, ast] of Object.entries(programs)) {
      const r = await vm.run(ast, { s: 'abbc' }, name === 'spin' ? { fuel: 5 } : {})
      out[name] = r.error ? { code: r.error.code, message: r.error.message, hint: r.error.hint, ...(name === 'atom' ? { location: r.error.location } : {}) } : { result: r.result }
    }
    // A refusal for a missing part is not cached with the AST: importing the part runs the same object.
    if (${parts.length === 0}) {
      await import(${url('vm-regex.min.js')})
      const r = await vm.run(programs.literal, { s: 'abbc' })
      out.afterImport = r.error ? { code: r.error.code } : { result: r.result }
    }
    console.log(JSON.stringify(out))`
  const r = spawnSync('node', ['--input-type=module', '-e', script, JSON.stringify(PROGRAMS)], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout)
}

describe('ajs-lang/vm and its opt-in parts', () => {
  test('without the parts: regexes are refused naming the import; plain programs run; errors keep their codes', () => {
    ensureBuilt()
    const out = inFreshProcess([])
    for (const name of ['literal', 'pattern', 'schema'] as const) {
      expect({ name, code: out[name]!.code }).toEqual({ name, code: 'FEATURE_MISSING' })
      expect(out[name]!.hint).toContain("'ajs-lang/vm/regex'")
    }
    expect(out.plain).toEqual({ result: { m: 4 } })
    expect(out.afterImport).toEqual({ result: { m: 'a-c' } })
    expect(out.typed).toEqual({ result: { m: 'abbcabbc' } })
    for (const name of ['rich', 'atom'] as const) {
      expect({ name, code: out[name]!.code }).toEqual({ name, code: 'FEATURE_MISSING' })
      expect(out[name]!.hint).toContain("'ajs-lang/vm/schema'")
    }
    expect(out.atom!.message).toContain('the output of echo')
    // Located at the call, like any atom error.
    expect(out.atom!.location).toMatch(/^<ajs>:1:\d+$/)
    expect(out.hash!.code).toBe('FEATURE_MISSING')
    expect(out.hash!.hint).toContain("'ajs-lang/vm/hash'")
    expect(out.store!.code).toBe('FEATURE_MISSING')
    expect(out.store!.hint).toContain("'ajs-lang/vm/procedures'")
    expect(out.date!.code).toBe('FEATURE_MISSING')
    expect(out.date!.hint).toContain("'ajs-lang/vm/dates'")
    expect(out.map!.code).toBe('FEATURE_MISSING')
    expect(out.map!.hint).toContain("'ajs-lang/vm/maps'")
    expect(out.set!.code).toBe('FEATURE_MISSING')
    expect(out.set!.message).toContain('(a Set), and this VM was built without Sets')
    expect(out.set!.hint).toContain("'ajs-lang/vm/maps'")
    // No texts table: the code and the message given where it is raised stay; no generic hint.
    expect(out.spin).toEqual({ code: 'FUEL_EXHAUSTED', message: 'Out of fuel (budget 5)' })
  }, 60_000)

  test('with every part (regex, schema, texts, hash, procedures, dates, maps): the same results as the full entry', () => {
    ensureBuilt()
    const out = inFreshProcess(['vm-regex.min.js', 'vm-schema.min.js', 'vm-texts.min.js', 'vm-hash.min.js', 'vm-procedures.min.js', 'vm-dates.min.js', 'vm-maps.min.js'])
    expect(out.literal).toEqual({ result: { m: 'a-c' } })
    expect(out.pattern).toEqual({ result: { m: 'bb' } })
    expect(out.plain).toEqual({ result: { m: 4 } })
    expect(out.schema).toEqual({ result: { s: 'abbc' } })
    expect(out.typed).toEqual({ result: { m: 'abbcabbc' } })
    expect(out.rich).toEqual({ result: { s: 'abbc' } })
    expect(out.atom).toEqual({ result: { m: 'abbc!' } })
    expect(out.spin).toEqual({ code: 'FUEL_EXHAUSTED', message: 'Out of fuel (budget 5)', hint: RUNTIME_CODES.FUEL_EXHAUSTED.hint })
    // SHA-256 of "abbc"
    expect(out.hash).toEqual({ result: { h: createHash('sha256').update('abbc').digest('hex') } })
    expect(out.store).toEqual({ result: { ok: true, r: 'abbc' } })
    expect(out.map).toEqual({ result: { n: 2, v: 1, e: [['abbc', 1], ['x', 2]] } })
    expect(out.set).toEqual({ result: { n: 2, h: true, e: ['y', 'x'], w: 'yx' } })
    expect(out.date).toEqual({ result: { bad: true, at: '1970-02-09T00:00:00.000Z', text: 'Mon Feb 09 1970' } })
  }, 60_000)

  test('the VM core marks the same codes fatal as the texts table', () => {
    for (const [code, spec] of Object.entries(RUNTIME_CODES)) {
      expect({ code, fatal: new VmError(code).fatal }).toEqual({ code, fatal: (spec as { fatal?: boolean }).fatal === true })
    }
  })

  test('each opt-in part fits its budget (gzip -9)', () => {
    ensureBuilt()
    for (const [file, budget] of Object.entries(PART_BUDGETS)) {
      const code = readFileSync(join(ROOT, 'dist/browser', file))
      const gz = gzipSync(code, { level: 9 }).length
      console.log(`dist/browser/${file}: ${code.length} bytes minified, ${gz} bytes gzip -9 (budget ${budget})`)
      expect({ file, fits: gz <= budget }).toEqual({ file, fits: true })
    }
  }, 60_000)
})
