/**
 * `--watch` through the real binary: an editor's rename-on-save, a new file
 * in a watched directory, a deletion (its output removed, and said so, with
 * a timestamp), and `run --watch`. Every wait is bounded; the child is
 * stopped with SIGINT and must exit 0.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './run-cli.ts'

// Each test spawns the real binary, several times; a loaded machine needs more than bun's 5 s.
setDefaultTimeout(30_000)

let dir: string
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'ajsc-watch-')) })
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function start(args: string[], cwd: string) {
  const child = spawn(process.execPath, [join(ROOT, 'src/cli/main.ts'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  const io = { stdout: '', stderr: '' }
  child.stdout!.on('data', (c) => { io.stdout += c })
  child.stderr!.on('data', (c) => { io.stderr += c })
  const waitFor = (cond: () => boolean, what: string) => new Promise<void>((res, rej) => {
    const started = Date.now()
    const tick = () => (cond() ? res() : Date.now() - started > 15_000 ? rej(new Error(`timed out waiting for ${what}; stderr: ${io.stderr}`)) : setTimeout(tick, 25))
    tick()
  })
  return { child, io, waitFor }
}

async function stop(child: ChildProcess): Promise<number | null> {
  child.kill('SIGINT')
  return new Promise((r) => child.on('close', (code) => r(code)))
}

/** Save the way many editors do: write a temporary file, rename it over the original. */
function saveByRename(path: string, text: string) {
  writeFileSync(`${path}.tmp~`, text)
  renameSync(`${path}.tmp~`, path)
}

const json = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '')

describe('ajsc build --watch', () => {
  test('survives rename-on-save, picks up new files, reports deletions with timestamps', async () => {
    const src = join(dir, 'flows')
    mkdirSync(src)
    writeFileSync(join(src, 'a.ajs'), 'function a() { return { v: 1 } }\n')
    const { child, io, waitFor } = start(['build', 'flows', '--outdir', 'out', '--watch'], dir)
    try {
      await waitFor(() => io.stderr.includes('watching'), 'the watcher')
      expect(io.stderr).toMatch(/^\[\d\d:\d\d:\d\d\] watching flows/m)
      expect(json(join(dir, 'out/a.json'))).toContain('"value":1')
      for (const v of [2, 3]) {
        saveByRename(join(src, 'a.ajs'), `function a() { return { v: ${v} } }\n`)
        await waitFor(() => json(join(dir, 'out/a.json')).includes(`"value":${v}`), `rebuild ${v}`)
      }
      writeFileSync(join(src, 'b.ajs'), 'function b() { return { b: true } }\n')
      await waitFor(() => existsSync(join(dir, 'out/b.json')), 'the new file')
      rmSync(join(src, 'b.ajs'))
      await waitFor(() => io.stderr.includes('flows/b.ajs was deleted'), 'the deletion message')
      expect(io.stderr).toMatch(/\[\d\d:\d\d:\d\d\] flows\/b\.ajs was deleted; removed out\/b\.json/)
      expect(existsSync(join(dir, 'out/b.json'))).toBe(false)
      expect(io.stderr).toMatch(/\[\d\d:\d\d:\d\d\] 1 built/)
    } finally {
      expect(await stop(child)).toBe(0)
    }
  }, 40_000)
})

describe('ajsc run --watch', () => {
  test('runs again when the program changes, also after a failing version', async () => {
    const file = join(dir, 'prog.ajs')
    writeFileSync(file, 'function p() { return { n: 1 } }\n')
    const { child, io, waitFor } = start(['run', 'prog.ajs', '--watch'], dir)
    try {
      await waitFor(() => io.stdout.includes('"n": 1') && io.stderr.includes('watching'), 'the first run')
      saveByRename(file, 'function p() { return { n: nope } }\n')
      await waitFor(() => io.stderr.includes('error AJS3001'), 'the error')
      saveByRename(file, 'function p() { return { n: 2 } }\n')
      await waitFor(() => io.stdout.includes('"n": 2'), 'the second run')
      expect(io.stderr).toMatch(/\[\d\d:\d\d:\d\d\] prog\.ajs changed; running again/)
    } finally {
      expect(await stop(child)).toBe(0)
    }
  }, 40_000)
})
