/**
 * The Bun plugin at run time, as a user sets it up: `Bun.plugin(ajsBunPlugin())`
 * in a preload script (by `--preload` and by bunfig.toml), in a project with
 * the packed package installed, then `import agent from './x.ajs'`.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { packedApp, sh } from './packed.ts'

let dir: string
beforeAll(() => {
  dir = join(packedApp().app, 'bun-runtime')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'preload.ts'), "import { ajsBunPlugin } from 'ajs-lang/plugins/bun'\nBun.plugin(ajsBunPlugin())\n")
  writeFileSync(join(dir, 'hi.ajs'), 'function hi({ who = "you" }) { return { hi: `hello ${who}` } }\n')
  writeFileSync(join(dir, 'bad.ajs'), 'function bad() {\n  return { x: nope }\n}\n')
  writeFileSync(join(dir, 'main.ts'), [
    "import agent from './hi.ajs'",
    "import { AgentVM } from 'ajs-lang'",
    'const run = await new AgentVM().run(agent, { who: "bun" })',
    'console.log(JSON.stringify({ ajs: agent.ajs, result: run.result }))',
  ].join('\n'))
  writeFileSync(join(dir, 'broken.ts'), "import agent from './bad.ajs'\nconsole.log(agent)\n")
}, 180_000)

const expected = { ajs: 1, result: { hi: 'hello bun' } }

describe('ajsBunPlugin at run time', () => {
  test('bun --preload', () => {
    const r = sh(process.execPath, ['--preload', './preload.ts', 'main.ts'], dir)
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual(expected)
  })

  test('preload from bunfig.toml', () => {
    const sub = join(dir, 'with-bunfig')
    mkdirSync(sub, { recursive: true })
    writeFileSync(join(sub, 'bunfig.toml'), 'preload = ["../preload.ts"]\n')
    writeFileSync(join(sub, 'main.ts'), "import agent from '../hi.ajs'\nconsole.log(JSON.stringify({ ajs: agent.ajs, name: agent.name }))\n")
    const r = sh(process.execPath, ['main.ts'], sub)
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({ ajs: 1, name: 'hi' })
  })

  test('a refused source fails the import with file:line:col and the code', () => {
    const r = sh(process.execPath, ['--preload', './preload.ts', 'broken.ts'], dir)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('bad.ajs:2:15: error AJS3001')
  })
})
