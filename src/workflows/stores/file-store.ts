/**
 * The default journal store of local runs: one directory per execution
 * (`<root>/<executionId>/journal.jsonl`), one JSON line per entry, each batch
 * appended and fsync'ed before `append` returns (and the file's directory
 * entry synced when it is created), so an entry the host has seen survives
 * `kill -9` and power loss.
 *
 * A line counts as written once it is complete JSON. A crash in the middle
 * of a write can only leave an incomplete *last* line (the write-ahead-log
 * rule): reading drops it as never written, and the next append cuts it
 * off (or ends a complete last line with its missing newline) so new
 * entries are never glued to it. An incomplete line
 * anywhere else is damage: JOURNAL_INVALID.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync, writeSync } from 'node:fs'
import { join, resolve, sep } from 'node:path'
import { mkdirDurable, syncDir, writeAll } from './durable-fs.ts'
import { workflowError } from '../engine/errors.ts'
import type { JournalEntry, JournalStore } from '../engine/journal.ts'

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/
const NL = 0x0a

/** The parsed line, or undefined when it is not complete JSON. */
function parseLine(line: string): JournalEntry | undefined {
  try { return JSON.parse(line) as JournalEntry } catch { return undefined }
}

export class FileJournalStore implements JournalStore {
  readonly root: string
  constructor(root: string) {
    this.root = resolve(root)
  }

  /** The directory of one execution (created on first append). */
  dir(executionId: string): string {
    if (!ID.test(executionId) || executionId.includes('..')) {
      throw workflowError('WORKFLOW_OPTIONS_INVALID', `Execution id ${JSON.stringify(executionId)} is not a safe directory name (letters, digits, . _ - and / between parts)`)
    }
    return join(this.root, ...executionId.split('/'))
  }

  journalPath(executionId: string): string {
    return join(this.dir(executionId), 'journal.jsonl')
  }

  append(executionId: string, entries: readonly JournalEntry[]): void {
    if (entries.length === 0) return
    const dir = this.dir(executionId)
    const path = join(dir, 'journal.jsonl')
    const created = !existsSync(path)
    if (created) mkdirDurable(dir)
    else repairTail(path) // one byte read when the file is sound (the common case)
    const fd = openSync(path, 'a')
    try {
      writeAll(fd, entries.map((e) => JSON.stringify(e)).join('\n') + '\n')
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    if (created) syncDir(dir)
  }

  /** The entries written; an incomplete last line (a torn write) is left out. */
  read(executionId: string): JournalEntry[] {
    const path = this.journalPath(executionId)
    if (!existsSync(path)) return []
    const lines = readFileSync(path, 'utf8').split('\n')
    const out: JournalEntry[] = []
    lines.forEach((line, i) => {
      if (line === '') return
      const entry = parseLine(line)
      if (entry !== undefined) out.push(entry)
      else if (i < lines.length - 1) {
        throw workflowError('JOURNAL_INVALID', `${path}:${i + 1}: not a JSON line (a torn write can only be the last line)`, {
          entry: i,
          hint: 'The journal was changed or damaged after it was written. Restore journal.jsonl from a copy, or start the workflow again (`ajsc workflow run <file>`).',
        })
      }
    })
    return out
  }

  /** True when `path` is inside this store's root (used to refuse run ids that escape it). */
  contains(path: string): boolean {
    return resolve(path).startsWith(this.root + sep)
  }
}

/**
 * Make the file end at a line boundary before appending: an incomplete last
 * line is cut off, a complete one gets its newline. Only the last line is
 * looked at; the rest is read only when the file does not end with a newline.
 */
function repairTail(path: string): void {
  const fd = openSync(path, 'r+')
  try {
    const size = fstatSync(fd).size
    if (size === 0) return
    const last = Buffer.alloc(1)
    readSync(fd, last, 0, 1, size - 1)
    if (last[0] === NL) return
    const bytes = readFileSync(path)
    const cut = bytes.lastIndexOf(NL) + 1
    if (parseLine(bytes.subarray(cut).toString('utf8')) !== undefined) writeSync(fd, '\n', size)
    else ftruncateSync(fd, cut)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
