/**
 * esbuild plugin: `import agent from './flow.ajs'` yields the precompiled
 * "ajs/1" AST. Transpile errors are returned to esbuild as messages with
 * file, line, column and line text, so esbuild prints them like its own.
 *
 * ```ts
 * import { build } from 'esbuild'
 * import { ajsPlugin } from 'ajs-lang/plugins/esbuild'
 * await build({ entryPoints: ['app.ts'], bundle: true, plugins: [ajsPlugin()] })
 * ```
 */
import { relative } from 'node:path'
import { DEFAULT_FILTER, loadAjs, type AjsLoadMessage, type AjsPluginOptions } from './load.ts'

export type { AjsPluginOptions } from './load.ts'

/** The part of esbuild's plugin API used here (so esbuild stays an optional peer). */
export interface EsbuildPluginLike {
  name: string
  setup(build: {
    initialOptions: { absWorkingDir?: string }
    onLoad(options: { filter: RegExp; namespace?: string }, callback: (args: { path: string }) => Promise<EsbuildLoadResult>): void
  }): void
}

/** What the onLoad callback returns (a subset of esbuild's OnLoadResult). */
export type EsbuildLoadResult = { contents?: string; loader?: 'json'; errors?: AjsLoadMessage[]; warnings?: AjsLoadMessage[] }

export function ajsPlugin(options: AjsPluginOptions = {}): EsbuildPluginLike {
  return {
    name: 'ajs',
    setup(build) {
      const cwd = build.initialOptions.absWorkingDir ?? process.cwd()
      build.onLoad({ filter: options.filter ?? DEFAULT_FILTER, namespace: 'file' }, async (args) => {
        const result = await loadAjs(args.path, relative(cwd, args.path) || args.path, options)
        return 'errors' in result ? { errors: result.errors } : { contents: result.contents, loader: 'json', warnings: result.warnings }
      })
    },
  }
}

export default ajsPlugin
