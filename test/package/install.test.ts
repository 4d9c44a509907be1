/**
 * What installing the package pulls, and what it asks for (issue 29, item 8; docs/packaging.md).
 *
 * - A VM-only install (`npm install ajs-lang`, nothing else) lists ajs-lang, acorn and commander
 *   in `npm ls --all`: the server's, the MCP SDK's and the Python parser's packages are optional
 *   peers, and a feature that needs one names it with its install command.
 * - No package `npm ci` installs here, nor one a user's install pulls, wants a newer Node than
 *   `engines` promises (20.16): no EBADENGINE.
 * - `tsconfig.json`'s paths (the checkout's `ajs-lang` = src/) match package.json's exports.
 * - After any sequence of build commands, `npm pack` ships the declarations (prepack builds), and
 *   TypeScript under nodenext finds them, with and without skipLibCheck.
 */
import { describe, expect, test } from 'bun:test'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { ROOT } from './built.ts'
import { packedApp, sh } from './packed.ts'

const NODE_MIN = '20.16.0'
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))

describe('a VM-only install', () => {
  test('npm ls --all lists ajs-lang, acorn and commander only', () => {
    const { app } = packedApp()
    const ls = sh('npm', ['ls', '--all', '--parseable'], app)
    const paths = ls.stdout.split('\n').filter(Boolean).slice(1) // the first line is the project itself
    const names = paths.map((p) => p.slice(p.lastIndexOf('node_modules/') + 'node_modules/'.length)).sort()
    const bytes = Number(sh('du', ['-sb', join(app, 'node_modules')], app).stdout.split(/\s/)[0])
    console.log(`npm ls --all of a VM-only install: ${names.length} packages (${names.join(', ')}), node_modules ${(bytes / 1e6).toFixed(2)} MB`)
    expect(names).toEqual(['acorn', 'ajs-lang', 'commander'])
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['acorn', 'commander'])
  }, 180_000)

  test('the optional peers are declared optional, and the repository installs them for its tests', () => {
    for (const name of Object.keys(pkg.peerDependencies)) {
      expect(pkg.peerDependenciesMeta[name]).toEqual({ optional: true })
      expect(pkg.devDependencies[name]).toBe(pkg.peerDependencies[name])
    }
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual(['@lezer/python', '@modelcontextprotocol/sdk', 'fastify', 'graphile-worker', 'pg'])
  })

  test('a feature whose optional dependency is missing names it and the install command', () => {
    // Installed outside the checkout: under it, Node would find the repository's own node_modules.
    const app = mkdtempSync(join(tmpdir(), 'ajs-vm-only-'))
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
    const args = ['install', '--no-audit', '--no-fund', '--ignore-scripts', packedApp().tarball]
    if (sh('npm', [...args, '--offline'], app).code !== 0) expect(sh('npm', [...args, '--prefer-offline'], app).code).toBe(0)
    const bin = join(app, 'node_modules/.bin/ajsc')
    const serve = sh(bin, ['serve', '--port', '0'], app, undefined, { AJS_SERVE_TOKEN: 'x'.repeat(32) })
    expect(serve.code).toBe(1)
    expect(serve.stderr).toContain('CLI_MISSING_DEPENDENCY')
    expect(serve.stderr).toContain('npm install fastify pg graphile-worker')
    const tools = sh(bin, ['flowlang', 'serve-tools', '--root', '.'], app, '')
    expect(tools.code).toBe(1)
    expect(tools.stderr).toContain('npm install @modelcontextprotocol/sdk')
    writeFileSync(join(app, 'py.mjs'), "import { transpilePython } from 'ajs-lang/python'\ntry { transpilePython('return 1') } catch (e) { console.log(JSON.stringify([e.name, e.packages, e.message])) }\n")
    const py = JSON.parse(sh('node', ['py.mjs'], app).stdout)
    expect(py.slice(0, 2)).toEqual(['MissingDependencyError', ['@lezer/python']])
    expect(py[2]).toContain('npm install @lezer/python')
    // What needs none of them still runs (the VM, the transpiler, ajsc run: pack.test.ts).
    expect(sh(bin, ['eval', '-p', '6 * 7'], app).stdout.trim()).toBe('42')
    rmSync(app, { recursive: true, force: true })
  }, 180_000)
})

describe('engines: Node 20.16', () => {
  const satisfies = (range: string) => Bun.semver.satisfies(NODE_MIN, range)
  test(`package.json says >= ${NODE_MIN.replace(/\.0$/, '')}`, () => {
    expect(pkg.engines.node).toBe('>=20.16')
  })

  test('no package in the lockfile (what npm ci installs) wants a newer Node: no EBADENGINE', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> }
    const wants = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.engines && !Array.isArray(p.engines) && p.engines.node && !satisfies(p.engines.node))
      .map(([path, p]) => `${path}@${p.version} wants node ${(p.engines as { node: string }).node}`)
    // fastify's light-my-request >= 6.8 takes cookie 2 (node >= 22): package.json's overrides pin 6.6.0.
    expect(wants).toEqual([])
  })

  test('nor one of a VM-only install', () => {
    const { app } = packedApp()
    const dir = join(app, 'node_modules')
    const names = readdirSync(dir).filter((n) => !n.startsWith('.'))
    for (const name of names) {
      const engines = JSON.parse(readFileSync(join(dir, name, 'package.json'), 'utf8')).engines
      if (engines?.node) expect(`${name}: ${satisfies(engines.node)}`).toBe(`${name}: true`)
    }
  }, 180_000)
})

