/**
 * The repository is self-contained (issue 29, item 9): no test or bench file reads a file outside
 * the repository, so a clone alone (what a user gets from the package's repository link) runs
 * `npm install && npm test`. Fixtures that come from elsewhere are vendored under
 * test/fixtures/vendor/ (provenance in its PROVENANCE.md) and bench/workloads/.
 *
 * A static check over every source file of test/ and bench/: each relative path it resolves —
 * import specifiers, `new URL(x, import.meta.url)`, `resolve|join(<base>, 'a', 'b'…)` where the base
 * is the file's folder, the working directory or a constant built from them (also across
 * `import { repoDir } from './lib/paths.mjs'`) — must stay inside the repository; and no file names
 * the workspace's shared folders or the repository's parent directory. The checker is itself
 * tested on the forms that used to escape.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

const ROOT = resolve(import.meta.dir, '../..')
const SKIP_DIRS = new Set(['node_modules', '.build', 'results', 'vendor', '.tmp'])
const SOURCE = /\.(?:[cm]?[jt]sx?|py)$/

function sources(dir: string): string[] {
  const out: string[] = []
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) { if (!SKIP_DIRS.has(e.name)) out.push(...sources(join(dir, e.name))) }
    else if (SOURCE.test(e.name)) out.push(join(dir, e.name))
  }
  return out
}

const STR = String.raw`(?:'([^'\n]*)'|"([^"\n]*)"|\x60([^\x60$\n]*)\x60)`
const strValue = (m: RegExpMatchArray, i: number) => m[i] ?? m[i + 1] ?? m[i + 2] ?? ''
/** Expressions meaning "this file's folder" and "the working directory" (tests run from the root). */
const HERE = [/^import\.meta\.dir(?:name)?$/, /^__dirname$/, /^dirname\(\s*fileURLToPath\(\s*import\.meta\.url\s*\)\s*\)$/, /^fileURLToPath\(\s*new URL\(\s*['"]\.\/?['"]\s*,\s*import\.meta\.url\s*\)\s*\)$/]
const CWD = /^process\.cwd\(\)$/

type Env = Map<string, string>

/** The value of a base expression, if the checker knows it. */
function baseValue(expr: string, file: string, env: Env): string | undefined {
  const e = expr.trim()
  if (HERE.some((r) => r.test(e))) return dirname(file)
  if (CWD.test(e)) return ROOT
  if (/^[A-Za-z_$][\w$]*$/.test(e)) return env.get(e)
  const lit = e.match(new RegExp(`^${STR}$`))
  return lit ? strValue(lit, 1) : undefined
}

/** Splits `a, b, c` at top-level commas. */
function splitArgs(s: string): string[] {
  const out: string[] = []
  let depth = 0, cur = '', quote = ''
  for (const ch of s) {
    if (quote) { cur += ch; if (ch === quote) quote = ''; continue }
    if (ch === "'" || ch === '"' || ch === '`') { quote = ch; cur += ch; continue }
    if ('([{'.includes(ch)) depth++
    if (')]}'.includes(ch)) depth--
    if (ch === ',' && depth === 0) { out.push(cur); cur = '' } else cur += ch
  }
  if (cur.trim()) out.push(cur)
  return out
}

/** `resolve(...)` / `join(...)` calls: the text of their arguments (one level of nested parentheses). */
function pathCalls(text: string): Array<{ at: number; args: string[] }> {
  const out: Array<{ at: number; args: string[] }> = []
  for (const m of text.matchAll(/\b(?:path\.)?(?:resolve|join)\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)/g)) out.push({ at: m.index!, args: splitArgs(m[1]!) })
  return out
}

function evalCall(args: string[], file: string, env: Env): string | undefined {
  if (args.length < 2) return undefined
  const base = baseValue(args[0]!, file, env)
  if (base === undefined || !base.startsWith('/')) return undefined
  const rest: string[] = []
  for (const a of args.slice(1)) {
    const m = a.trim().match(new RegExp(`^${STR}$`))
    if (!m) return undefined // a computed segment: not a fixed path
    rest.push(strValue(m, 1))
  }
  return resolve(base, ...rest)
}

/** Top-level `const NAME = resolve|join(...)` constants, to a fixed point (later ones may use earlier ones). */
function constants(text: string, file: string, imported: Env): Env {
  const env: Env = new Map(imported)
  const defs = [...text.matchAll(/\b(?:export\s+)?(?:const|let)\s+([A-Za-z_$][\w$]*)\s*=\s*((?:path\.)?(?:resolve|join)\()/g)]
  for (let round = 0; round < 4; round++) {
    for (const d of defs) {
      const call = pathCalls(text.slice(d.index! + d[0].length - d[2]!.length))[0]
      const v = call && call.at === 0 ? evalCall(call.args, file, env) : undefined
      if (v !== undefined) env.set(d[1]!, v)
    }
  }
  return env
}

const inside = (p: string) => p === ROOT || p.startsWith(ROOT + sep)

/** What a file reads outside the repository, as `line: text -> path` strings. */
function escapes(file: string, text: string, envOf: (spec: string) => Env = () => new Map()): string[] {
  const problems: string[] = []
  const lineOf = (i: number) => text.slice(0, i).split('\n').length
  const flag = (i: number, what: string, to: string) => problems.push(`${relative(ROOT, file)}:${lineOf(i)}: ${what} -> ${to}`)
  // Names imported from a sibling module whose constants the checker evaluated.
  const imported: Env = new Map()
  for (const m of text.matchAll(new RegExp(String.raw`import\s*\{([^}]*)\}\s*from\s*${STR}`, 'g'))) {
    const spec = strValue(m, 2)
    if (!spec.startsWith('.')) continue
    const theirs = envOf(resolve(dirname(file), spec))
    for (const name of m[1]!.split(',').map((s) => s.trim().split(/\s+as\s+/))) {
      const v = theirs.get(name[0]!)
      if (v !== undefined) imported.set(name[1] ?? name[0]!, v)
    }
  }
  const env = constants(text, file, imported)
  // 1. Module specifiers and URLs relative to this file.
  const specs = new RegExp(String.raw`(?:\bfrom\s*|\bimport\(\s*|\brequire\(\s*|\bnew URL\(\s*)${STR}`, 'g')
  for (const m of text.matchAll(specs)) {
    const spec = strValue(m, 1)
    if (!spec.startsWith('../') && !spec.startsWith('./')) continue
    const to = resolve(dirname(file), spec)
    if (!inside(to)) flag(m.index!, spec, to)
  }
  // 2. resolve/join calls whose base the checker knows.
  for (const c of pathCalls(text)) {
    const to = evalCall(c.args, file, env)
    if (to !== undefined && !inside(to)) flag(c.at, text.slice(c.at, text.indexOf('\n', c.at)).trim().slice(0, 100), to)
  }
  // 3. Names of the workspace's shared folders, and absolute paths above the repository.
  for (const m of text.matchAll(/(?:\.\.\/|['"]\.\.['"]\s*,\s*['"])shared\b|\bshared\/(?:corpora|seeds|bench-workloads)\b/g)) flag(m.index!, m[0], 'the shared folder beside the repository')
  const parent = dirname(ROOT)
  if (parent !== '/') for (const m of text.matchAll(new RegExp(`['"\`]${parent.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(?![^'"\`]*${ROOT.slice(parent.length + 1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})`, 'g'))) flag(m.index!, m[0], 'an absolute path outside the repository')
  return problems
}

describe('the repository is self-contained (issue 29, item 9)', () => {
  test('no test or bench file reads outside the repository', () => {
    const files = [...sources(join(ROOT, 'test')), ...sources(join(ROOT, 'bench'))].filter((f) => f !== import.meta.path)
    expect(files.length).toBeGreaterThan(100)
    const cache = new Map<string, Env>()
    const envOf = (path: string): Env => {
      const hit = cache.get(path)
      if (hit) return hit
      cache.set(path, new Map())
      let text = ''
      try { text = readFileSync(path, 'utf8') } catch { return new Map() }
      const env = constants(text, path, new Map())
      cache.set(path, env)
      return env
    }
    const problems = files.flatMap((f) => escapes(f, readFileSync(f, 'utf8'), envOf))
    expect(problems, `Vendor the file under test/fixtures/vendor/<name>/ (and note its origin in PROVENANCE.md), then point the test there:\n${problems.join('\n')}`).toEqual([])
  })

  test('the vendored fixtures the tests read are present, with their provenance', () => {
    for (const f of ['test/fixtures/vendor/PROVENANCE.md', 'test/fixtures/vendor/flow-spec-v1/manifest.json', 'test/fixtures/vendor/flowlang/manifest.json', 'bench/workloads/PROVENANCE.md', 'bench/workloads/index.mjs']) {
      expect(readFileSync(join(ROOT, f), 'utf8').length).toBeGreaterThan(0)
    }
    for (const name of ['flow-spec-v1', 'flowlang']) {
      const dir = join(ROOT, 'test/fixtures/vendor', name)
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: Array<{ file: string }> }
      for (const { file } of manifest.files) expect(readFileSync(join(dir, file)).length).toBeGreaterThan(0)
    }
  })

  test('the checker catches the forms that used to read ../shared', () => {
    const at = (p: string) => join(ROOT, p)
    const cases: Array<[string, string]> = [
      ['test/flows/corpus.test.ts', "const CORPUS = resolve(import.meta.dir, '../../../shared/corpora/flow-spec-v1')"],
      ['test/portability/emitted.test.ts', "const ROOT = resolve(import.meta.dir, '../..')\nconst dir = join(ROOT, '../other/valid')"],
      ['bench/flowlang.mjs', "import { repoDir } from './lib/paths.mjs'\nconst corpus = join(repoDir, '..', 'elsewhere', 'flowlang')"],
      ['bench/ab.mjs', "const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')\nconst w = process.env.X ?? resolve(root, '../bench-workloads')"],
      ['test/vm/x.test.ts', "const g = JSON.parse(readFileSync(new URL('../../../corpora/g.json', import.meta.url), 'utf8'))"],
      ['test/vm/y.test.ts', "import data from '../../../data/x.json'"],
      ['test/vm/z.test.ts', "const d = join(process.cwd(), '..', 'data')"],
    ]
    const envOf = (path: string): Env => (path === at('bench/lib/paths.mjs') ? new Map([['repoDir', ROOT]]) : new Map())
    for (const [file, text] of cases) expect(escapes(at(file), text, envOf).length, text).toBeGreaterThan(0)
    // …and leaves the repository's own paths alone.
    const fine = "const CORPUS = resolve(import.meta.dir, '../fixtures/vendor/flow-spec-v1')\nimport { AgentVM } from '../../src/index.ts'\nconst d = join(ROOT, 'test/fixtures/vendor/flowlang')"
    expect(escapes(at('test/flows/corpus.test.ts'), fine, envOf)).toEqual([])
  })
})
