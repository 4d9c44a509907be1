/**
 * Files that survive a crash at any point (kill -9 or power loss): data is
 * fsync'ed before it is relied on, and so is the directory entry of every
 * file or directory just created (a new file's name is only durable once its
 * directory is synced). A record file is replaced atomically (temp file,
 * fsync, rename), so a reader sees the old or the new one, never a torn one.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'

/** fsync a directory so the names created in it are durable; best effort where directories cannot be opened (Windows). */
export function syncDir(dir: string): void {
  let fd: number
  try { fd = openSync(dir, 'r') } catch { return }
  try { fsyncSync(fd) } catch { /* not supported on this platform: the data itself is still fsync'ed */ } finally { closeSync(fd) }
}

/** `mkdir -p` whose new directories are durable: each one created is synced into its parent. */
export function mkdirDurable(dir: string): void {
  const first = mkdirSync(dir, { recursive: true })
  if (first === undefined) return
  for (let d = dir; ; d = dirname(d)) {
    syncDir(dirname(d))
    if (d === first || dirname(d) === d) break
  }
}

/** Write all of `data` at the fd's position (a short write is continued, not left torn). */
export function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off, bytes.length - off)
}

/** Replace `path` with `text` atomically and durably (the directory must exist). */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`
  const fd = openSync(tmp, 'w')
  try {
    writeAll(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, path)
  syncDir(dirname(path))
}
