// CPU profile of one Python block of bench/python.mjs on our VM, for finding what dominates:
//   node bench/python-profile.mjs <id> [--ms 3000] [--top 30]
// Bundles src/python/index.ts (as bench/python.mjs does), runs the block repeatedly for --ms in a
// child `node --cpu-prof`, and prints the functions with the most self time (the .cpuprofile file
// stays in bench/.build/prof/ for Chrome DevTools or speedscope).
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildDir, repoDir } from './lib/paths.mjs'
import { PYTHON_BLOCKS } from './python.mjs'

const argv = process.argv.slice(2)
const flag = (name, dflt) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv.splice(i, 2)[1] : dflt
}
const ms = Number(flag('ms', 3000))
const top = Number(flag('top', 30))
const id = argv[0]
const block = PYTHON_BLOCKS.find((b) => b.id === id)
if (!block) {
  console.error(`usage: node bench/python-profile.mjs <id> [--ms 3000] [--top 30]   (ids: ${PYTHON_BLOCKS.map((b) => b.id).join(', ')})`)
  process.exit(1)
}

if (process.env.AJS_PY_PROFILE_CHILD) {
  const mod = await import(pathToFileURL(join(buildDir, 'ajs-python.mjs')).href)
  const { ast } = mod.transpilePython(block.body, { params: ['initial', ...Object.keys(block.input)], jsonText: true })
  const vm = mod.createPythonVM()
  const end = performance.now() + ms
  let n = 0
  while (performance.now() < end) {
    const r = await vm.run(ast, { initial: {}, ...block.input }, { fuel: 1e9, timeoutMs: 120_000 })
    if (r.error) throw new Error(`${id}: ${r.error.code} ${r.error.message}`)
    n++
  }
  console.log(`${n} runs, ${(ms / n).toFixed(2)} ms/run`)
} else {
  const { build } = await import('esbuild')
  mkdirSync(buildDir, { recursive: true })
  await build({ entryPoints: [join(repoDir, 'src/python/index.ts')], outfile: join(buildDir, 'ajs-python.mjs'), bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'silent', nodePaths: [join(repoDir, 'node_modules')] })
  const dir = join(buildDir, 'prof')
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const child = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, process.argv[1], id, '--ms', String(ms)], { env: { ...process.env, AJS_PY_PROFILE_CHILD: '1' }, stdio: ['ignore', 'inherit', 'inherit'] })
  if (child.status !== 0) process.exit(child.status ?? 1)
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
  const prof = JSON.parse(readFileSync(join(dir, file), 'utf8'))
  const self = new Map()
  const dt = prof.timeDeltas
  const byId = new Map(prof.nodes.map((n) => [n.id, n]))
  const ticks = new Map()
  prof.samples.forEach((s, i) => ticks.set(s, (ticks.get(s) ?? 0) + (dt[i] ?? 0)))
  let total = 0
  for (const [nid, t] of ticks) {
    const n = byId.get(nid)
    const cf = n.callFrame
    const key = `${cf.functionName || '(anonymous)'} ${cf.url.split('/').pop()}:${cf.lineNumber + 1}`
    self.set(key, (self.get(key) ?? 0) + t)
    total += t
  }
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top)
  for (const [k, t] of rows) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`)
  console.log(`profile: ${join(dir, file)}`)
}
