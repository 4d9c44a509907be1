/**
 * The published package: `npm pack`, install the tarball into a temp dir
 * (offline, from the npm cache), and use `ajs-lang`, `ajs-lang/vm` and the
 * `ajsc` bin from plain Node (ESM and CJS).
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'acorn'
import { full as walkFull } from 'acorn-walk'
import { ROOT } from './built.ts'
import { packedApp, sh } from './packed.ts'

let app: string
let tarball: string
const node = (code: string, ext = 'mjs') => {
  const file = join(app, `check.${ext}`)
  writeFileSync(file, code)
  return sh('node', [file], app)
}

beforeAll(() => { ({ app, tarball } = packedApp()) }, 180_000)

/**
 * Budget of the tarball (gzip) and of what it unpacks to (issue 29: 1.46 MB with src/ and docs/;
 * now dist/, the declarations an export reaches, schema/ and bin/: 963,359 bytes when set).
 * Workflow threads, budget tokens, Python's generators, time zones and set order and the VM's
 * layer files took it to 1,043,618 bytes (a84dc54); then 971,927 bytes at dd3cf4a: CommonJS
 * declarations packed next to their ESM twins (dist/types-cjs, -56 KB), CommonJS files minified
 * after conversion (-2 KB), short layer export names (-4 KB), internal modules' overview comments
 * left out of the declarations (-13 KB); 962,689 bytes at d82f549 with croner once for both
 * formats (-9 KB). Raised to 1.06 MB on purpose (issue 27): 1,016,704 bytes after Python's
 * statistics, fractions, special methods of guest classes and generator coroutines (the Python
 * runtime ships three times: ESM, CommonJS and the browser file), lookbehind in the regex part and
 * the server's run threads. Raised to 1.10 MB on purpose: 1,060,795 bytes at 3a1dab1 after Python's
 * decimal module (Decimal, its contexts, exp/ln/log10 and formatting: ~1,500 lines, shipped three
 * times as the rest of the Python runtime), __getattr__/__setattr__ and yield inside finally, and
 * budget tokens in server workflows. Raised to 1.15 MB on purpose: 1,091,740 bytes at 8224d42, 1,129,353
 * at a187be3 (npm pack of each revision's own build: +37.6 KB packed, +111 KB unpacked), for Python's
 * decimal contexts and signal dicts, datetime.strptime and time, deque, match's open sequence patterns
 * (the runtime ships three times), the server's workflow schedules, Date.parse's own reader and the
 * JavaScript fixes of the VM. Raised to 1.22 MB on purpose: 1,194,083 bytes packed at 7715cfb (+64.7 KB over
 * a187be3; the JavaScript files +130 KB unpacked over f4abec5's build): Dates and Maps, two opt-in VM parts each
 * shipped as ESM, CommonJS and a browser file (the browser files 8.5 KB and 3.3 KB), the lowerings of new Set,
 * Intl, Object.groupBy, new Array(n).fill and named callbacks, the VM's long-text defences (linear search, text
 * tokens, the JSON key scan; the VM +4.5 KB in each of its three forms), Python's nonlocal, frozenset, re flags
 * and decimal digit-wise operations (the runtime +4.3 KB, three times), the server's schedule list, edit form,
 * conflict token and bodyless routes, and ajsc's error work. Duplication itself is checked below, independent of size.
 * Raised to 1.24 MB: 1,226,869 bytes packed at cc3ad5d (+32.8 KB over 7715cfb): local functions, module declarations,
 * rest parameters, Set variables, kept Intl formatters, new RegExp, btoa/atob (the transpiler ships in every entry's
 * three forms), the JSON.parse key check that parses long strings once, live Map and Set walks, Python's re.M line
 * ends (runtime/re-lines.ts, three times), the server's schema errors naming the field, and ajsc's args checks.
 * Raised to 1.25 MB: 1,236,595 bytes packed at 4205b7a against 1,231,216 at 4d11517 (each revision's own build,
 * npm pack --dry-run): ajs-lang/vm/cached (its loader as ESM and CommonJS, 3.2 and 3.8 KB, its declarations and
 * dist/browser/scripts.json, the bundles' SHA-256) and the README's cold-start paragraph.
 * Raised to 1.27 MB packed and 4.1 MB unpacked: 1,250,199 bytes packed and 4,005,378 unpacked at 33816c9 against
 * 1,237,717 and 3,968,713 at 4cd44ab (each revision's own build, npm pack --dry-run --ignore-scripts): Python's re
 * past the host engine's cap for all matches (the runtime ships three times), the transpiler's functions passed to
 * helpers, nested local functions and dispatch by computed keys (in every entry's three forms), JSON.parse's key scan.
 * Raised to 1.275 MB packed: 1,271,540 bytes packed at 8c3dbc1 (the clean-clone CI's build) against 1,268,320 at
 * 077923e: the hardening of session 41 (one bounded "did you mean" shared by every frontend, the transpiler's
 * statement depth and stack-overflow guard, the copy budget shared by its passes, bounded tool-schema types,
 * Python's elif chains read in a loop), shipped in each entry's forms.
 */
