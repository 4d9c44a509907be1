/**
 * `--atoms <module>`: a host module of defineAtom atoms gives `check` and
 * `build` the names to compile against (unknown calls stay refused, with a
 * did-you-mean) and gives `run` and `flow run` the atoms themselves. The
 * fixture modules (test/cli/fixtures/atoms) import `ajs-lang` by name, as a
 * user's module does; ajsc runs with the fixtures as working directory, so
 * `./named.mjs` is resolved from there.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { ajsc } from './run-cli.ts'
import { atomsOfModule, isModuleItem, loadCliAtoms } from '../../src/cli/atoms-module.ts'
import { CliError } from '../../src/cli/io.ts'
import { ensureBuilt } from '../package/built.ts'
import { defineAtom, s } from '../../src/index.ts'

const FIXTURES = resolve(import.meta.dir, 'fixtures/atoms')
let dir: string
const file = (name: string, text: string) => { const p = join(dir, name); writeFileSync(p, text); return p }
/** ajsc with the fixture modules as working directory. */
const inFixtures = (args: string[], input?: string) => ajsc(args, { cwd: FIXTURES, ...(input !== undefined ? { input } : {}) })
const report = (stdout: string) => JSON.parse(stdout) as { command: string; ok: boolean; exitCode: number; diagnostics: Array<Record<string, unknown>>; [k: string]: unknown }

let forecast: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajsc-atoms-'))
  forecast = file('forecast.ajs', 'function forecast({ city }) {\n  return { text: weather({ city }), at: geocode({ city }) }\n}\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ajsc check --atoms <module>', () => {
  test('named exports: calls of the module\'s atoms compile; other exports are ignored', () => {
    const r = inFixtures(['check', '--atoms', './named.mjs', forecast])
    expect(r.stderr).toContain('1 file checked: no errors')
    expect(r.code).toBe(0)
  })

  test('without --atoms the same file is refused (the CLI knows its atom table)', () => {
    const r = inFixtures(['check', forecast])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('error AJS3002: Unknown function `weather`')
    expect(r.stderr).toContain('declare it: --atoms ./atoms.mjs')
  })

  test('an unknown call is refused at compile time, with a did-you-mean from the module\'s names', () => {
    const typo = file('typo.ajs', 'function f({ city }) {\n  return { text: wether({ city }) }\n}\n')
    const r = inFixtures(['check', '--atoms', './named.mjs', typo])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('typo.ajs:2:18: error AJS3002: Unknown function `wether`')
    expect(r.stderr).toContain('hint: Did you mean `weather`?')
    const j = report(inFixtures(['check', '--atoms', './named.mjs', typo, '--json']).stdout)
    expect(j).toMatchObject({ command: 'check', ok: false, exitCode: 1, errors: 1 })
    expect(j.diagnostics[0]).toMatchObject({ code: 'AJS3002', line: 2, column: 18 })
  })

  test('a default export that is an array, or an object, of atoms; repeated and mixed with names', () => {
    const prog = file('mixed.ajs', 'function f({ t, n }) {\n  return [shout({ text: t }), double({ n }), extra({ n })]\n}\n')
    expect(inFixtures(['check', '--atoms', './default-array.mjs', '--atoms', './default-object.mjs', '--atoms', 'extra', prog]).code).toBe(0)
    expect(inFixtures(['check', '--atoms', './default-array.mjs,./default-object.mjs,extra', prog]).code).toBe(0)
    const r = inFixtures(['check', '--atoms', './default-array.mjs', prog])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Unknown function `double`')
  })

  test('a TypeScript module, imported directly under Bun', () => {
    const prog = file('greet.ajs', 'function f({ name }) { return greet({ name }) }\n')
    expect(inFixtures(['check', '--atoms', './typed.ts', prog]).code).toBe(0)
  })

  test('ajsc build --atoms <module> compiles against the module\'s names', () => {
    const out = join(dir, 'forecast.json')
    const r = inFixtures(['build', forecast, '--atoms', './named.mjs', '--outfile', out])
    expect(r.code).toBe(0)
    expect(JSON.parse(readFileSync(out, 'utf8')).atoms).toEqual(['weather', 'geocode'])
  })
})

