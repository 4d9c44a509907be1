/**
 * ajs-lang/vm/cached: the VM (and the parts asked for) run from a V8 code cache. Each case runs in
 * fresh `node` processes on the built package, since the cache is made when a process exits and
 * used by the next: the first process compiles and writes, the next loads from the cache and gets
 * the same results; a cache V8 refuses is replaced; the default folder is used only when it is
 * this user's alone. Timing is bench/'s (npm run bench, section 3); here only behaviour.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureBuilt, ROOT } from './built.ts'
import { transpile } from '../../src/transpiler/index.ts'
import { scriptSource } from '../../src/host/code-cache.ts'
import { VM_PARTS } from '../../src/vm/parts/names.ts'

const PROGRAMS = {
  plan: transpile("function plan({ city, days }) { const tags = ['food', 'jazz'].map((t) => t.toUpperCase()); return { line: `${days} days in ${city}`, tags, body: JSON.stringify({ q: city }) } }").ast,
  regex: transpile("function f({ city }) { return { m: city.replace(/s+/g, '-') } }").ast,
  map: transpile("function f({ city }) { const m = new Map([[city, 1]]); m.set('x', 2); return { n: m.size, e: [...m] } }").ast,
}

interface Out {
  states: Array<{ script: string; state: string; file: string; reason?: string }>
  results: Record<string, unknown>
  same?: boolean
}

/** One fresh process: loads the VM with `options` (JSON; `parts2` loads more parts after), runs PROGRAMS. */
function child(options: Record<string, unknown>, env: Record<string, string> = {}, format: 'esm' | 'cjs' = 'esm', v8Flags: string[] = []): Out {
  const body = `
    const programs = JSON.parse(process.argv[1]); const o = JSON.parse(process.argv[2])
    const states = []
    const { parts2, ...options } = o
    const vm = loadVm({ ...options, onCodeCache: (e) => states.push(e) })
    const again = parts2 ? loadVm({ ...options, parts: parts2, onCodeCache: (e) => states.push(e) }) : vm
    const agent = new vm.AgentVM()
    const results = {}
    for (const [name, ast] of Object.entries(programs)) {
      const r = await agent.run(ast, { city: 'Lisbon', days: 3 })
      results[name] = r.error ? { code: r.error.code } : r.result
    }
    console.log(JSON.stringify({ states, results, same: again === vm }))`
  const script = format === 'esm'
    ? `const { loadVm } = await import(${JSON.stringify(join(ROOT, 'dist/vm-cached.js'))});${body}`
    : `const { loadVm } = require(${JSON.stringify(join(ROOT, 'dist/vm-cached.cjs'))}); (async () => {${body}})()`
  const r = spawnSync('node', [...v8Flags, ...(format === 'esm' ? ['--input-type=module'] : []), '-e', script, JSON.stringify(PROGRAMS), JSON.stringify(options)], {
    encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000,
  })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout) as Out
}

const PLAN = { line: '3 days in Lisbon', tags: ['FOOD', 'JAZZ'], body: '{"q":"Lisbon"}' }
const stateOf = (out: Out, script: string) => out.states.find((s) => s.script === script)?.state

