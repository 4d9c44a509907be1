// A throwaway PostgreSQL cluster: `initdb` into a temporary directory,
// `postgres` on 127.0.0.1 with a free port, stopped and deleted by `stop()`.
// As root the binaries run as the `postgres` user (initdb refuses root).
// Benches keep the default durability (fsync on: what is measured is what a
// deployment pays); tests pass { fsync: false } for speed
// (test/server/postgres.ts). Plain JavaScript, so the benches run it on Node.
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import pg from 'pg'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Where initdb and postgres are: on PATH, or Debian's /usr/lib/postgresql/<version>/bin (newest first); null when absent. */
export function postgresBinDir() {
  if (spawnSync('sh', ['-c', 'command -v initdb && command -v postgres'], { encoding: 'utf8' }).status === 0) return ''
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return null
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
  return versions.length > 0 ? join(root, versions[0], 'bin') : null
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0

function command(bin, name, args) {
  const path = join(bin, name)
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args]
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
}

/** True once the server answers a query (accepting TCP is not enough: it may still be starting up). */
async function accepts(url) {
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

/** Start a cluster; resolves to { url, port, stop() }. */
export async function startPostgres({ fsync = true } = {}) {
  const bin = postgresBinDir()
  if (bin === null) throw new Error('PostgreSQL is not installed (initdb, postgres)')
  const dir = mkdtempSync(join(tmpdir(), 'ajs-bench-pg-'))
  const data = join(dir, 'data')
  if (isRoot()) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim())
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim())
    chownSync(dir, uid, gid)
  }
  chmodSync(dir, 0o700)
  const init = spawnSync(...command(bin, 'initdb', ['-D', data, '-U', 'ajs', '--auth=trust', ...(fsync ? [] : ['--no-sync']), '-E', 'UTF8', '--locale=C']), { encoding: 'utf8', cwd: dir })
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`)
  const port = await freePort()
  const settings = ['-c', 'max_connections=200', ...(fsync ? [] : ['-F', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'])]
  const child = spawn(...command(bin, 'postgres', ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, ...settings]), { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  child.stderr.on('data', (c) => { log += c })
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
    /** The process that started the server (its descendants are the server's processes). */
    pid: child.pid,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        // pg_ctl stops the postmaster itself (fast shutdown), whatever runuser does with signals.
        spawnSync(...command(bin, 'pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']), { encoding: 'utf8' })
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))])
        if (child.exitCode === null) child.kill('SIGKILL')
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
