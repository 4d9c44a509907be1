/**
 * Runs one of the package's own self-contained ESM bundles (dist/browser/*.min.js) as a classic
 * script through `node:vm`, with a V8 code cache kept on disk: the next process skips parsing and
 * compiling it, which is most of a cold start (bench/cold-profile.mjs measured ~70% of import →
 * first result). Node ≥ 22 has `module.enableCompileCache()` for this; Node 20 has only
 * `vm.Script`'s `cachedData`, so the cache is made here, the same way on every version.
 *
 * Only files this package shipped are compiled, never guest input: the paths are fixed by the
 * caller (cached-vm.ts) next to its own file. A cache is bytecode the process will trust, so it is
 * read only from a folder the user chose or one this user owns and no one else may write.
 */
// Node's builtins are taken as CommonJS modules (Node ≥ 20.16, Bun): importing them as ESM builds
// a module facade of each, ~2 ms of a cold start for node:fs alone, on the path this entry exists to shorten.
const { closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } = process.getBuiltinModule('node:fs')
const { tmpdir } = process.getBuiltinModule('node:os')
const { basename, join } = process.getBuiltinModule('node:path')
const { Script } = process.getBuiltinModule('node:vm')
const { crc32 } = process.getBuiltinModule('node:zlib')

const IN_BUN = typeof process.versions.bun === 'string'

/** What became of a file's cache on load. */
export interface CodeCacheEvent {
  /** The bundle run. */
  script: string
  /** The cache file ('' when caching is off). */
  file: string
  /**
   * `hit`: compiled from the cache; `miss`: no cache yet (one is written when the process exits);
   * `rejected`: V8 refused the cache (another V8 build or flags), recompiled and rewritten at exit;
   * `off`: no cache used (`cacheDir: false`, or a default folder that is not safely ours).
   */
  state: 'hit' | 'miss' | 'rejected' | 'off'
  /** Why the cache is off or was not used, when it is. */
  reason?: string
}

export interface CodeCacheOptions {
  /** Folder of the cache files; `false` compiles from source every time. Default: a folder of this user's under the OS temp folder. */
  cacheDir?: string | false
  /** Told what became of each file's cache, as it loads. */
  onCodeCache?: (event: CodeCacheEvent) => void
}

/** The folder used without `cacheDir`: one per user, made private to them. */
export function defaultCacheDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user'
  return join(tmpdir(), `ajs-lang-code-cache-${uid}`)
}

/**
 * Whether `dir` (the default folder, in a temp folder others may write to) is safe to read
 * bytecode from: a real folder, owned by this user, that no one else may write. Made if missing.
 */
function privateFolderProblem(dir: string): string | undefined {
  try {
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 })
    const st = lstatSync(dir)
    if (!st.isDirectory()) return `${dir} is not a folder`
    if (typeof process.getuid === 'function') {
      if (st.uid !== process.getuid()) return `${dir} belongs to another user`
      if ((st.mode & 0o022) !== 0) return `${dir} may be written by other users`
    }
    return undefined
  } catch (e) {
    return `${dir}: ${(e as Error).message}`
  }
}

/**
 * The text of an ESM bundle with no imports as the source of a function returning its exports.
 * esbuild writes a bundle's exports as one `export{a as B,...}` at its end.
 */
