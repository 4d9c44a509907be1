/**
 * The VM of dist/ in two files: dist/chunks/vm-core.js (every module `ajs-lang/vm` reaches) on
 * dist/chunks/vm-base.js (the few of those the VM-less entries also use: the transpiler, builder,
 * batteries and bundler plugins), each also as .cjs. Every entry imports these instead of its own
 * cut of the shared chunks.
 *
 * Why: esbuild splits shared code by which entries use each statement, so with twenty entries
 * `import 'ajs-lang/vm'` loaded 17 files, and Node's module loader pays per file: 17-20 ms to
 * import against 7 ms for the same code in one file (issue 28). Each module still exists once per
 * module system, so `instanceof` holds across the entries. The base layer keeps the transpiler from
 * loading the whole VM for the two AST modules it shares with it.
 *
 * How: a first build lists the modules of each layer and the names each exports. In the split build
 * (and the core's own build, for the base), a plugin turns every import of a layer's module (the vm
 * entry included) into a shim re-exporting those names, under short unique names (`$2f`), from the
 * layer, left external under a placeholder specifier. Then each layer is one module re-exporting
 * the names the outputs import, bundled alone; `linkLayers` points each output file at the layer
 * files by their relative paths.
 */
import { build } from 'esbuild'
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const SKIP = Symbol('vm-core: plain resolution')
/**
 * The layers are built without esbuild's keepNames: the core's ~640 `__name` calls were 9 KB of the
 * file, and they run (Object.defineProperty) at import and wherever a named closure is made, as in
 * compiling a program: import → first result took ~2 ms more CPU, 13% (issue 28); the base's 67
 * likewise. What the VM entry exports is named at import instead (`AgentVM.name`, `validateAst.name`);
 * internal stack frames read minified, as in the browser bundle.
 */
const UNNAMED_LAYERS = new Set(['vm-core', 'vm-base'])
/** Layer name -> the placeholder its importers use until linkLayers. */
const LAYERS = ['vm-base', 'vm-core']
const placeholder = (name) => `__ajs_${name.replace('-', '_')}__`

/**
 * Plan the layers from the graph of `entry` (minus what `light` entries reach, which goes to the
 * base) and return the esbuild plugins that send the split build's imports to them; `finish`, given
 * the split build's output texts, writes the layer files with only the names those outputs (and the
 * layers above) import, so an export nobody uses is left out as tree-shaking would.
 * @param {{ root: string, dist: string, entry: string, light: string[], plugins: any[], esbuildOptions: object, cjs: (text: string) => Promise<string> }} o
 */
