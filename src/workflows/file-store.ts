/**
 * The default journal store of local runs: one directory per execution
 * (`<root>/<executionId>/journal.jsonl`), one JSON line per entry, each batch
 * appended and fsync'ed before `append` returns, so an entry the host has
 * seen survives `kill -9`. A torn last line (a crash in the middle of a
 * write) is ignored when the journal is read back.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join, resolve, sep } from 'node:path'
import { workflowError } from './errors.ts'
import type { JournalEntry, JournalStore } from './journal.ts'

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/

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
    mkdirSync(dir, { recursive: true })
    const fd = openSync(join(dir, 'journal.jsonl'), 'a')
    try {
      writeSync(fd, entries.map((e) => JSON.stringify(e)).join('\n') + '\n')
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }

  read(executionId: string): JournalEntry[] {
    const path = this.journalPath(executionId)
    if (!existsSync(path)) return []
    const lines = readFileSync(path, 'utf8').split('\n')
    const out: JournalEntry[] = []
    lines.forEach((line, i) => {
      if (line === '') return
      try {
        out.push(JSON.parse(line) as JournalEntry)
      } catch {
        const last = lines.slice(i + 1).every((l) => l === '')
        if (!last) throw workflowError('JOURNAL_INVALID', `${path}:${i + 1}: not a JSON line`, { entry: i })
      }
    })
    return out
  }

  /** True when `path` is inside this store's root (used to refuse run ids that escape it). */
  contains(path: string): boolean {
    return resolve(path).startsWith(this.root + sep)
  }
}
