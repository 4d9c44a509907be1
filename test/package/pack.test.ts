/**
 * The published package: `npm pack`, install the tarball into a temp dir
 * (offline, from the npm cache), and use `ajs-lang`, `ajs-lang/vm` and the
 * `ajsc` bin from plain Node (ESM and CJS).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'acorn'
import { full as walkFull } from 'acorn-walk'
import { ensureBuilt, ROOT } from './built.ts'

let dir: string
let app: string
const sh = (cmd: string, args: string[], cwd: string, input?: string) => {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', input, timeout: 120_000 })
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' }
}

beforeAll(() => {
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'ajs-pack-'))
  const packed = sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT)
  if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr}`)
  const tarball = join(dir, JSON.parse(packed.stdout)[0].filename)
  app = join(dir, 'app')
  spawnSync('mkdir', ['-p', app])
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
  let installed = sh('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], app)
  if (installed.code !== 0) installed = sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], app)
  if (installed.code !== 0) throw new Error(`npm install failed: ${installed.stderr}`)
}, 120_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const node = (code: string, ext = 'mjs') => {
  const file = join(app, `check.${ext}`)
  writeFileSync(file, code)
  return sh('node', [file], app)
}

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

  test('ajs-lang/vm is one self-contained file without acorn', () => {
    const pkgDir = join(app, 'node_modules/ajs-lang')
    for (const file of ['dist/vm.js', 'dist/vm.cjs']) {
      const text = readFileSync(join(pkgDir, file), 'utf8')
      // What the file loads, read from its syntax tree (minified code has import-like text inside strings).
      const loads: string[] = []
      const sourceType = file.endsWith('.cjs') ? 'script' : 'module'
      walkFull(parse(text, { ecmaVersion: 'latest', sourceType }), (node: any) => {
        if (node.type === 'ImportDeclaration' || node.type === 'ExportAllDeclaration' || (node.type === 'ExportNamedDeclaration' && node.source)) loads.push(node.source.value)
        if (node.type === 'ImportExpression') loads.push('import()')
        if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'require') loads.push(String(node.arguments[0]?.value))
      })
      expect(loads).toEqual([])
      // acorn's own messages would be inlined if the transpiler had been pulled in.
      expect(text).not.toContain('Unterminated template')
    }
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
      const types = pkg.exports[entry].types as string
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
