/** esbuild and Bun plugins: `.ajs` imports become ASTs; errors land at file:line:col. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { build } from 'esbuild'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsPlugin } from '../../src/plugins/esbuild.ts'
import { ajsBunPlugin, AjsPluginError } from '../../src/plugins/bun.ts'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'

let dir: string
const FLOW = 'function flow({ n }) {\n  return { doubled: n * 2 }\n}\n'
const BROKEN = 'function flow({ n }) {\n  const x = 1\n  return { y: missing + x }\n}\n'

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-plugins-'))
  writeFileSync(join(dir, 'flow.ajs'), FLOW)
  writeFileSync(join(dir, 'broken.ajs'), BROKEN)
  writeFileSync(join(dir, 'app.js'), "import agent from './flow.ajs'\nexport default agent\n")
  writeFileSync(join(dir, 'bad-app.js'), "import agent from './broken.ajs'\nexport default agent\n")
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('esbuild plugin', () => {
  test('import agent from "./flow.ajs" yields the AST', async () => {
    const r = await build({ entryPoints: [join(dir, 'app.js')], bundle: true, write: false, format: 'esm', absWorkingDir: dir, plugins: [ajsPlugin()], logLevel: 'silent' })
    const code = r.outputFiles[0]!.text
    const expected = transpile(FLOW, { filename: 'flow.ajs' }).ast
    const file = join(dir, 'out.mjs')
    writeFileSync(file, code)
    const mod = await import(file)
    expect(mod.default).toEqual(expected)
    expect((await new AgentVM().run(mod.default, { n: 21 })).result).toEqual({ doubled: 42 })
  })

  test('a transpile error is reported to esbuild at file:line:col with the line text', async () => {
    let failure: any
    try {
      await build({ entryPoints: [join(dir, 'bad-app.js')], bundle: true, write: false, absWorkingDir: dir, plugins: [ajsPlugin()], logLevel: 'silent' })
    } catch (e) {
      failure = e
    }
    expect(failure?.errors?.length).toBe(1)
    const [err] = failure.errors
    expect(err.text).toStartWith('AJS3001: `missing` is not declared')
    expect(err.location).toMatchObject({ file: 'broken.ajs', line: 3, column: 14, lineText: '  return { y: missing + x }' })
    expect(err.notes[0].text).toContain('hint:')
  })

  test('custom atoms and filter options', async () => {
    writeFileSync(join(dir, 'custom.flow'), 'function f({ x }) { return { y: myAtom({ x }) } }\n')
    writeFileSync(join(dir, 'custom-app.js'), "import a from './custom.flow'\nexport default a\n")
    const r = await build({ entryPoints: [join(dir, 'custom-app.js')], bundle: true, write: false, absWorkingDir: dir, logLevel: 'silent', plugins: [ajsPlugin({ filter: /\.flow$/, atoms: ['myAtom'], stripLocations: true })] })
    expect(r.outputFiles[0]!.text).toContain('myAtom')
    expect(r.outputFiles[0]!.text).not.toContain('loc:')
  })
})

describe('Bun plugin', () => {
  test('Bun.build with the plugin inlines the AST', async () => {
    const r = await Bun.build({ entrypoints: [join(dir, 'app.js')], plugins: [ajsBunPlugin() as any], target: 'bun' })
    expect(r.success).toBe(true)
    const file = join(dir, 'bun-out.mjs')
    writeFileSync(file, await r.outputs[0]!.text())
    const mod = await import(file)
    expect(mod.default.ajs).toBe(1)
    expect(mod.default.name).toBe('flow')
  })

  test('onLoad returns a JS module exporting the AST (works at run time and in Bun.build), and throws a located error', async () => {
    let onLoad: ((args: { path: string }) => Promise<{ contents: string; loader: string }>) | undefined
    ajsBunPlugin().setup({ onLoad: (_opts, cb) => { onLoad = cb } })
    const ok = await onLoad!({ path: join(dir, 'flow.ajs') })
    expect(ok.loader).toBe('js')
    expect(ok.contents.startsWith('export default ')).toBe(true)
    expect(JSON.parse(ok.contents.slice('export default '.length)).steps[0].op).toBe('return')
    let err: unknown
    try {
      await onLoad!({ path: join(dir, 'broken.ajs') })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(AjsPluginError)
    const e = err as AjsPluginError
    expect(e.message).toMatch(/broken\.ajs:3:15: error AJS3001: `missing` is not declared/)
    expect({ line: e.line, column: e.column, code: e.code }).toEqual({ line: 3, column: 14, code: 'AJS3001' })
  })
})