describe('ajsc run --atoms <module>', () => {
  test('the atoms are installed on the VM: their results are the program\'s', () => {
    const r = inFixtures(['run', '--atoms', './named.mjs', forecast, '--args', '{"city":"Faro"}'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ text: 'Faro: sunny', at: { lat: 4, lon: 0 } })
  })

  test('--json: the one report with the result', () => {
    const r = inFixtures(['run', '--atoms', './named.mjs', forecast, '--args', '{"city":"Oslo"}', '--json'])
    expect(r.code).toBe(0)
    expect(report(r.stdout)).toEqual({ command: 'run', ok: true, exitCode: 0, result: { text: 'Oslo: sunny', at: { lat: 4, lon: 0 } }, fuelUsed: expect.any(Number), diagnostics: [] })
  })

  test('an AST built with --atoms runs with the same module; a TypeScript module and stdin work too', () => {
    const ast = join(dir, 'forecast.built.json')
    expect(inFixtures(['build', forecast, '--atoms', './named.mjs', '--outfile', ast]).code).toBe(0)
    expect(JSON.parse(inFixtures(['run', '--atoms', './named.mjs', ast, '--args', '{"city":"Rome"}']).stdout).text).toBe('Rome: sunny')
    const r = inFixtures(['run', '--atoms', './typed.ts', '-', '--args', '{"name":"Ada"}'], 'function f({ name }) { return greet({ name }) }')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toBe('Hello, Ada!')
  })

  test('names alone cannot run (the VM needs the code): a usage error whose hint is the module form', () => {
    const r = inFixtures(['run', '--atoms', 'weather,geocode', forecast, '--json'])
    expect(r.code).toBe(2)
    const d = report(r.stdout).diagnostics[0]!
    expect(d).toMatchObject({ code: 'CLI_USAGE' })
    expect(d['hint']).toContain('--atoms ./atoms.mjs')
  })
})

describe('ajsc eval and repl --atoms <module>', () => {
  test('eval -p calls an atom of the module', () => {
    const r = inFixtures(['eval', '-p', 'weather({ city: "Faro" })', '--atoms', './named.mjs'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toBe('Faro: sunny')
    expect(inFixtures(['eval', '-p', 'wether({ city: "Faro" })', '--atoms', './named.mjs']).stderr).toContain('Did you mean `weather`?')
  })

  test('repl: every entry may call the module\'s atoms', () => {
    const r = ajsc(['repl', '--atoms', './default-object.mjs'], { cwd: FIXTURES, input: 'let n = double({ n: 21 })\nn + 1\n', env: { AJSC_HISTORY: '' } })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('43')
  })
})

describe('--atoms <module>: errors (stable codes, exit 1, never a stack trace)', () => {
  const noStack = (stderr: string) => expect(stderr).not.toMatch(/^\s+at /m)

  test('a missing module: CLI_ATOMS_NOT_FOUND, the path resolved from the current directory', () => {
    const r = inFixtures(['check', '--atoms', './nope.mjs', forecast, '--json'])
    expect(r.code).toBe(1)
    expect(report(r.stdout)).toMatchObject({ command: 'check', ok: false, exitCode: 1 })
    const d = report(r.stdout).diagnostics[0]!
    expect(d).toMatchObject({ severity: 'error', code: 'CLI_ATOMS_NOT_FOUND', file: './nope.mjs' })
    expect(d['message']).toContain(join(FIXTURES, 'nope.mjs'))
    expect(d['hint']).toContain('resolved from the current directory')
    const text = inFixtures(['run', '--atoms', './nope.mjs', forecast])
    expect(text.code).toBe(1)
    expect(text.stderr).toContain('./nope.mjs: error CLI_ATOMS_NOT_FOUND: no such module')
  })

  test('a module that throws while loading: CLI_ATOMS_LOAD with its message and the line', () => {
    const r = inFixtures(['run', '--atoms', './throws.mjs', forecast])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^\.\/throws\.mjs:3:\d+: error CLI_ATOMS_LOAD: the module failed to load: no API key configured$/m)
    expect(r.stderr).toContain('hint: Fix the module (`node ./throws.mjs` runs it alone')
    noStack(r.stderr)
    expect(report(inFixtures(['check', '--atoms', './throws.mjs', forecast, '--json']).stdout).diagnostics[0]).toMatchObject({ code: 'CLI_ATOMS_LOAD', file: './throws.mjs', line: 3 })
  })

  test('a module with a syntax error: CLI_ATOMS_LOAD', () => {
    file('broken.mjs', 'export const x =\n')
    const r = ajsc(['check', '--atoms', './broken.mjs', forecast], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('error CLI_ATOMS_LOAD: the module failed to load: SyntaxError:')
    noStack(r.stderr)
  })

  test('a module without atoms: CLI_ATOMS_NONE, listing its exports, the hint shows how to export one', () => {
    const r = inFixtures(['check', '--atoms', './none.mjs', forecast])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('./none.mjs: error CLI_ATOMS_NONE: the module exports no atoms (its exports: default, weather)')
    expect(r.stderr).toContain("hint: Export atoms made with defineAtom: `export const myAtom = defineAtom('myAtom'")
  })

  test('an atom the VM cannot take (a language op): CLI_ATOMS_INVALID before anything compiles', () => {
    const r = inFixtures(['check', '--atoms', './clash.mjs', forecast, '--json'])
    expect(r.code).toBe(1)
    expect(report(r.stdout).diagnostics[0]).toMatchObject({ code: 'CLI_ATOMS_INVALID', message: '"if" is a language op and cannot be replaced' })
  })
})

describe('ajsc flow run --atoms <module>: vendor node types', () => {
  test('a SavedFlow with a slack:send_message node runs with the vendor module; without it the hint names --atoms', () => {
    const flow = file('vendor.json', JSON.stringify({
      id: 'vendor-flow', name: 'Vendor', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
      flow: {
        nodes: [{ id: 'e', node_type: 'entry', data: {} }, { id: 's', node_type: 'slack:send_message', data: { channel: '#ops' } }],
        edges: [{ id: 'x', source: 'e', target: 's' }],
      },
    }))
    const r = inFixtures(['flow', 'run', flow, '--atoms', './vendor.mjs'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).last).toEqual({ sent: 'to #ops' })
    const without = inFixtures(['flow', 'run', flow])
    expect(without.code).toBe(1)
    expect(without.stderr).toContain('error FLOW_UNKNOWN_NODE_TYPE')
    expect(without.stderr).toContain('--atoms ./atoms.mjs')
    expect(inFixtures(['flow', 'compile', flow, '--atoms', './vendor.mjs']).code).toBe(0)
  })
})

describe('--atoms on plain Node (the built bin)', () => {
  test('a .mjs module runs; a .ts module is refused with a hint (compile it, or run ajsc with Bun)', () => {
    ensureBuilt()
    const ok = ajsc(['run', '--atoms', './named.mjs', forecast, '--args', '{"city":"Lima"}'], { cwd: FIXTURES, node: true })
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.stdout).text).toBe('Lima: sunny')
    const ts = ajsc(['check', '--atoms', './typed.ts', forecast, '--json'], { cwd: FIXTURES, node: true })
    // Node 23.6+ strips types itself and may import it; older Node refuses with the hint.
    if (ts.code === 1) {
      const d = report(ts.stdout).diagnostics[0]!
      expect(d).toMatchObject({ code: 'CLI_ATOMS_LOAD', file: './typed.ts' })
      expect(d['hint']).toContain('npx esbuild ./typed.ts --format=esm --outfile=./typed.mjs')
      expect(d['hint']).toContain('bunx --bun ajsc')
    } else {
      expect(report(ts.stdout).diagnostics.filter((d) => d['code'] === 'AJS3002').map((d) => d['message'])).toEqual(['Unknown function `weather`'])
    }
  }, 60_000)
})

