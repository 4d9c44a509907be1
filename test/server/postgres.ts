/**
 * A throwaway PostgreSQL cluster for tests: `initdb` into a temporary
 * directory, `postgres` on 127.0.0.1 with a free port, stopped and deleted
 * by `stop()`. As root, the binaries run as the `postgres` user (initdb
 * refuses root). `available()` is false only when initdb is not installed
 * (.ci/run installs the postgresql package in that case).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import pg from 'pg'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Where initdb and postgres are: on PATH, or Debian's /usr/lib/postgresql/<version>/bin (newest first). */
function binDir(): string | null {
  if (spawnSync('sh', ['-c', 'command -v initdb && command -v postgres'], { encoding: 'utf8' }).status === 0) return ''
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return null
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
  return versions.length > 0 ? join(root, versions[0]!, 'bin') : null
}

export function postgresAvailable(): boolean {
  return binDir() !== null
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0

/** Run a binary, as `postgres` when we are root. */
function command(name: string, args: string[]): [string, string[]] {
  const bin = join(binDir() ?? '', name)
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args]
}

/** True once the server answers a query. */
async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('SELECT 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

export interface TestPostgres {
  url: string
  port: number
  stop(): Promise<void>
}

export async function startPostgres(): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'ajs-pg-'))
  const data = join(dir, 'data')
  if (isRoot()) {
    const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' })
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' })
    chownSync(dir, Number(pw.stdout.trim()), Number(gid.stdout.trim()))
  }
  chmodSync(dir, 0o700)
  const [initCmd, initArgs] = command('initdb', ['-D', data, '-U', 'ajs', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'])
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8', cwd: dir })
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`)
  const port = await freePort()
  const [pgCmd, pgArgs] = command('postgres', ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-F', '-c', 'max_connections=200', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'])
  const child: ChildProcess = spawn(pgCmd, pgArgs, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  child.stderr!.on('data', (c) => { log += c })
  const url = `postgres://ajs@127.0.0.1:${port}/postgres`
  const deadline = Date.now() + 30_000
  for (;;) {
    if (await accepts(url)) break
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
      throw new Error(`postgres did not start: ${log}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    port,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        // pg_ctl stops the postmaster itself (fast shutdown), whatever runuser does with signals.
        spawnSync(...command('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']), { encoding: 'utf8' })
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))])
        if (child.exitCode === null) child.kill('SIGKILL')
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
