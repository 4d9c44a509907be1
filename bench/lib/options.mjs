// Command-line flags (after `npm run bench --`) and the measurement settings.
const HELP = `usage: npm run bench -- [flags]
  --only <ids>        comma-separated workload ids or prefixes (execution section)
  --systems <ids>     subset of native,ours,quickjs,sval,jsinterp (native is always kept)
  --sections <names>  subset of exec,transpile,cold,heap,bundle,python,workflows,workflows-pg,flowlang,serve,codemode (default: all)
  --quick             fewer rounds/spawns: a smoke run, not for publishing
  --seed <n>          seed of the shuffled round order (default 1)
  --wf-steps <sizes>  workflows-pg: sizes of the one-workflow run (default 1000; e.g. 1000,10000)
  --rev <git-rev>     measure src/ as committed at <git-rev> (e.g. HEAD), not the working tree
  --no-write          print only; do not write bench/results/
  --help`

export const ALL_SYSTEMS = ['native', 'ours', 'quickjs', 'sval', 'jsinterp']
export const ALL_SECTIONS = ['exec', 'transpile', 'cold', 'heap', 'bundle', 'python', 'workflows', 'workflows-pg', 'flowlang', 'serve', 'codemode']

export function parseArgs(argv) {
  const o = { only: undefined, systems: ALL_SYSTEMS, sections: ALL_SECTIONS, quick: false, seed: 1, write: true }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value\n${HELP}`)
      return argv[++i]
    }
    const list = (v, allowed) => {
      const xs = v.split(',').map((s) => s.trim()).filter(Boolean)
      const bad = xs.filter((x) => !allowed.includes(x))
      if (bad.length) throw new Error(`unknown ${bad.join(', ')} (expected ${allowed.join(', ')})`)
      return xs
    }
    if (a === '--only') o.only = next()
    else if (a === '--systems') o.systems = [...new Set(['native', ...list(next(), ALL_SYSTEMS)])]
    else if (a === '--sections') o.sections = list(next(), ALL_SECTIONS)
    else if (a === '--quick') o.quick = true
    else if (a === '--seed') o.seed = Number(next())
    else if (a === '--rev') o.rev = next()
    else if (a === '--wf-steps') o.wfSteps = next().split(',').map(Number).filter((n) => n > 0)
    else if (a === '--no-write') o.write = false
    else if (a === '--help' || a === '-h') o.help = HELP
    else throw new Error(`unknown flag ${a}\n${HELP}`)
  }
  o.partial = o.quick || !!o.only || o.systems.length < ALL_SYSTEMS.length || o.sections.length < ALL_SECTIONS.length
  Object.assign(o, o.quick ? QUICK : FULL)
  return o
}

// exec: per workload, every system gets ~targetMs samples, up to `rounds`
// rounds or budgetMs in all. transpile: same per source size.
const FULL = {
  exec: { rounds: 21, targetMs: 40, budgetMs: 4000, minRounds: 5, warmupMs: 200 },
  transpile: { rounds: 15, targetMs: 50, budgetMs: 4000, minRounds: 5, warmupMs: 300, maxRunMs: 5000 },
  cold: { spawns: 15 },
  heap: { warmup: 20, samples: 5 },
}
const QUICK = {
  exec: { rounds: 5, targetMs: 10, budgetMs: 600, minRounds: 3, warmupMs: 50 },
  transpile: { rounds: 5, targetMs: 20, budgetMs: 1000, minRounds: 3, warmupMs: 100, maxRunMs: 2000 },
  cold: { spawns: 3 },
  heap: { warmup: 5, samples: 3 },
}