export async function planVmLayers({ root, dist, entry, light, plugins, esbuildOptions, cjs }) {
  const scanOptions = { absWorkingDir: root, bundle: true, write: false, platform: 'node', format: 'esm', metafile: true, logLevel: 'silent', plugins }
  const graphOf = async (entries) => entries.length === 0 ? [] : Object.keys((await build({ ...scanOptions, entryPoints: entries, outdir: dist })).metafile.inputs).filter((p) => !p.includes(':'))
  const files = await graphOf([entry])
  const shared = new Set(await graphOf(light))
  // Each module as its own entry: the metafile lists its export names.
  const scan = await build({ ...scanOptions, entryPoints: files, splitting: true, outdir: join(dist, 'layer-scan') })
  const exportsOf = new Map()
  for (const out of Object.values(scan.metafile.outputs)) if (out.entryPoint) exportsOf.set(out.entryPoint, out.exports)
  const publicNames = new Set(exportsOf.get(entry) ?? [])

  const layers = LAYERS.map((name) => ({ name, specifier: placeholder(name), modules: new Map() }))
  // Each exported name of a layer module gets a short unique name: every output that imports it
  // spells it (in CommonJS at each use), so `c3$vmError`-style names cost ~4 KB of the tarball.
  let count = 0
  files.forEach((f) => {
    const names = exportsOf.get(f) ?? []
    const aliases = new Map(names.map((n) => [n, `$${(count++).toString(36)}`]))
    layers[shared.has(f) ? 0 : 1].modules.set(resolve(root, f), { f, names, aliases })
  })

  /** @param {string[]} texts the split build's outputs (ESM syntax, placeholders not yet linked) */
  async function finish(texts) {
    const files = []
    mkdirSync(join(dist, 'chunks'), { recursive: true })
    // Top layer first: what it imports from the layers below counts as used there.
    for (let k = layers.length - 1; k >= 0; k--) {
      const layer = layers[k]
      const used = usedNames(texts, layer.specifier)
      // A module none of whose names is used is left to the bundler: the VM's modules have no side
      // effects (package.json "sideEffects" lists the ones that do, none of them in a layer).
      const unnamed = UNNAMED_LAYERS.has(layer.name)
      const named = []
      const lines = [...layer.modules.values()].flatMap(({ f, names, aliases }) => {
        const kept = used === null ? names : names.filter((n) => used.has(aliases.get(n)))
        if (unnamed) named.push(...kept.filter((n) => publicNames.has(n)).map((n) => `[${aliases.get(n)}, ${JSON.stringify(n)}]`))
        return kept.length === 0 ? [] : [`${unnamed ? 'import' : 'export'} { ${kept.map((n) => `${n} as ${aliases.get(n)}`).join(', ')} } from ${JSON.stringify(`./${f}`)}`]
          .concat(unnamed ? [`export { ${kept.map((n) => aliases.get(n)).join(', ')} }`] : [])
      })
      // What ajs-lang/vm exports keeps its name (`AgentVM.name`), given once here at import.
      if (named.length > 0) lines.push(`for (const [f, n] of [${named.join(', ')}]) if (typeof f === 'function' && f.name !== n) Object.defineProperty(f, 'name', { value: n, configurable: true })`)
      const built = await build({
        ...esbuildOptions,
        ...(unnamed ? { keepNames: false } : {}),
        absWorkingDir: root,
        bundle: true,
        write: false,
        splitting: false,
        format: 'esm',
        // A layer imports the layers below it (the core imports the base), never bundles them.
        plugins: [...layers.slice(0, k).map(redirect), ...plugins],
        stdin: { contents: lines.join('\n'), resolveDir: root, sourcefile: `${layer.name}.js`, loader: 'js' },
        outfile: join(dist, 'chunks', `${layer.name}.js`),
      })
      const file = join(dist, 'chunks', `${layer.name}.js`)
      const text = built.outputFiles[0].text
      texts = [...texts, text]
      writeFileSync(file, linkLayers(text, file, dist, '.js'))
      writeFileSync(file.replace(/\.js$/, '.cjs'), await cjs(linkLayers(text, file, dist, '.cjs')))
      files.unshift({ name: layer.name, modules: layer.modules.size, bytes: text.length })
    }
    return files
  }
  /**
   * The text of a module that is a layer module's re-exports straight from its layer (placeholder
   * specifier; linkLayers points it at the file), as the split build's shim is: for an entry that is
   * a layer module (ajs-lang/vm's src/vm/index.ts), whose shim esbuild moves into a shared chunk.
   */
  const reexports = (path) => {
    const layer = layers.find((l) => l.modules.has(resolve(root, path)))
    return layer ? shimText(layer, resolve(root, path)) : undefined
  }
  return { plugins: layers.map(redirect), finish, reexports }

  function shimText(layer, path) {
    const { names, aliases } = layer.modules.get(path)
    const from = JSON.stringify(layer.specifier)
    return names.length === 0 ? `import ${from}` : `export { ${names.map((n) => `${aliases.get(n)} as ${n}`).join(', ')} } from ${from}`
  }

  /** @returns {import('esbuild').Plugin} */
  function redirect(layer) {
    const shim = (path) => shimText(layer, path)
    const ns = `layer-${layer.name}`
    return {
      name: ns,
      setup(b) {
        b.onResolve({ filter: /.*/ }, async (a) => {
          if (a.path === layer.specifier) return { path: layer.specifier, external: true }
          if (a.pluginData === SKIP || a.namespace.startsWith('layer-')) return undefined
          const r = await b.resolve(a.path, { kind: a.kind, importer: a.importer, resolveDir: a.resolveDir, namespace: a.namespace, pluginData: SKIP })
          if (r.errors.length > 0 || r.external || !layer.modules.has(r.path)) return undefined
          return { path: r.path, namespace: ns }
        })
        b.onLoad({ filter: /.*/, namespace: ns }, (a) => ({ contents: shim(a.path), loader: 'js', resolveDir: root }))
      },
    }
  }
}

/**
 * The layer names (`$2f`) the texts import from `specifier`, or null when one imports it as a
 * namespace or re-exports it whole (then every name is kept).
 */
function usedNames(texts, specifier) {
  const used = new Set()
  const from = JSON.stringify(specifier).replace(/[$]/g, '\\$&')
  const named = new RegExp(`(?:import|export)\\s*\\{([^}]*)\\}\\s*from\\s*${from}`, 'g')
  const whole = new RegExp(`(?:import\\s*\\*\\s*as\\s+[\\w$]+|export\\s*\\*(?:\\s*as\\s+[\\w$]+)?)\\s*from\\s*${from}`)
  for (const text of texts) {
    if (!text.includes(specifier)) continue
    if (whole.test(text)) return null
    for (const m of text.matchAll(named)) {
      for (const item of m[1].split(',')) {
        const name = item.trim().split(/\s+as\s+/)[0]
        if (name) used.add(name)
      }
    }
  }
  return used
}

/** Point an output file's placeholder imports of the layers at the layer files (`ext`: .js or .cjs). */
export function linkLayers(text, file, dist, ext) {
  for (const name of LAYERS) {
    const spec = `"${placeholder(name)}"`
    if (!text.includes(spec)) continue
    let rel = relative(dirname(file), join(dist, 'chunks', `${name}${ext}`)).split('\\').join('/')
    if (!rel.startsWith('.')) rel = `./${rel}`
    text = text.split(spec).join(JSON.stringify(rel))
  }
  return text
}

/** linkLayers over files already written. */
export function linkLayerFiles(files, dist, ext) {
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    const linked = linkLayers(text, file, dist, ext)
    if (linked !== text) writeFileSync(file, linked)
  }
}
