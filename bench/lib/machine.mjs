// The machine line, the exact command and the git state written with results.
import os from 'node:os'
import { execFileSync } from 'node:child_process'
import { repoDir } from './paths.mjs'

export function machine() {
  const cpus = os.cpus()
  const cpu = cpus[0]?.model?.trim() ?? 'unknown cpu'
  const m = { cpu, cores: cpus.length, node: process.version, platform: `${os.platform()} ${os.release()} ${os.arch()}`, memGiB: +(os.totalmem() / 2 ** 30).toFixed(1) }
  m.line = `${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, Node ${m.node}, ${m.platform}`
  // The machine is shared: the load average says how quiet it was.
  m.loadStart = os.loadavg().map((x) => +x.toFixed(2))
  return m
}

export function commandLine(args) {
  const quoted = args.map((a) => (/^[\w.,=/:-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')
  if (process.env.npm_lifecycle_event === 'bench') return `npm run bench${args.length ? ` -- ${quoted}` : ''}`
  return `node bench/run.mjs${args.length ? ` ${quoted}` : ''}`
}

export function gitState(snapshot) {
  if (snapshot) return { commit: snapshot.commit, srcDirty: false, line: `${snapshot.commit} (src/ taken from git with --rev, not the working tree)` }
  const git = (...a) => {
    try {
      return execFileSync('git', a, { cwd: repoDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    } catch {
      return ''
    }
  }
  const commit = git('rev-parse', '--short', 'HEAD') || 'unknown'
  const dirty = git('status', '--porcelain', '--', 'src') !== ''
  return { commit, srcDirty: dirty, line: `${commit}${dirty ? ' (+ uncommitted changes in src/)' : ''}` }
}
