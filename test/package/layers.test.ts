/**
 * Layers that hold: the import graph of src/ between folders follows one
 * ordered list of layers (LAYERS, below: the only place the layering is
 * written; the README's Development section shows it, checked below). A folder imports only folders
 * of lower layers; an import within one layer is allowed only where it is
 * recorded in SAME_LAYER and the folders form no cycle. Package entry files
 * may import any layer except the hosts that are programs (cli, server).
 *
 * The graph is read with TypeScript's own scanner (`ts.preProcessFile`):
 * `import`, `import type`, `export ... from` and `import('...')` with a
 * literal specifier, never comments or strings.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

/** Folders of src/ (a subfolder when it is split, a top-level file by its name), lowest layer first. */
export const LAYERS: ReadonlyArray<{ name: string; folders: readonly string[] }> = [
  { name: 'the AST and its diagnostics', folders: ['ast', 'diagnostics'] },
  { name: 'the VM and the compiler', folders: ['vm', 'transpiler', 'capabilities'] },
  { name: 'batteries (atoms and capabilities on the VM)', folders: ['batteries'] },
  { name: 'host support (atoms modules, package version, VM assembly)', folders: ['host'] },
  {
    name: 'frontends and runtimes',
    folders: ['builder', 'python', 'flows', 'flowlang', 'plugins', 'client', 'full-vm.ts', 'workflows/frontend', 'workflows/engine', 'workflows/stores', 'codemode'],
  },
  { name: 'hosts', folders: ['server', 'workflows/drivers'] },
  { name: 'the CLI', folders: ['cli'] },
]

/** Package entry files (folder names as above): they may import any layer except these. */
export const ENTRIES: readonly string[] = ['index.ts', 'workflows']
export const ENTRY_MAY_NOT_IMPORT: readonly string[] = ['cli', 'server']

/** Imports within one layer, each checked to form no cycle between folders. */
export const SAME_LAYER: readonly string[] = [
  'flows -> python', // a flow's code block runs Python
  'workflows/frontend -> python', // a workflow may be a Python program (python never imports workflows)
  'workflows/engine -> codemode', // a workflow's atom calls pause for approval (codemode never imports the engine)
  'workflows/frontend -> codemode', // an unknown budget atom's hint says what a workflow needs (codemode never imports the frontend)
  'capabilities -> vm', // capability deadlines use the VM's clamped long timer (vm never imports capabilities)
  'full-vm.ts -> builder', // the full entry's VM accepts builder programs
  'full-vm.ts -> flows', // ... and loads the flow runtime library lazily
  'full-vm.ts -> python', // ... and the Python runtime library
  'flowlang -> full-vm.ts', // a FlowLang script block compiles and runs source
  'workflows/frontend -> workflows/engine', // compile emits the engine's WorkflowProgram, errors and hash
  'workflows/stores -> workflows/engine', // stores keep the engine's journal entries
  'server -> workflows/drivers', // the server starts and resumes workflows as the drivers do
]

export interface Import {
  /** Importing file, relative to src/ (e.g. `server/app.ts`). */
  file: string
  line: number
  specifier: string
  /** Imported file, relative to src/. */
  target: string
}

export interface Layering {
  layers: ReadonlyArray<{ name: string; folders: readonly string[] }>
  entries: readonly string[]
  entryMayNotImport: readonly string[]
  sameLayer: readonly string[]
}

const LAYERING: Layering = { layers: LAYERS, entries: ENTRIES, entryMayNotImport: ENTRY_MAY_NOT_IMPORT, sameLayer: SAME_LAYER }

/** The folder a file (relative to src/) belongs to: the longest listed prefix, else its top-level folder or file name. */
export function folderOf(file: string, layering: Layering = LAYERING): string {
  const known = [...layering.layers.flatMap((l) => l.folders), ...layering.entries].sort((a, b) => b.length - a.length)
  const hit = known.find((f) => file === f || file.startsWith(`${f}/`))
  return hit ?? file.split('/')[0]!
}

/** Every relative import of every .ts file under `srcDir`. */
export function importsOf(srcDir: string): Import[] {
  const out: Import[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts')) {
        const text = readFileSync(path, 'utf8')
        for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
          if (!ref.fileName.startsWith('.')) continue
          const target = relative(srcDir, resolve(dirname(path), ref.fileName))
          if (target.startsWith('..')) continue
          const line = text.slice(0, ref.pos).split('\n').length
          out.push({ file: relative(srcDir, path).split('\\').join('/'), line, specifier: ref.fileName, target: target.split('\\').join('/') })
        }
      }
    }
  }
  walk(srcDir)
  return out
}

