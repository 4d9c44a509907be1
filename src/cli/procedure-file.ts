/**
 * A ProcedureStore kept in a JSON file (`ajsc run --procedures file.json`),
 * so a token stored by one `ajsc run` can be run by the next:
 * `ajsc run proc_... --procedures procs.json`. Small and synchronous: it is
 * for the terminal, not for servers.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { ProcedureEntry, ProcedureStore } from '../vm/procedures.ts'
import { CliError } from './io.ts'

export class FileProcedureStore implements ProcedureStore {
  private readonly entries: Record<string, ProcedureEntry>

  constructor(private readonly path: string, private readonly now: () => number = Date.now) {
    this.entries = Object.create(null) as Record<string, ProcedureEntry>
    if (!existsSync(path)) return
    try {
      const data = JSON.parse(readFileSync(path, 'utf8')) as Record<string, ProcedureEntry>
      for (const [k, v] of Object.entries(data)) if (k.startsWith('proc_')) this.entries[k] = v
    } catch (e) {
      throw new CliError('CLI_BAD_JSON', `${path}: not a procedures file (${(e as Error).message})`, { hint: 'Name a procedures file written by `ajsc run --procedures`, or a new path.' })
    }
  }

  get(token: string): ProcedureEntry | undefined {
    const e = this.entries[token]
    return e && e.expiresAt > this.now() ? e : undefined
  }

  set(token: string, entry: ProcedureEntry): void {
    this.entries[token] = entry
    this.save()
  }

  delete(token: string): boolean {
    const had = token in this.entries
    delete this.entries[token]
    if (had) this.save()
    return had
  }

  clearExpired(now: number): [number, number] {
    const keys = Object.keys(this.entries)
    let removed = 0
    for (const k of keys) if (this.entries[k]!.expiresAt <= now) { delete this.entries[k]; removed++ }
    if (removed) this.save()
    return [removed, keys.length]
  }

  private save(): void {
    writeFileSync(this.path, `${JSON.stringify(this.entries, null, 2)}\n`)
  }
}
