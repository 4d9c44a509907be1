// Sval: a JS interpreter in JS sharing the host heap. The source is parsed and
// its functions are defined once; each run calls the exported entry (Sval
// functions are host-callable closures), so per-run cost excludes parsing.
import { pkgVersion } from '../paths.mjs'

export async function createSval() {
  const Sval = (await import('sval')).default
  const version = pkgVersion('sval')
  return {
    id: 'sval',
    label: 'Sval',
    version,
    prepare(w) {
      const interp = new Sval({ ecmaVer: 'latest', sourceType: 'script', sandBox: true })
      interp.run(`${w.source}\nexports.entry = ${w.entry}`)
      const entry = interp.exports.entry
      return { isAsync: false, run: () => entry(w.args) }
    },
  }
}