describe('ajs-lang/vm/cached', () => {
  test('the first process compiles and writes the cache at exit; the next runs from it with the same results', () => {
    ensureBuilt()
    const dir = mkdtempSync(join(tmpdir(), 'ajs-cc-'))
    try {
      const first = child({ cacheDir: dir })
      expect(first.states.map((s) => s.state)).toEqual(first.states.map(() => 'miss'))
      // Every part by default: the VM's and each part's bundle.
      expect(first.states.map((s) => s.script).sort()).toEqual(['vm.min.js', ...VM_PARTS.map((p) => `vm-${p}.min.js`)].sort())
      expect(first.results).toEqual({ plan: PLAN, regex: { m: 'Li-bon' }, map: { n: 2, e: [['Lisbon', 1], ['x', 2]] } })
      const files = readdirSync(dir)
      expect(files.length).toBe(1 + VM_PARTS.length)
      // Named by the bundle's content as the build recorded it, and private to this user.
      const keys = JSON.parse(readFileSync(join(ROOT, 'dist/browser/scripts.json'), 'utf8')) as Record<string, string>
      const vmFile = files.find((f) => f.startsWith('vm.min.js-'))!
      expect(vmFile).toContain(keys['vm.min.js']!)
      expect(statSync(join(dir, vmFile)).mode & 0o777).toBe(0o600)
      expect(statSync(join(dir, vmFile)).size).toBeGreaterThan(10_000)

      const written = statSync(join(dir, vmFile)).mtimeMs
      const second = child({ cacheDir: dir })
      expect(second.states.map((s) => s.state)).toEqual(second.states.map(() => 'hit'))
      expect(second.results).toEqual(first.results)
      // A hit writes nothing.
      expect(statSync(join(dir, vmFile)).mtimeMs).toBe(written)
      expect(readdirSync(dir).sort()).toEqual(files.sort())
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  test('parts: [] is the VM of ajs-lang/vm alone; a later call adds parts to the same module; CommonJS too', () => {
    ensureBuilt()
    const dir = mkdtempSync(join(tmpdir(), 'ajs-cc-'))
    try {
      const bare = child({ cacheDir: dir, parts: [] })
      expect(bare.states.map((s) => s.script)).toEqual(['vm.min.js'])
      expect(bare.results.plan).toEqual(PLAN)
      expect(bare.results.regex).toEqual({ code: 'FEATURE_MISSING' })
      expect(bare.results.map).toEqual({ code: 'FEATURE_MISSING' })
      const more = child({ cacheDir: dir, parts: [], parts2: ['regex'] }, {}, 'cjs')
      expect(more.same).toBe(true)
      expect(more.states.map((s) => [s.script, s.state])).toEqual([['vm.min.js', 'hit'], ['vm-regex.min.js', 'miss']])
      expect(more.results.regex).toEqual({ m: 'Li-bon' })
      expect(more.results.map).toEqual({ code: 'FEATURE_MISSING' })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  test('a damaged or cut cache file is never given to V8 (it would crash the process): compiled from source and replaced', () => {
    ensureBuilt()
    const dir = mkdtempSync(join(tmpdir(), 'ajs-cc-'))
    try {
      child({ cacheDir: dir, parts: [] })
      const file = join(dir, readdirSync(dir)[0]!)
      const good = readFileSync(file)
      // The file holds the script's text, then V8's data: a byte flipped in either is caught.
      const flipped = Buffer.from(good)
      flipped[good.length >> 1]! ^= 0x10
      const textFlipped = Buffer.from(good)
      textFlipped[1000]! ^= 0x01
      expect(good.toString('latin1', 16, 41)).toBe('(function(){"use strict";')
      for (const bad of [flipped, textFlipped, good.subarray(0, good.length >> 1), Buffer.concat([good, Buffer.from([0])]), Buffer.from('AJSC')]) {
        writeFileSync(file, bad)
        const out = child({ cacheDir: dir, parts: [] })
        expect(out.states[0]).toMatchObject({ script: 'vm.min.js', state: 'rejected', reason: 'the cache file is damaged' })
        expect(out.results.plan).toEqual(PLAN)
        expect(readFileSync(file).length).toBeGreaterThan(10_000)
      }
      expect(stateOf(child({ cacheDir: dir, parts: [] }), 'vm.min.js')).toBe('hit')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  test('a cache made under other V8 flags is refused by V8, compiled from source and replaced', () => {
    ensureBuilt()
    const dir = mkdtempSync(join(tmpdir(), 'ajs-cc-'))
    try {
      child({ cacheDir: dir, parts: [] })
      const other = child({ cacheDir: dir, parts: [] }, {}, 'esm', ['--no-opt'])
      expect(other.states[0]).toMatchObject({ state: 'rejected' })
      expect(other.states[0]!.reason).toBeUndefined()
      expect(other.results.plan).toEqual(PLAN)
      expect(stateOf(child({ cacheDir: dir, parts: [] }, {}, 'esm', ['--no-opt']), 'vm.min.js')).toBe('hit')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  test('the default folder is used only when it is this user\'s alone; cacheDir: false compiles every time', () => {
    ensureBuilt()
    const tmp = mkdtempSync(join(tmpdir(), 'ajs-cc-tmp-'))
    try {
      const env = { TMPDIR: tmp }
      const made = child({ parts: [] }, env)
      expect(stateOf(made, 'vm.min.js')).toBe('miss')
      const folder = join(tmp, readdirSync(tmp)[0]!)
      expect(made.states[0]!.file.startsWith(folder)).toBe(true)
      expect(statSync(folder).mode & 0o777).toBe(0o700)
      expect(stateOf(child({ parts: [] }, env), 'vm.min.js')).toBe('hit')
      // Someone else could have written bytecode into it: not read.
      chmodSync(folder, 0o777)
      const open = child({ parts: [] }, env)
      expect(open.states[0]).toMatchObject({ state: 'off', file: '' })
      expect(open.states[0]!.reason).toContain('may be written by other users')
      expect(open.results.plan).toEqual(PLAN)
      // A file where the folder should be.
      rmSync(folder, { recursive: true })
      writeFileSync(folder, 'x')
      expect(child({ parts: [] }, env).states[0]!.reason).toContain('is not a folder')
      const off = child({ cacheDir: false, parts: [] }, env)
      expect(off.states[0]).toMatchObject({ state: 'off', reason: 'cacheDir: false' })
      expect(off.results.plan).toEqual(PLAN)
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  }, 60_000)

  test('worker threads of one process (one pid) that miss and exit together leave a whole cache', () => {
    ensureBuilt()
    const dir = mkdtempSync(join(tmpdir(), 'ajs-cc-'))
    try {
      const inWorker = `const { loadVm } = await import(${JSON.stringify(join(ROOT, 'dist/vm-cached.js'))}); const v = loadVm({ cacheDir: ${JSON.stringify(dir)}, parts: [] }); const r = await new v.AgentVM().run(JSON.parse(${JSON.stringify(JSON.stringify(PROGRAMS.plan))}), { city: 'Lisbon', days: 3 }); if (JSON.stringify(r.result) !== ${JSON.stringify(JSON.stringify(PLAN))}) throw new Error(JSON.stringify(r))`
      const main = `import { Worker } from 'node:worker_threads'
        await Promise.all([1, 2, 3, 4].map(() => new Promise((res, rej) => { const w = new Worker(process.argv[1], { eval: true }); w.on('exit', (c) => c === 0 ? res() : rej(new Error('exit ' + c))); w.on('error', rej) })))`
      const r = spawnSync('node', ['--input-type=module', '-e', main, `(async () => { ${inWorker} })().catch((e) => { console.error(e); process.exit(1) })`], { encoding: 'utf8', timeout: 30_000 })
      expect(r.stderr).toBe('')
      expect(r.status).toBe(0)
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
      expect(stateOf(child({ cacheDir: dir, parts: [] }), 'vm.min.js')).toBe('hit')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  test('an unknown part is a TypeError naming the parts', () => {
    ensureBuilt()
    expect(() => child({ cacheDir: false, parts: ['regexp'] })).toThrow(/unknown part 'regexp'; the parts are regex, schema/)
  }, 30_000)

  test('the parts named are the modules of src/vm/parts (all.ts imports each)', () => {
    const modules = readdirSync(join(ROOT, 'src/vm/parts')).filter((f) => !['all.ts', 'names.ts'].includes(f)).map((f) => f.replace(/\.ts$/, ''))
    expect([...VM_PARTS].sort() as string[]).toEqual(modules.sort())
    const all = readFileSync(join(ROOT, 'src/vm/parts/all.ts'), 'utf8')
    expect([...all.matchAll(/^import '\.\/(\w+)\.ts'$/gm)].map((m) => m[1]).sort()).toEqual([...VM_PARTS].sort() as string[])
  })
})

describe('docs/vm.md, "Cold start: ajs-lang/vm/cached"', () => {
  test('its example runs on the built package: a miss, then a hit', () => {
    ensureBuilt()
    const doc = readFileSync(join(ROOT, 'docs/vm.md'), 'utf8')
    const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((code) => code.includes(`from 'ajs-lang/vm/cached'`))
    expect(blocks.length).toBe(1)
    const tmp = mkdtempSync(join(tmpdir(), 'ajs-cc-doc-'))
    try {
      const file = join(tmp, 'example.mjs')
      writeFileSync(file, blocks[0]!.replace(`from 'ajs-lang/vm/cached'`, `from ${JSON.stringify(join(ROOT, 'dist/vm-cached.js'))}`))
      const run = () => spawnSync('node', [file], { encoding: 'utf8', env: { ...process.env, TMPDIR: tmp }, timeout: 30_000 })
      const first = run()
      expect(first.stderr).toBe('')
      expect(first.stdout).toBe('vm.min.js miss\nvm-regex.min.js miss\n')
      expect(run().stdout).toBe('vm.min.js hit\nvm-regex.min.js hit\n')
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('scriptSource: an ESM bundle as a classic script', () => {
  test('the export clause becomes the returned object; strict mode is kept', () => {
    const src = scriptSource('var a=1;function b(){return this}export{a as A,b as B,a};', 'x.js')
    // The script's value is a function returning the exports (checked by shape, not run: no eval in tests of src).
    expect(src.startsWith('(function(){"use strict";\n')).toBe(true)
    expect(src.endsWith('\nreturn{"A":a,"B":b,"a":a}})')).toBe(true)
  })

  test('a bundle that imports is refused', () => {
    expect(() => scriptSource('import{x}from"y";export{x};', 'x.js')).toThrow(/x.js is not a self-contained bundle/)
    expect(() => scriptSource('var u=import.meta.url;export{u};', 'x.js')).toThrow(/not a self-contained bundle/)
  })
})