test("tsconfig.json's paths (the checkout's ajs-lang is src/) cover package.json's exports", () => {
  const text = readFileSync(join(ROOT, 'tsconfig.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '')
  const paths = JSON.parse(text).compilerOptions.paths as Record<string, string[]>
  const subpaths = Object.keys(pkg.exports).filter((k) => !k.endsWith('.json') && !k.startsWith('./browser/'))
  expect(subpaths.map((k) => `ajs-lang${k.slice(1)}`).filter((k) => !paths[k])).toEqual([])
  for (const [name, [target]] of Object.entries(paths)) {
    expect(readFileSync(join(ROOT, target!), 'utf8').length, name).toBeGreaterThan(0)
    expect(pkg.exports[`.${name.slice('ajs-lang'.length)}`], name).toBeDefined()
  }
})

describe('npm pack after any sequence of build commands ships the declarations', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const dir = mkdtempSync(join(tmpdir(), 'ajs-seq-'))
  const checkout = join(dir, 'checkout')
  for (const part of ['bin', 'scripts', 'src', 'schema', 'package.json', 'README.md', 'tsconfig.json', 'tsconfig.build.json']) cpSync(join(ROOT, part), join(checkout, part), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'))
  const typeTargets = (() => {
    const out: string[] = []
    const collect = (v: unknown, key: string): void => {
      if (typeof v === 'string') { if (key === 'types') out.push(v.replace(/^\.\//, '')) } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) collect(x, k)
    }
    collect(pkg.exports, '')
    return [...new Set(out)]
  })()
  const pack = (name: string): string => {
    const out = join(dir, name)
    mkdirSync(out)
    const r = sh('npm', ['pack', '--json', '--pack-destination', out], checkout)
    expect(r.code).toBe(0)
    return join(out, JSON.parse(r.stdout.slice(r.stdout.search(/^\[/m)))[0].filename)
  }
  const listing = (tarball: string) => new Set(sh('tar', ['-tzf', tarball], dir).stdout.split('\n').map((f) => f.replace(/^package\//, '')))
  let first = ''

  test('the first ajsc (dist/ without declarations), then npm pack', () => {
    const r = sh('node', [join(checkout, 'bin/ajsc.js'), 'eval', '-p', '1 + 1'], checkout)
    expect(r.stdout.trim()).toBe('2')
    first = pack('first-run')
    const files = listing(first)
    expect(typeTargets.filter((t) => !files.has(t))).toEqual([])
  }, 300_000)

  test('npm run build, then build --no-types, then npm pack', () => {
    expect(sh('npm', ['run', 'build', '--silent'], checkout).code).toBe(0)
    expect(sh('node', ['scripts/build.mjs', '--no-types', '--quiet'], checkout).code).toBe(0)
    const files = listing(pack('no-types-last'))
    expect(typeTargets.filter((t) => !files.has(t))).toEqual([])
  }, 300_000)

  test('TypeScript under nodenext finds the types of the first tarball, skipLibCheck on and off', () => {
    expect(first).not.toBe('')
    const app = join(dir, 'app')
    mkdirSync(app)
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
    const args = ['install', '--no-audit', '--no-fund', '--ignore-scripts', first]
    let installed = sh('npm', [...args, '--offline'], app)
    if (installed.code !== 0) installed = sh('npm', [...args, '--prefer-offline'], app)
    expect(installed.code).toBe(0)
    expect(installed.stderr).not.toContain('EBADENGINE')
    writeFileSync(join(app, 'consumer.ts'), [
      "import { AgentVM, transpile, type AjsProgram } from 'ajs-lang'",
      "import { AgentVM as VM } from 'ajs-lang/vm'",
      "import { transpile as only } from 'ajs-lang/transpiler'",
      "import { Agent } from 'ajs-lang/builder'",
      "const ast: AjsProgram = transpile('function f() { return {} }').ast",
      'export const all = [new AgentVM(), new VM(), only, Agent, ast]',
      '// @ts-expect-error: the types are real (not any)',
      'export const wrong: number = new VM()',
    ].join('\n'))
    for (const skipLibCheck of [false, true]) {
      writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'esnext', strict: true, noEmit: true, skipLibCheck, types: [], lib: ['es2023', 'dom'] }, files: ['consumer.ts'] }))
      const r = sh('node', [tsc, '-p', '.'], app)
      expect(`skipLibCheck ${skipLibCheck}: ${r.stdout}${r.stderr}`).toBe(`skipLibCheck ${skipLibCheck}: `)
    }
    rmSync(dir, { recursive: true, force: true })
  }, 300_000)
})
