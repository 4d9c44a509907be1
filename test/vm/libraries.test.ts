/**
 * Programs declare what they need: runtime libraries (`libraries`) and custom
 * atoms (`atoms`) on the root. A VM meets the declaration before the program
 * runs, from its `libraries` option, the process-wide registry or its
 * `loadLibrary` option, and refuses it otherwise with one error naming the
 * missing piece and how to supply it.
 */
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { AgentVM, defineAtom, defineLibrary, registerLibrary, registeredLibrary, validateAst, LIBRARIES, type AjsProgram, type RuntimeLibrary } from '../../src/vm/index.ts'
import { AgentVM as FullVM, loadKnownLibrary } from '../../src/index.ts'

const ROOT = resolve(import.meta.dir, '../..')

/** A library with one guest function `twice$(n)` and one atom `libNote`. */
function makeLibrary(name: string, version: number): RuntimeLibrary {
  const notes: unknown[] = []
  return defineLibrary({
    name,
    version,
    functions: { [`${name.replace(/-/g, '_')}$twice`]: (_rt, [n]) => (n as number) * 2 },
    atoms: [defineAtom(`${name.replace(/-/g, '_')}Note`, { type: 'object' }, undefined, (input) => { notes.push(input); return notes.length })],
  })
}

function programUsing(name: string, version: number, extra: Partial<AjsProgram> = {}): AjsProgram {
  const fn = `${name.replace(/-/g, '_')}$twice`
  return {
    ajs: 1, op: 'seq', libraries: { [name]: version }, params: 'args',
    steps: [{ op: 'return', value: { $expr: 'call', callee: fn, args: [{ $expr: 'member', object: { $expr: 'ident', name: 'args' }, property: 'n' }] } }],
    ...extra,
  }
}

describe('the root declares runtime libraries', () => {
  test('the declaration is part of the format: validateAst checks names and versions', () => {
    expect(validateAst(programUsing('python', 1))).toEqual([])
    expect(validateAst({ ...programUsing('python', 1), libraries: { python: 0 } }).map((p) => p.path)).toEqual(['/libraries/python'])
    expect(validateAst({ ...programUsing('python', 1), libraries: { 'Not A Name': 1 } })[0]?.message).toMatch(/Invalid library name/)
    expect(validateAst({ ...programUsing('python', 1), libraries: ['python'] as never })[0]?.path).toBe('/libraries')
  })

  test('a VM given the library runs the program; one without it refuses it before running, naming it', async () => {
    const lib = makeLibrary('mathx', 1)
    const ok = await new AgentVM({}, { libraries: [lib] }).run(programUsing('mathx', 1), { n: 21 })
    expect(ok.error).toBeUndefined()
    expect(ok.result).toBe(42)
    const refused = await new AgentVM().run(programUsing('mathx', 1), { n: 21 })
    expect(refused.error?.code).toBe('LIBRARY_MISSING')
    expect(refused.error?.message).toContain('"mathx"')
    expect(refused.error?.hint).toContain('Known libraries: python, flow')
    expect(refused.fuelUsed).toBe(0)
  })

  test('a known library that is missing is refused with the import and the option that supply it', async () => {
    // A library name of the catalog, on a VM that may not consult the registry for it: checked via the message shape.
    const vm = new AgentVM({}, { loadLibrary: () => undefined })
    const program = programUsing('flow', 1)
    if (registeredLibrary('flow')) return // another test file in this process registered it: covered by the subprocess test below
    const r = await vm.run(program, { n: 1 })
    expect(r.error?.code).toBe('LIBRARY_MISSING')
    expect(r.error?.hint).toContain(`import { ${LIBRARIES.flow.exportName} } from '${LIBRARIES.flow.module}'`)
  })

  test('a program compiled against a newer library version is refused (LIBRARY_VERSION); older versions run', async () => {
    const lib = makeLibrary('verlib', 2)
    const vm = new AgentVM({}, { libraries: [lib] })
    expect((await vm.run(programUsing('verlib', 3), { n: 1 })).error?.code).toBe('LIBRARY_VERSION')
    expect((await vm.run(programUsing('verlib', 1), { n: 1 })).result).toBe(2)
    expect((await vm.run(programUsing('verlib', 2), { n: 2 })).result).toBe(4)
  })

  test('loadLibrary is called once, only for a declared library the VM lacks, and its atoms become callable', async () => {
    const lib = makeLibrary('lazylib', 1)
    const asked: string[] = []
    const vm = new AgentVM({}, { loadLibrary: async (name) => { asked.push(name); return name === 'lazylib' ? lib : undefined } })
    expect((await vm.run({ ajs: 1, op: 'seq', steps: [{ op: 'return', value: 1 }] })).result).toBe(1)
    expect(asked).toEqual([])
    const p = programUsing('lazylib', 1)
    expect((await vm.run(p, { n: 5 })).result).toBe(10)
    expect((await vm.run(programUsing('lazylib', 1), { n: 6 })).result).toBe(12)
    expect(asked).toEqual(['lazylib'])
    const note: AjsProgram = { ajs: 1, op: 'seq', libraries: { lazylib: 1 }, steps: [{ op: 'lazylibNote', text: 'hi', result: 'n' }, { op: 'return', value: { $expr: 'ident', name: 'n' } }] }
    expect((await vm.run(note)).result).toBe(1)
    const none = await vm.run(programUsing('otherlib', 1), { n: 1 })
    expect(none.error?.code).toBe('LIBRARY_MISSING')
  })

  test('a loader that throws is a run error, never a rejected promise', async () => {
    const vm = new AgentVM({}, { loadLibrary: () => { throw new Error('disk on fire') } })
    const r = await vm.run(programUsing('brokenlib', 1), { n: 1 })
    expect(r.error?.message).toContain('disk on fire')
    expect(r.result).toBeNull()
  })

  test('registerLibrary makes a library available to every VM of the process', async () => {
    const name = `reglib-${process.pid}`
    expect((await new AgentVM().run(programUsing(name, 1), { n: 1 })).error?.code).toBe('LIBRARY_MISSING')
    registerLibrary(makeLibrary(name, 1))
    expect(registeredLibrary(name)?.version).toBe(1)
    expect((await new AgentVM().run(programUsing(name, 1), { n: 4 })).result).toBe(8)
    expect(() => registerLibrary({ name: 'x', version: 1 } as RuntimeLibrary)).toThrow(/defineLibrary/)
  })

  test('a library atom never silently replaces an atom the host gave the VM', () => {
    const lib = makeLibrary('clash', 1)
    const mine = defineAtom('clashNote', { type: 'object' }, undefined, () => 'mine')
    expect(() => new AgentVM([mine], { libraries: [lib] })).toThrow(/already has an atom of that name/)
    expect(() => defineLibrary({ name: 'Bad Name', version: 1 })).toThrow(/invalid name/)
    expect(() => defineLibrary({ name: 'ok', version: 0 })).toThrow(/positive integer/)
  })
})