/** What breaks the layering, one message per offending import (and one per folder cycle). */
export function checkLayers(imports: readonly Import[], layering: Layering = LAYERING): string[] {
  const layerOf = new Map<string, number>()
  layering.layers.forEach((l, i) => l.folders.forEach((f) => layerOf.set(f, i)))
  const describe = (folder: string): string => {
    const i = layerOf.get(folder)
    return i === undefined ? `${folder} (a package entry)` : `${folder} (layer ${i}, ${layering.layers[i]!.name})`
  }
  const problems: string[] = []
  const edges = new Map<string, Set<string>>()
  const where = new Map<string, Import>()
  for (const imp of imports) {
    const from = folderOf(imp.file, layering)
    const to = folderOf(imp.target, layering)
    if (from === to) continue
    const at = `src/${imp.file}:${imp.line} imports '${imp.specifier}'`
    for (const folder of [from, to]) {
      if (!layerOf.has(folder) && !layering.entries.includes(folder)) {
        problems.push(`${at}: folder "${folder}" is in no layer. Hint: add it to LAYERS in test/package/layers.test.ts, in the layer that matches what it does.`)
      }
    }
    if (!layerOf.has(from) && !layering.entries.includes(from)) continue
    if (!layerOf.has(to) && !layering.entries.includes(to)) continue
    if (layering.entries.includes(from)) {
      if (layering.entryMayNotImport.includes(to)) problems.push(`${at}: the package entry ${from} imports ${to}, which entries may not import. Hint: entries re-export libraries; keep the host's code out of them.`)
    } else if (layering.entries.includes(to)) {
      problems.push(`${at}: ${describe(from)} imports the package entry ${to}. Hint: import the module that defines what you need instead of the entry.`)
    } else {
      const a = layerOf.get(from)!
      const b = layerOf.get(to)!
      if (b > a) {
        problems.push(`${at}: ${describe(from)} imports ${describe(to)}, a higher layer; a folder may import only lower layers. Hint: move what it needs down (e.g. into src/host or the lower folder), or pass it in from the higher layer.`)
      } else if (a === b && !layering.sameLayer.includes(`${from} -> ${to}`)) {
        problems.push(`${at}: ${describe(from)} imports ${to} of its own layer, an edge not recorded in SAME_LAYER. Hint: if ${to} never imports ${from} (directly or through other folders), record "${from} -> ${to}" in SAME_LAYER in test/package/layers.test.ts; otherwise move the shared code to a lower layer.`)
      }
    }
    if (!edges.has(from)) edges.set(from, new Set())
    edges.get(from)!.add(to)
    if (!where.has(`${from} -> ${to}`)) where.set(`${from} -> ${to}`, imp)
  }
  for (const cycle of folderCycles(edges)) {
    const shown = cycle.map((f, i) => {
      const imp = where.get(`${f} -> ${cycle[(i + 1) % cycle.length]}`)!
      return `${f} -> ${cycle[(i + 1) % cycle.length]} (src/${imp.file}:${imp.line} imports '${imp.specifier}')`
    })
    problems.push(`a cycle between folders: ${shown.join(', ')}. Hint: folders must form no cycle; move the code both sides need into the lower one (or below both).`)
  }
  return problems
}

/** Cycles of the folder graph (one per strongly connected component with more than one folder). */
export function folderCycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  // Tarjan's strongly connected components; each component is then shown as one cycle through it.
  let index = 0
  const indexOf = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const nodes = new Set<string>([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])])
  const visit = (v: string): void => {
    indexOf.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!))
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1) components.push(component)
    }
  }
  for (const v of [...nodes].sort()) if (!indexOf.has(v)) visit(v)
  return components.map((component) => {
    // A path back to the start inside the component (BFS), so the message shows real imports.
    const members = new Set(component)
    const start = [...component].sort()[0]!
    const prev = new Map<string, string>()
    const queue = [start]
    while (queue.length > 0) {
      const v = queue.shift()!
      for (const w of edges.get(v) ?? []) {
        if (!members.has(w)) continue
        if (w === start) {
          const path = [v]
          while (path[0] !== start) path.unshift(prev.get(path[0]!)!)
          return path
        }
        if (!prev.has(w)) {
          prev.set(w, v)
          queue.push(w)
        }
      }
    }
    return component
  })
}

const SRC = resolve(import.meta.dir, '../../src')