describe('atoms-module.ts', () => {
  test('a module item is a path or has a module extension; anything else is an atom name', () => {
    for (const m of ['./a.mjs', '../x/atoms', '/abs/atoms', 'atoms.js', 'atoms.cjs', 'atoms.ts', 'atoms.mts', 'C:\\atoms\\a']) expect(isModuleItem(m)).toBe(true)
    for (const n of ['weather', 'slack:send_message', 'my_atom']) expect(isModuleItem(n)).toBe(false)
  })

  test('atoms of a namespace: named, default array/object/atom, deduplicated; others ignored', () => {
    const a = defineAtom('a', s.object({}), s.any, () => 1)
    const b = defineAtom('b', s.object({}), s.any, () => 2)
    expect(atomsOfModule({ a, other: 3, default: [a, b, 'x'] }, 'm').map((x) => x.op)).toEqual(['a', 'b'])
    expect(atomsOfModule({ default: { a, b, n: 1 } }, 'm').map((x) => x.op)).toEqual(['a', 'b'])
    expect(atomsOfModule({ default: b }, 'm').map((x) => x.op)).toEqual(['b'])
    const twin = defineAtom('a', s.object({}), s.any, () => 3)
    expect(() => atomsOfModule({ a, twin }, 'm')).toThrow(CliError)
    expect(() => atomsOfModule({ default: 1 }, 'm')).toThrow('the module exports no atoms (its exports: default)')
  })

  test('loadCliAtoms: names and modules in order, names of the modules\' atoms included', async () => {
    const got = await loadCliAtoms(['./default-array.mjs', 'extra,geocode', './named.mjs'], FIXTURES)
    // A module namespace lists its exports in name order.
    expect(got.names).toEqual(['extra', 'geocode', 'shout', 'whisper', 'weather'])
    expect(got.atoms.map((x) => x.op)).toEqual(['shout', 'whisper', 'geocode', 'weather'])
    expect(got.modules).toEqual(['./default-array.mjs', './named.mjs'])
    expect(await loadCliAtoms(undefined, FIXTURES)).toEqual({ names: [], atoms: [], modules: [] })
  })
})

describe('docs', () => {
  test('the README shows the example module verbatim; its quick-start lines run (readme-cli.test.ts)', () => {
    const root = resolve(import.meta.dir, '../..')
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    expect(readme).toContain(`\`\`\`js\n${readFileSync(join(root, 'examples/custom-atom/atoms.mjs'), 'utf8')}\`\`\``)
    expect(readme).toContain('npx ajsc run examples/custom-atom/forecast.js --atoms examples/custom-atom/atoms.mjs')
    const r = ajsc(['run', 'examples/custom-atom/forecast.js', '--atoms', 'examples/custom-atom/atoms.mjs', '--args', '{"city":"Faro"}'])
    expect(JSON.parse(r.stdout)).toEqual({ summary: 'Faro: rain' })
  })
})
