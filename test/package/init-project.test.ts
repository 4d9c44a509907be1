/**
 * `ajsc init` as a new user runs it: the starter project with the packed
 * package installed (offline, with esbuild), then its own commands: npm
 * test, npm run build (the esbuild plugin compiles the .ajs import) and
 * npm start.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { packedApp, sh } from './packed.ts'

let project: string
beforeAll(() => {
  const { app, tarball } = packedApp()
  const ajsc = join(app, 'node_modules/.bin/ajsc')
  const init = sh(ajsc, ['init', 'starter'], app)
  if (init.code !== 0) throw new Error(`ajsc init failed: ${init.stderr}`)
  project = join(app, 'starter')
  const args = ['install', '--no-audit', '--no-fund', '--ignore-scripts', tarball]
  let r = sh('npm', [...args, '--offline'], project)
  if (r.code !== 0) r = sh('npm', [...args, '--prefer-offline'], project)
  if (r.code !== 0) throw new Error(`npm install failed: ${r.stderr}`)
}, 180_000)

describe('the project ajsc init writes', () => {
  test('npm test passes', () => {
    const r = sh('npm', ['test'], project)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/# pass 2/)
  }, 60_000)

  test('npm run build bundles the app with the .ajs import; npm start runs it', () => {
    const build = sh('npm', ['run', 'build'], project)
    expect(build.code).toBe(0)
    const start = sh('npm', ['start', '--silent', '--', 'Ada'], project)
    expect(start.code).toBe(0)
    expect(start.stdout.trim()).toBe('Hello, Ada!')
  }, 60_000)

  test('npx ajsc runs the agent', () => {
    const r = sh('npx', ['--no-install', 'ajsc', 'run', 'agents/greet.ajs', '--args', '{"name":"Ada","lang":"pt"}'], project)
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ greeting: 'Olá, Ada!' })
  }, 60_000)
})
