// Section 2: transpile speed. Our transpile() against acorn.parse with
// locations on (acorn being the parser our transpiler builds on, so the ratio
// is the cost of everything we add), on the generated large source, and
// scaling from ~3k to ~6k to ~12k lines (growth exponent of time vs lines).
import { measureInterleaved } from './timing.mjs'
import { pkgVersion } from './paths.mjs'

export const SIZES = [
  { label: '3k', helpers: 24, blocks: 250 },
  { label: '6k', helpers: 48, blocks: 500 },
  { label: '12k', helpers: 96, blocks: 1000 },
]

export async function runTranspile({ generateLargeSource, transpile, opts, log, only }) {
  const acorn = await import('acorn')
  const parseOpts = { ecmaVersion: 'latest', sourceType: 'script', locations: true }
  const sizes = []
  for (const size of SIZES.filter((x) => !only || only.includes(x.label))) {
    const source = generateLargeSource({ helpers: size.helpers, blocks: size.blocks })
    const lines = source.split('\n').length - 1
    const runners = { acorn: { isAsync: false, run: () => acorn.parse(source, parseOpts) } }
    let note
    if (transpile) {
      try {
        const out = transpile(source, { filename: `large-${size.label}.ajs` })
        if (!out?.ast) throw new Error('no AST produced')
        runners.transpile = { isAsync: false, run: () => transpile(source, { filename: `large-${size.label}.ajs` }) }
      } catch (e) {
        note = `transpile failed: ${String(e?.message ?? e).split('\n')[0]}`
      }
    }
    const t = await measureInterleaved(runners, { ...opts.transpile, rand: opts.rand })
    const row = { label: size.label, lines, acornMs: t.acorn.medianMs, transpileMs: t.transpile?.medianMs, note }
    row.ratio = row.transpileMs ? row.transpileMs / row.acornMs : undefined
    sizes.push(row)
    log(
      `  ${size.label.padEnd(4)} ${String(lines).padStart(6)} lines  acorn ${row.acornMs.toFixed(2)} ms` +
        (row.transpileMs ? `  transpile ${row.transpileMs.toFixed(2)} ms  (×${row.ratio.toFixed(2)})` : `  transpile: ${note ?? 'skipped'}`),
    )
  }
  return summarize(sizes, pkgVersion('acorn'), parseOpts)
}

/** The section's result from its measured sizes (in SIZES order). */
export function summarize(sizes, acornVersion, parseOptions) {
  const e = {
    transpile3to6: exponent(sizes, 0, 1, 'transpileMs'),
    transpile3to12: exponent(sizes, 0, 2, 'transpileMs'),
    acorn3to6: exponent(sizes, 0, 1, 'acornMs'),
    acorn3to12: exponent(sizes, 0, 2, 'acornMs'),
  }
  // What our work adds on top of the parser's own growth (GC of big ASTs
  // makes even acorn super-linear here): 0 means "grows like acorn".
  if (e.transpile3to12 !== undefined) e.excess3to12 = e.transpile3to12 - e.acorn3to12
  return { acornVersion, parseOptions, sizes, exponent: e }
}

/** Growth exponent k in time ∝ lines^k between two sizes. */
function exponent(sizes, i, j, key) {
  const a = sizes[i]
  const b = sizes[j]
  if (!a?.[key] || !b?.[key]) return undefined
  return Math.log(b[key] / a[key]) / Math.log(b.lines / a.lines)
}
