/**
 * `--watch` for build and run. Watches directories, not files: an editor's
 * save by rename (write a temp file, rename it over the original) replaces
 * the inode a file watcher holds, and a new file can only be seen from its
 * directory. Events are debounced (one save is several events), then split
 * into changed and deleted paths. Runs until SIGINT/SIGTERM (or `signal`),
 * then resolves to exit code 0.
 */
import { existsSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { displayPath, posix } from './inputs.ts'
import type { CliIO } from './io.ts'

const GLOB_CHARS = /[*?{[]/
export const WATCH_DEBOUNCE_MS = 60

export interface WatchHandlers {
  /** Files (absolute paths) that exist and changed or appeared. */
  onChange(changed: ReadonlySet<string>): void | Promise<void>
  /** A file that existed was deleted. */
  onDelete?(path: string): void
}

/** The directories to watch for these input arguments, and whether recursively. */
export function watchRoots(args: readonly string[], cwd: string): Map<string, boolean> {
  const roots = new Map<string, boolean>()
  for (const arg of args) {
    if (GLOB_CHARS.test(arg)) {
      const parts = posix(arg).split('/')
      roots.set(resolve(cwd, parts.slice(0, parts.findIndex((p) => GLOB_CHARS.test(p))).join('/') || '.'), true)
      continue
    }
    const path = resolve(cwd, arg)
    const isDir = existsSync(path) && statSync(path).isDirectory()
    const root = isDir ? path : dirname(path)
    roots.set(root, (roots.get(root) ?? false) || isDir)
  }
  return roots
}

export function watchInputs(args: readonly string[], io: CliIO, handlers: WatchHandlers, signal?: AbortSignal): Promise<number> {
  return new Promise((resolveExit) => {
    const known = new Set<string>()
    const pending = new Set<string>()
    let timer: ReturnType<typeof setTimeout> | undefined
    let busy = Promise.resolve()
    const flush = () => {
      const paths = [...pending]
      pending.clear()
      const changed = new Set<string>()
      for (const p of paths) {
        let isFile = false
        try { isFile = statSync(p).isFile() } catch { /* gone */ }
        if (isFile) { changed.add(p); known.add(p) } else if (known.delete(p)) handlers.onDelete?.(p)
      }
      if (changed.size > 0) busy = busy.then(() => handlers.onChange(changed)).catch((e) => { io.err(`watch: ${(e as Error).message}\n`) })
    }
    const watchers: FSWatcher[] = []
    const roots = watchRoots(args, io.cwd)
    for (const [root, recursive] of roots) {
      try {
        watchers.push(watch(root, { recursive }, (_event, name) => {
          if (!name) return
          pending.add(join(root, name.toString()))
          clearTimeout(timer)
          timer = setTimeout(flush, WATCH_DEBOUNCE_MS)
        }))
      } catch (e) {
        io.err(`watch: cannot watch ${root}: ${(e as Error).message}\n`)
      }
    }
    // Files present now: a later deletion of one of them is reported.
    for (const arg of args) {
      const p = resolve(io.cwd, arg)
      if (existsSync(p) && statSync(p).isFile()) known.add(p)
    }
    const seed = (dir: string, recursive: boolean) => {
      try {
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          const p = join(dir, e.name)
          if (e.isFile()) known.add(p)
          else if (recursive && e.isDirectory() && e.name !== 'node_modules' && e.name !== '.git') seed(p, true)
        }
      } catch { /* unreadable directory: nothing known */ }
    }
    for (const [root, recursive] of roots) if (recursive) seed(root, true)
    io.err(`[${new Date().toTimeString().slice(0, 8)}] watching ${[...roots.keys()].map((r) => (r === io.cwd ? '.' : displayPath(io.cwd, r))).join(', ')} (Ctrl-C to stop)\n`)
    const stop = () => {
      for (const w of watchers) w.close()
      clearTimeout(timer)
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      signal?.removeEventListener('abort', stop)
      void busy.then(() => resolveExit(0))
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
    signal?.addEventListener('abort', stop)
  })
}
