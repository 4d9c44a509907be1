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
 * How: a first build lists the modules of each layer and the names each exports; a layer is then
 * one module re-exporting all of them under unique names (`c3$vmError`), bundled alone. In the
 * split build (and the core's own build, for the base), a plugin turns every import of a layer's
 * module (the vm entry included) into a shim re-exporting those names from the layer, left
 * external under a placeholder specifier; `linkLayers` points each output file at the layer files
 * by their relative paths.
 */
import { build } from 'esbuild'
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const SKIP = Symbol('vm-core: plain resolution')
/** Layer name -> the placeholder its importers use until linkLayers. */
const LAYERS = ['vm-base', 'vm-core']
const placeholder = (name) => `__ajs_${name.replace('-', '_')}__`

/**
 * Build the layer files from the graph of `entry` (minus what `light` entries reach, which goes to
 * the base); returns the esbuild plugins that send the split build's imports to them.
 * @param {{ root: string, dist: string, entry: string, light: string[], plugins: any[], esbuildOptions: object, cjs: (text: string) => Promise<string> }} o
 */
export async function buildVmLayers({ root, dist, entry, light, plugins, esbuildOptions, cjs }) {
  const scanOptions = { absWorkingDir: root, bundle: true, write: false, platform: 'node', format: 'esm', metafile: true, logLevel: 'silent', plugins }
  const graphOf = async (entries) => entries.length === 0 ? [] : Object.keys((await build({ ...scanOptions, entryPoints: entries, outdir: dist })).metafile.inputs).filter((p) => !p.includes(':'))
  const files = await graphOf([entry])
  const shared = new Set(await graphOf(light))
  // Each module as its own entry: the metafile lists its export names.
  const scan = await build({ ...scanOptions, entryPoints: files, splitting: true, outdir: join(dist, 'layer-scan') })
  const exportsOf = new Map()
  for (const out of Object.values(scan.metafile.outputs)) if (out.entryPoint) exportsOf.set(out.entryPoint, out.exports)

  const layers = LAYERS.map((name) => ({ name, specifier: placeholder(name), modules: new Map() }))
  files.forEach((f, i) => layers[shared.has(f) ? 0 : 1].modules.set(resolve(root, f), { i, f, names: exportsOf.get(f) ?? [] }))
  const out = { plugins: layers.map(redirect), files: [] }
  mkdirSync(join(dist, 'chunks'), { recursive: true })
  for (const [k, layer] of layers.entries()) {
    const lines = [...layer.modules.values()].map(({ i, f, names }) => {
      const spec = JSON.stringify(`./${f}`)
      return names.length === 0 ? `import ${spec}` : `export { ${names.map((n) => `${n} as c${i}$${n}`).join(', ')} } from ${spec}`
    })
    const built = await build({
      ...esbuildOptions,
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
    writeFileSync(file, linkLayers(text, file, dist, '.js'))
    writeFileSync(file.replace(/\.js$/, '.cjs'), await cjs(linkLayers(text, file, dist, '.cjs')))
    out.files.push({ name: layer.name, modules: layer.modules.size, bytes: text.length })
  }
  return out

  /** @returns {import('esbuild').Plugin} */
  function redirect(layer) {
    const shim = (path) => {
      const { i, names } = layer.modules.get(path)
      const from = JSON.stringify(layer.specifier)
      return names.length === 0 ? `import ${from}` : `export { ${names.map((n) => `c${i}$${n} as ${n}`).join(', ')} } from ${from}`
    }
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