export function scriptSource(esm: string, name: string): string {
  const clause = exportClause(esm)
  const body = clause ? esm.slice(0, clause.at) : esm
  if (/^\s*import[\s{*"']/.test(body) || body.includes('import.meta')) {
    throw new Error(`${name} is not a self-contained bundle (it imports); rebuild the package (npm run build)`)
  }
  const entries = (clause?.names ?? '').split(',').map((s) => s.trim()).filter(Boolean).map((spec) => {
    const [local, exported = local] = spec.split(/\s+as\s+/)
    return `${JSON.stringify(exported)}:${local}`
  })
  // A function body is not a module: "use strict" restores the module's strictness.
  return `(function(){"use strict";\n${body}\nreturn{${entries.join(',')}}})`
}

const EXPORT_CLAUSE = /^export\s*\{((?:\s*[A-Za-z_$][\w$]*(?:\s+as\s+[A-Za-z_$][\w$]*)?\s*,?)*)\}\s*;?\s*$/

/** The bundle's closing `export{...}`: found from the end, since a pattern tried at every offset of 160 KB costs a cold start ~0.3 ms. */
function exportClause(esm: string): { at: number; names: string } | undefined {
  const at = esm.lastIndexOf('export')
  const m = at < 0 ? null : EXPORT_CLAUSE.exec(esm.slice(at))
  return m ? { at, names: m[1]! } : undefined
}

/** Writes the caches of the scripts loaded without one, once, when the process exits. */
const pendingWrites: Array<() => void> = []
let exitHooked = false
function writeAtExit(write: () => void): void {
  pendingWrites.push(write)
  if (exitHooked) return
  exitHooked = true
  process.once('exit', () => {
    for (const w of pendingWrites.splice(0)) {
      try {
        w()
      } catch {
        // A cache is an optimisation: a full disk or a read-only folder only means the next start compiles.
      }
    }
  })
}

/**
 * A cache file: "AJS2", the script's length, the V8 data's length and the CRC-32 of both
 * (little-endian), then the script's text (latin1) and V8's data. Holding the text, a hit reads one
 * file and neither reads nor rewraps the bundle. V8 checks a cache's version, flags and source
 * length but not its bytes (release builds skip the checksum), and deserializing damaged data
 * crashes the process: a cut or damaged file must be caught here, before V8 sees it.
 */
const MAGIC = 0x32534a41 // "AJS2"
const HEADER = 16

function framed(source: string, data: Buffer): Buffer {
  const payload = Buffer.concat([Buffer.from(source, 'latin1'), data])
  const head = Buffer.alloc(HEADER)
  head.writeUInt32LE(MAGIC, 0)
  head.writeUInt32LE(source.length, 4)
  head.writeUInt32LE(data.length, 8)
  head.writeUInt32LE(crc32(payload), 12)
  return Buffer.concat([head, payload])
}

/** The script's text and V8's data from a cache file, or undefined when the file is not whole. */
function unframed(file: Buffer): { source: string; data: Buffer } | undefined {
  if (file.length < HEADER || file.readUInt32LE(0) !== MAGIC) return undefined
  const sourceLength = file.readUInt32LE(4)
  if (sourceLength + file.readUInt32LE(8) !== file.length - HEADER || crc32(file.subarray(HEADER)) !== file.readUInt32LE(12)) return undefined
  return { source: file.toString('latin1', HEADER, HEADER + sourceLength), data: file.subarray(HEADER + sourceLength) }
}

/** Writes `bytes` to `file` whole or not at all: a temporary file, flushed to disk, then renamed over it. */
function writeWhole(file: string, bytes: Buffer): void {
  // Worker threads share the pid and may exit together: the name must be this writer's alone.
  const tmp = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`
  const fd = openSync(tmp, 'w', 0o600)
  try {
    writeSync(fd, bytes)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, file)
}

/**
 * Runs the bundle at `file` (whose content `key` names, e.g. its SHA-256) and returns its exports.
 * The cache file's name holds the key and Node's version and architecture, so hosts of several
 * Node versions keep their own caches. V8 checks its flags itself: a cache made under other flags
 * (`--max-old-space-size`, ...) is `rejected`, compiled from source and replaced.
 */
export function runCachedScript(file: string, key: string, options: CodeCacheOptions = {}): Record<string, unknown> {
  const name = basename(file)
  // esbuild writes ASCII (non-ASCII characters escaped), so latin1 reads it exactly and faster than UTF-8.
  const readSource = () => scriptSource(readFileSync(file, 'latin1'), name)
  let dir = options.cacheDir === undefined ? defaultCacheDir() : options.cacheDir
  let reason: string | undefined
  if (dir === false) reason = 'cacheDir: false'
  else if (IN_BUN) reason = 'Bun compiles with JavaScriptCore, which takes no V8 code cache'
  else if (options.cacheDir === undefined) reason = privateFolderProblem(dir)
  else if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 })
  if (reason !== undefined) dir = false
  if (dir === false) {
    options.onCodeCache?.({ script: name, file: '', state: 'off', reason })
    return new Script(readSource(), { filename: file }).runInThisContext()()
  }
  const cacheFile = join(dir, `${name}-${key}-${process.version}-${process.arch}.v8cache`)
  let stored: Buffer | undefined
  try {
    stored = readFileSync(cacheFile)
  } catch {
    stored = undefined
  }
  const cached = stored === undefined ? undefined : unframed(stored)
  // The text a cache file holds is the bundle's script form (its name holds the bundle's key): a cache V8 refuses was compiled from it anyway.
  const source = cached?.source ?? readSource()
  const script = new Script(source, { filename: file, cachedData: cached?.data })
  const state = cached === undefined ? (stored === undefined ? 'miss' : 'rejected') : script.cachedDataRejected ? 'rejected' : 'hit'
  options.onCodeCache?.({ script: name, file: cacheFile, state, ...(stored !== undefined && cached === undefined ? { reason: 'the cache file is damaged' } : {}) })
  const exports = script.runInThisContext()()
  // At exit the cache holds every function compiled by then (a first run's included), not just the top level.
  if (state !== 'hit') writeAtExit(() => writeWhole(cacheFile, framed(source, script.createCachedData())))
  return exports
}