describe('layers of src/', () => {
  test('no folder imports a higher layer, every same-layer import is recorded, no cycle between folders', () => {
    const problems = checkLayers(importsOf(SRC))
    expect(problems).toEqual([])
  })

  test('every folder of src/ is in a layer or is an entry, and every listed folder exists', () => {
    const listed = [...LAYERS.flatMap((l) => l.folders), ...ENTRIES]
    for (const entry of readdirSync(SRC, { withFileTypes: true })) {
      const name = entry.name
      if (!entry.isDirectory() && !name.endsWith('.ts')) continue
      expect({ name, listed: listed.some((f) => f === name || f.startsWith(`${name}/`)) }).toEqual({ name, listed: true })
    }
    for (const folder of listed) {
      const there = readdirSync(join(SRC, dirname(folder))).includes(folder.split('/').pop()!)
      expect({ folder, there }).toEqual({ folder, there: true })
    }
  })

  test('every recorded same-layer edge joins two folders of one layer', () => {
    const layer = (f: string) => LAYERS.findIndex((l) => l.folders.includes(f))
    for (const edge of SAME_LAYER) {
      const [from, to] = edge.split(' -> ') as [string, string]
      expect({ edge, sameLayer: layer(from) === layer(to) && layer(from) >= 0 }).toEqual({ edge, sameLayer: true })
    }
  })
  test("the README's list of layers says what LAYERS says", () => {
    const readme = readFileSync(resolve(import.meta.dir, '../../README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('The folders of `src/` form layers'))
    // Items "0. ..." to "6. ...", each with its continuation lines.
    const items = section.split(/\n(?=\d+\. )/).slice(1, LAYERS.length + 1).map((item) => item.split('\n\n')[0]!)
    const folders = items.map((item) => [...item.matchAll(/`([^`]+)`/g)].map((m) => m[1]))
    expect(folders).toEqual(LAYERS.map((l) => [...l.folders]))
  })
})

describe('the check fails where it should (synthetic graphs)', () => {
  const imp = (file: string, target: string, line = 3): Import => ({ file, line, specifier: `./${target}`, target })

  test('an upward import names the file, the import, both layers and a hint', () => {
    const problems = checkLayers([imp('flowlang/tools-server.ts', 'cli/version.ts', 16)])
    expect(problems).toHaveLength(1)
    expect(problems[0]).toContain("src/flowlang/tools-server.ts:16 imports './cli/version.ts'")
    expect(problems[0]).toContain('flowlang (layer 4, frontends and runtimes) imports cli (layer 6, the CLI), a higher layer')
    expect(problems[0]).toContain('Hint: move what it needs down')
  })

  test('a workflow driver is above the engine: engine -> drivers fails, drivers -> engine passes', () => {
    expect(checkLayers([imp('workflows/drivers/local.ts', 'workflows/engine/execution.ts')])).toEqual([])
    expect(checkLayers([imp('workflows/engine/execution.ts', 'workflows/drivers/start.ts')])[0]).toContain('a higher layer')
  })

  test('an unrecorded same-layer import fails; a recorded one passes', () => {
    expect(checkLayers([imp('flows/run.ts', 'python/run.ts')])).toEqual([])
    const problems = checkLayers([imp('python/run.ts', 'builder/index.ts')])
    expect(problems[0]).toContain('imports builder of its own layer, an edge not recorded in SAME_LAYER')
  })

  test('a cycle between folders fails, even when each edge is recorded', () => {
    const layering: Layering = { ...LAYERING, sameLayer: [...SAME_LAYER, 'python -> flows'] }
    const problems = checkLayers([imp('flows/run.ts', 'python/run.ts', 7), imp('python/run.ts', 'flows/run.ts', 9)], layering)
    expect(problems).toEqual([expect.stringContaining("a cycle between folders: flows -> python (src/flows/run.ts:7 imports './python/run.ts'), python -> flows (src/python/run.ts:9 imports './flows/run.ts')")])
  })

  test('entries may import any layer but cli and server; nothing imports an entry; unknown folders are named', () => {
    expect(checkLayers([imp('index.ts', 'full-vm.ts'), imp('workflows/index.ts', 'workflows/drivers/local.ts')])).toEqual([])
    expect(checkLayers([imp('index.ts', 'cli/main.ts')])[0]).toContain('the package entry index.ts imports cli')
    expect(checkLayers([imp('cli/main.ts', 'index.ts')])[0]).toContain('imports the package entry index.ts')
    expect(checkLayers([imp('newthing/a.ts', 'vm/index.ts')])[0]).toContain('folder "newthing" is in no layer')
  })

  test('the scanner reads imports, re-exports, type imports and dynamic imports, not comments', () => {
    const text = "// import { x } from './nope.ts'\nimport type { A } from './a.ts'\nexport { b } from './b.ts'\nconst c = await import('./c.ts')\n"
    expect(ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName)).toEqual(['./a.ts', './b.ts', './c.ts'])
  })
})