describe('the root declares custom atoms', () => {
  test('every missing atom is named in one UNKNOWN_ATOM before anything runs', async () => {
    const calls: string[] = []
    const send = defineAtom('send', { type: 'object' }, undefined, () => { calls.push('send'); return true })
    const program: AjsProgram = {
      ajs: 1, op: 'seq', atoms: ['send', 'slack:post', 'audit'],
      steps: [{ op: 'send', result: 'a' }, { op: 'slack:post', text: 'x' }, { op: 'return', value: 1 }],
    }
    const r = await new AgentVM([send]).run(program)
    expect(r.error?.code).toBe('UNKNOWN_ATOM')
    // The compiler's located error for the first call, naming every other missing atom too.
    expect(r.error?.message).toContain('slack:post')
    expect(r.error?.message).toContain('"audit"')
    expect(r.error?.message).not.toContain('"send"')
    expect(calls).toEqual([])
    expect(r.fuelUsed).toBe(0)
    const post = defineAtom('slack:post', { type: 'object' }, undefined, () => 'posted')
    const audit = defineAtom('audit', { type: 'object' }, undefined, () => 'ok')
    expect((await new AgentVM([send, post, audit]).run(program)).result).toBe(1)
    expect(calls).toEqual(['send'])
  })

  test('a declared atom that no call reaches is refused too, before anything runs', async () => {
    const program: AjsProgram = { ajs: 1, op: 'seq', atoms: ['audit', 'trace'], steps: [{ op: 'return', value: 1 }] }
    const r = await new AgentVM().run(program)
    expect(r.error?.code).toBe('UNKNOWN_ATOM')
    expect(r.error?.message).toContain('"audit", "trace"')
    expect(r.fuelUsed).toBe(0)
  })

  test('vendor atom names are valid in the declaration', () => {
    expect(validateAst({ ajs: 1, op: 'seq', atoms: ['slack:send_message'], steps: [] })).toEqual([])
    expect(validateAst({ ajs: 1, op: 'seq', atoms: ['__proto__'], steps: [] })[0]?.path).toBe('/atoms')
  })

  test('old ASTs without a declaration keep working', async () => {
    expect((await new AgentVM().run({ ajs: 1, op: 'seq', steps: [{ op: 'return', value: 'old' }] })).result).toBe('old')
  })
})

