/**
 * The published declarations as consumers compile them: the packed package
 * in an empty project, type-checked by tsc under the module settings users
 * have (nodenext as `tsc --init` writes it, node16, bundler, CommonJS with
 * node10 resolution, and a CommonJS file under nodenext), each with
 * skipLibCheck on and off. Builder type errors must stay errors (`s` must
 * not decay to `any`), and no error may come from inside our types.
 */
import { describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { packedApp, sh } from './packed.ts'

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

interface Mode {
  name: string
  /** Consumer package.json "type". */
  type: 'module' | 'commonjs'
  file: string
  options: Record<string, unknown>
}

export const MODES: Mode[] = [
  { name: 'nodenext (tsc --init)', type: 'module', file: 'consumer.ts', options: { module: 'nodenext', target: 'esnext' } },
  { name: 'node16', type: 'module', file: 'consumer.ts', options: { module: 'node16', moduleResolution: 'node16', target: 'es2022' } },
  { name: 'bundler', type: 'module', file: 'consumer.ts', options: { module: 'esnext', moduleResolution: 'bundler', target: 'es2022' } },
  { name: 'commonjs (node10 resolution)', type: 'commonjs', file: 'consumer.ts', options: { module: 'commonjs', moduleResolution: 'node10', target: 'es2022', esModuleInterop: true } },
  { name: 'commonjs file under nodenext', type: 'commonjs', file: 'consumer.cts', options: { module: 'nodenext', target: 'esnext' } },
  { name: 'commonjs file under node16', type: 'commonjs', file: 'consumer.cts', options: { module: 'node16', moduleResolution: 'node16', target: 'es2022' } },
]

const dirOf = (mode: Mode, skipLibCheck: boolean) => `types-${MODES.indexOf(mode)}-${skipLibCheck}`

/** Write every consumer project, then type-check them all in one `tsc -b` (one process shares the parsed declarations). */
let output: string | undefined
function checkAll(): string {
  if (output !== undefined) return output
  const { app } = packedApp()
  const source = readFileSync(join(import.meta.dir, 'consumer/consumer.ts'), 'utf8')
  const dirs: string[] = []
  for (const mode of MODES) {
    for (const skipLibCheck of [false, true]) {
      const dir = join(app, dirOf(mode, skipLibCheck))
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: mode.type }))
      // The browser bundle is ESM only: a CommonJS consumer cannot require it.
      const lines = source.split('\n').map((l) => (mode.type === 'commonjs' && l.endsWith('// esm-only') ? '' : l))
      writeFileSync(join(dir, mode.file), lines.join('\n').replace(', browserVm]', mode.type === 'commonjs' ? ']' : ', browserVm]'))
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
        compilerOptions: { ...mode.options, strict: true, noEmit: true, skipLibCheck, types: [], lib: ['es2023', 'dom'] },
        files: [mode.file],
      }))
      dirs.push(dirOf(mode, skipLibCheck))
    }
  }
  const r = sh('node', [tsc, '-b', ...dirs], app)
  output = r.stdout + r.stderr
  if (r.code !== 0 && output.trim() === '') output = `tsc exited with ${r.code}`
  return output
}

describe('consumer type-check matrix (packed package)', () => {
  for (const mode of MODES) {
    for (const skipLibCheck of [false, true]) {
      test(`${mode.name}, skipLibCheck ${skipLibCheck}`, () => {
        const mine = checkAll().split('\n').filter((l) => l.startsWith(`${dirOf(mode, skipLibCheck)}/`) || l.includes('node_modules/ajs-lang') || l.startsWith('tsc exited'))
        expect(mine).toEqual([])
      }, 180_000)
    }
  }
})
