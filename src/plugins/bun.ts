/**
 * Bun plugin: `import agent from './flow.ajs'` yields the precompiled
 * "ajs/1" AST, at run time (`Bun.plugin(ajsBunPlugin())`, or a preload in
 * bunfig.toml) and in `Bun.build({ plugins: [ajsBunPlugin()] })`.
 *
 * Bun has no structured plugin diagnostics, so a transpile error is thrown
 * with the compiler's text: `file:line:col: error CODE: message`, the code
 * frame and the hint.
 */
import { relative } from 'node:path'
import { DEFAULT_FILTER, loadAjs, type AjsPluginOptions } from './load.ts'

export type { AjsPluginOptions } from './load.ts'

/** The part of Bun's plugin API used here. */
export interface BunPluginLike {
  name: string
  setup(build: {
    onLoad(options: { filter: RegExp }, callback: (args: { path: string }) => Promise<{ contents: string; loader: 'js' }>): unknown
  }): void
}

/** The error thrown for a source the transpiler refuses. */
export class AjsPluginError extends Error {
  override name = 'AjsPluginError'
  constructor(message: string, readonly file: string, readonly line: number, readonly column: number, readonly code: string) {
    super(message)
  }
}

export function ajsBunPlugin(options: AjsPluginOptions = {}): BunPluginLike {
  return {
    name: 'ajs',
    setup(build) {
      build.onLoad({ filter: options.filter ?? DEFAULT_FILTER }, async (args) => {
        const result = await loadAjs(args.path, relative(process.cwd(), args.path) || args.path, options)
        if ('errors' in result) {
          const m = result.errors[0]!
          const loc = m.location!
          const [code] = m.text.split(':', 1)
          throw new AjsPluginError(
            `${loc.file}:${loc.line}:${loc.column + 1}: error ${m.text}\n  ${loc.lineText}\n  ${' '.repeat(loc.column)}^\n${m.notes.map((n) => n.text).join('\n')}`,
            loc.file, loc.line, loc.column, code ?? '',
          )
        }
        // A JS module, not `loader: 'json'`: Bun's runtime (Bun.plugin, --preload, bunfig.toml) parses
        // a plugin's json contents as JavaScript for an unknown extension; `export default` works in
        // the runtime and in Bun.build alike.
        return { contents: `export default ${result.contents}`, loader: 'js' }
      })
    },
  }
}

export default ajsBunPlugin