describe('the full entry loads the known libraries on first use', () => {
  test('loadKnownLibrary covers exactly the catalog: every module library loads; an engine library never does', async () => {
    for (const [name, spec] of Object.entries(LIBRARIES)) {
      const lib = await loadKnownLibrary(name)
      if ('provider' in spec && spec.provider === 'engine') {
        expect(lib).toBeUndefined()
        continue
      }
      expect(lib?.name).toBe(name)
      expect(lib?.version).toBe(spec.version)
    }
    expect(await loadKnownLibrary('nope')).toBeUndefined()
  })

  test('a workflow program is refused by a plain VM with the way to run it (the workflow engine)', async () => {
    const { compileWorkflow } = await import('../../src/workflows/index.ts')
    const wf = compileWorkflow("export const meta = { name: 'w' }\nconst a = await agent('hi')\nexport default { a }")
    expect(wf.ast.libraries).toEqual({ workflow: 1 })
    const r = await new FullVM().run(wf.ast, { args: {} })
    expect(r.error?.code).toBe('LIBRARY_MISSING')
    expect(r.error?.hint).toContain('startWorkflow()')
    expect(r.error?.hint).toContain('ajsc workflow run')
  })

  test('ajs-lang/vm alone (a fresh process) refuses a Python AST by name; importing ajs-lang/runtime/python makes it run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ajs-lib-'))
    try {
      const program = { ajs: 1, op: 'seq', libraries: { python: 1 }, params: 'args', steps: [{ op: 'return', value: { $expr: 'call', callee: 'py$len', args: [{ $expr: 'literal', value: 'abc' }] } }] }
      const script = (withRuntime: boolean) => `
        ${withRuntime ? `import '${ROOT}/src/python/library.ts'` : ''}
        import { AgentVM } from '${ROOT}/src/vm/index.ts'
        const r = await new AgentVM().run(${JSON.stringify(program)}, {})
        console.log(JSON.stringify({ result: r.result, code: r.error?.code ?? null, hint: r.error?.hint ?? null }))
      `
      const run = (withRuntime: boolean) => {
        const file = join(dir, `${withRuntime ? 'with' : 'without'}.ts`)
        writeFileSync(file, script(withRuntime))
        const out = Bun.spawnSync([process.execPath, file], { cwd: ROOT })
        return JSON.parse(out.stdout.toString().trim()) as { result: unknown; code: string | null; hint: string | null }
      }
      const without = run(false)
      expect(without.code).toBe('LIBRARY_MISSING')
      expect(without.hint).toContain("from 'ajs-lang/runtime/python'")
      expect(run(true)).toEqual({ result: 3, code: null, hint: null })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)

  test('ajs-lang/vm alone refuses a seed-dialect root with the way to run it; importing ajs-lang/dialect/seed runs it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ajs-dialect-'))
    try {
      const seed = { op: 'seq', steps: [{ op: 'varSet', key: 'x', value: 41 }, { op: 'return', value: { $expr: 'binary', op: '+', left: { $expr: 'ident', name: 'x' }, right: { $expr: 'literal', value: 1 } } }] }
      const run = (withDialect: boolean) => {
        const file = join(dir, `${withDialect ? 'with' : 'without'}.ts`)
        writeFileSync(file, `
          ${withDialect ? `import '${ROOT}/src/vm/seed-dialect.ts'` : ''}
          import { AgentVM } from '${ROOT}/src/vm/index.ts'
          const r = await new AgentVM().run(${JSON.stringify(seed)}, {})
          console.log(JSON.stringify({ result: r.result, code: r.error?.code ?? null, hint: r.error?.hint ?? null }))
        `)
        const out = Bun.spawnSync([process.execPath, file], { cwd: ROOT })
        return JSON.parse(out.stdout.toString().trim()) as { result: unknown; code: string | null; hint: string | null }
      }
      const without = run(false)
      expect(without.code).toBe('AST_VERSION')
      expect(without.hint).toContain("'ajs-lang/dialect/seed'")
      expect(without.hint).toContain('ajsc migrate')
      expect(run(true)).toEqual({ result: 42, code: null, hint: null })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)

  test('the full AgentVM runs a program that declares a known library without any option', async () => {
    const program = { ajs: 1, op: 'seq', libraries: { python: 1 }, steps: [{ op: 'return', value: { $expr: 'call', callee: 'py$len', args: [{ $expr: 'literal', value: [1, 2] }] } }] }
    expect((await new FullVM().run(program)).result).toBe(2)
  })
})