const TARBALL_BUDGET = { packed: 1_275_000, unpacked: 4_100_000 }

describe('the tarball', () => {
  test(`is lean: at most ${TARBALL_BUDGET.packed} bytes packed, no sources, docs, source maps or build metadata`, () => {
    const size = statSync(tarball).size
    const listing = sh('tar', ['-tzvf', tarball], app).stdout.split('\n').filter(Boolean)
    const unpacked = listing.reduce((n, line) => n + Number(line.split(/\s+/)[2]), 0)
    console.log(`${tarball.split('/').pop()}: ${size} bytes packed, ${unpacked} bytes unpacked, ${listing.length} files`)
    expect(size).toBeLessThanOrEqual(TARBALL_BUDGET.packed)
    expect(unpacked).toBeLessThanOrEqual(TARBALL_BUDGET.unpacked)
    expect(listing.filter((l) => /\.map$|meta\.json$/.test(l))).toEqual([])
    expect(listing.filter((l) => /package\/(src|docs|test|scripts)\//.test(l))).toEqual([])
  })

  test('carries every file its exports, bin and types name (and types without a build step: prepack)', () => {
    const files = new Set(sh('tar', ['-tzf', tarball], app).stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, '')))
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/ajs-lang/package.json'), 'utf8'))
    const targets: string[] = []
    const collect = (v: unknown, key: string): void => {
      if (typeof v === 'string') targets.push(`${key}=${v}`)
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) collect(x, k)
    }
    collect(pkg.exports, '')
    collect({ main: pkg.main, module: pkg.module, types: pkg.types, bin: pkg.bin }, '')
    expect(targets.filter((t) => t.startsWith('bun='))).toEqual([]) // the published exports name no source file
    const missing = targets.map((t) => t.slice(t.indexOf('=') + 1).replace(/^\.\//, '')).filter((f) => !files.has(f))
    expect(missing).toEqual([])
    expect(targets.filter((t) => /\.d\.c?ts$/.test(t)).length).toBeGreaterThan(20)
  })

  test('holds one copy of each module: the VM core appears once per format (the browser bundle aside); acorn is a dependency, not inlined; croner once for both formats', () => {
    const dist = join(app, 'node_modules/ajs-lang/dist')
    const files = sh('find', [dist, '-path', `${dist}/browser`, '-prune', '-o', '-type', 'f', '(', '-name', '*.js', '-o', '-name', '*.cjs', ')', '-print'], app).stdout.split('\n').filter(Boolean)
    for (const ext of ['.js', '.cjs']) {
      expect(files.filter((f) => f.endsWith(ext) && readFileSync(f, 'utf8').includes('Maximum call depth exceeded')).length).toBe(1)
      expect(files.filter((f) => f.endsWith(ext) && readFileSync(f, 'utf8').includes('Unterminated template'))).toEqual([])
    }
    // croner (flow schedules) is one CommonJS file that the ESM chunks import too (scripts/build.mjs SHARED_CJS).
    expect(files.filter((f) => readFileSync(f, 'utf8').includes('CronPattern: Invalid value for')).map((f) => f.slice(dist.length))).toEqual(['/chunks/croner.cjs'])
  })
})

describe('the packed package on plain Node', () => {
  test('ajs-lang (ESM): transpile and run source', () => {
    const r = node(`
      import { AgentVM, transpile, createMemoryStore } from 'ajs-lang'
      const { ast } = transpile('function f({ n }) { storeSet({ key: "n", value: n }); return { n: storeGet({ key: "n" }) * 2 } }')
      const run = await new AgentVM().run(ast, { n: 21 }, { capabilities: { store: createMemoryStore() } })
      console.log(JSON.stringify(run.result))
    `)
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({ n: 42 })
  })

  test('ajs-lang/vm (ESM and CJS) runs an AST without the transpiler', () => {
    const ast = { ajs: 1, op: 'seq', steps: [{ op: 'return', value: { $expr: 'binary', op: '+', left: { $expr: 'literal', value: 1 }, right: { $expr: 'literal', value: 2 } } }] }
    const esm = node(`import { AgentVM } from 'ajs-lang/vm'\nconsole.log(JSON.stringify((await new AgentVM().run(${JSON.stringify(ast)})).result))`)
    expect(esm.stdout.trim()).toBe('3')
    const cjs = node(`const { AgentVM } = require('ajs-lang/vm')\nnew AgentVM().run(${JSON.stringify(ast)}).then((r) => console.log(r.result))`, 'cjs')
    expect(cjs.stdout.trim()).toBe('3')
    const source = node(`import { AgentVM } from 'ajs-lang/vm'\nconst r = await new AgentVM().run('function f() { return {} }')\nconsole.log(r.error.code)`)
    expect(source.stdout.trim()).toBe('SOURCE_NOT_SUPPORTED')
  })

  test('one class identity across entries (ESM and CJS); readable class names in the minified build', () => {
    const check = (load: string) => `
      ${load}
      let thrown
      try { tr.transpile('function f() { return { x: y } }') } catch (e) { thrown = e }
      console.log(JSON.stringify([
        thrown instanceof main.TranspileError, thrown instanceof tr.TranspileError, main.isTranspileError(thrown), thrown.name, thrown.constructor.name,
        new main.AgentVM() instanceof vm.AgentVM, vm.AgentVM.name, main.AgentVM.name, builder.TranspileError === main.TranspileError,
      ]))`
    const expected = [true, true, true, 'TranspileError', 'TranspileError', true, 'AgentVM', 'AgentVM', true]
    const esm = node(check(`import * as main from 'ajs-lang'; import * as vm from 'ajs-lang/vm'; import * as tr from 'ajs-lang/transpiler'; import * as builder from 'ajs-lang/builder'`))
    expect(esm.stderr).toBe('')
    expect(JSON.parse(esm.stdout)).toEqual(expected)
    const cjs = node(check(`const main = require('ajs-lang'), vm = require('ajs-lang/vm'), tr = require('ajs-lang/transpiler'), builder = require('ajs-lang/builder')`), 'cjs')
    expect(cjs.stderr).toBe('')
    expect(JSON.parse(cjs.stdout)).toEqual(expected)
  })

  test('ajs-lang/vm loads no parser: acorn stays out of its module graph', () => {
    const pkgDir = join(app, 'node_modules/ajs-lang')
    for (const entry of ['dist/vm.js', 'dist/vm.cjs']) {
      // Follow what the entry loads, read from each file's syntax tree (minified code has import-like text inside strings).
      const seen = new Set<string>()
      const visit = (file: string) => {
        if (seen.has(file)) return
        seen.add(file)
        const text = readFileSync(join(pkgDir, file), 'utf8')
        expect(text).not.toContain('Unterminated template')
        walkFull(parse(text, { ecmaVersion: 'latest', sourceType: file.endsWith('.cjs') ? 'script' : 'module' }), (n: any) => {
          let spec: string | undefined
          if (n.type === 'ImportDeclaration' || n.type === 'ExportAllDeclaration' || (n.type === 'ExportNamedDeclaration' && n.source)) spec = n.source.value
          if (n.type === 'CallExpression' && n.callee.type === 'Identifier' && n.callee.name === 'require') spec = String(n.arguments[0]?.value)
          if (n.type === 'ImportExpression') spec = 'import()'
          if (spec === undefined) return
          expect(spec.startsWith('./') || spec.startsWith('../')).toBe(true)
          visit(join(file, '..', spec))
        })
      }
      visit(entry)
      expect(seen.size).toBeGreaterThan(1)
    }
  })

  test('ajs-lang/flows (ESM and CJS) checks a cron schedule with the one croner file', () => {
    const check = `
      const flow = (cron) => m.parseSavedFlow({ id: 'f', name: 'f', created_at: 'c', updated_at: 'u', enabled: true, flow: { nodes: [{ id: 'e', node_type: 'entry', data: { schedule_type: 'cron', cron } }], edges: [] } })
      console.log(JSON.stringify([m.scheduleOf(flow('0 */5 * * * *')).type, m.scheduleOf(flow('0 */5 * * * 99'))[0].message]))`
    const expected = ['cron', 'cron "0 */5 * * * 99": CronPattern: Invalid value for dayOfWeek: 99']
    const esm = node(`import * as m from 'ajs-lang/flows'\n${check}`)
    expect(esm.stderr).toBe('')
    expect(JSON.parse(esm.stdout)).toEqual(expected)
    const cjs = node(`const m = require('ajs-lang/flows')\n${check}`, 'cjs')
    expect(cjs.stderr).toBe('')
    expect(JSON.parse(cjs.stdout)).toEqual(expected)
  })

  test('the browser bundle is exported as ajs-lang/browser/vm.min.js', () => {
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/ajs-lang/package.json'), 'utf8'))
    expect(pkg.exports['./browser/vm.min.js'].default).toBe('./dist/browser/vm.min.js')
    const r = node(`import { AgentVM } from 'ajs-lang/browser/vm.min.js'\nconsole.log((await new AgentVM().run({ ajs: 1, op: 'seq', steps: [{ op: 'return', value: { $expr: 'literal', value: 7 } }] })).result)`)
    expect(r.stdout.trim()).toBe('7')
  })

  test('ajs-lang/transpiler, ajs-lang/batteries, the plugins and type declarations are there', () => {
    const r = node(`
      import { transpile } from 'ajs-lang/transpiler'
      import { batteryAtoms } from 'ajs-lang/batteries'
      import { ajsPlugin } from 'ajs-lang/plugins/esbuild'
      import { ajsBunPlugin } from 'ajs-lang/plugins/bun'
      console.log(JSON.stringify([transpile('function f() { return {} }').ast.ajs, batteryAtoms.length, ajsPlugin().name, ajsBunPlugin().name]))
    `)
    expect(JSON.parse(r.stdout)).toEqual([1, 6, 'ajs', 'ajs'])
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/ajs-lang/package.json'), 'utf8'))
    for (const entry of ['.', './vm', './transpiler', './batteries']) {
      const types = pkg.exports[entry].import.types as string
      const dts = readFileSync(join(app, 'node_modules/ajs-lang', types), 'utf8')
      expect(dts).not.toMatch(/from '\.[^']*\.ts'/)
    }
  })

  test('the ajsc bin: version, run, check', () => {
    const bin = join(app, 'node_modules/.bin/ajsc')
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(sh(bin, ['--version'], app).stdout.trim()).toBe(pkg.version)
    writeFileSync(join(app, 'hello.ajs'), readFileSync(join(ROOT, 'examples/hello.ajs'), 'utf8'))
    const run = sh(bin, ['run', 'hello.ajs', '--args', '{"name":"World"}'], app)
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout).greeting).toBe('Hello, World!')
    writeFileSync(join(app, 'bad.ajs'), 'function f() { return x }')
    const check = sh(bin, ['check', 'bad.ajs'], app)
    expect(check.code).toBe(1)
    expect(check.stderr).toContain('bad.ajs:1:23: error AJS3001')
  })
})
