/**
 * Differential harness: run the same AJS source as plain JavaScript (in this
 * test process, via `new Function`, allowed in tests only) and on the VM,
 * and compare the results.
 *
 * Results are compared after the same normalization the VM's result
 * boundary applies (plain JSON data: `undefined` -> `null` at the top,
 * `undefined` properties dropped, `-0` -> `0`); NaN and the infinities are
 * kept distinguishable. A thrown error compares by message.
 */
import { expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { transpile } from '../../../src/transpiler/index.ts'
import { TranspileError } from '../../../src/diagnostics/diagnostic.ts'
import type { AjsProgram } from '../../../src/ast/types.ts'

export interface Program {
  name: string
  source: string
  args: Record<string, unknown>
}

export type Outcome = { ok: true; value: unknown } | { ok: false; message: string }

/** Plain-data normal form used on both sides. */
export function normalize(v: unknown): unknown {
  if (v === undefined) return null
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return '<NaN>'
    if (v === Infinity) return '<Infinity>'
    if (v === -Infinity) return '<-Infinity>'
    return v === 0 ? 0 : v
  }
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : normalize(x)))
  if (v && typeof v === 'object') {
    if (v instanceof Error) return { name: v.name, message: v.message }
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k]
      if (x !== undefined) out[k] = normalize(x)
    }
    return out
  }
  return v
}

const clone = <T>(v: T): T => structuredClone(v)

/** The entry of the source as a JavaScript function of the run's args (strict mode). */
function nativeEntry(p: Program): () => unknown {
  const { signature } = transpile(p.source)
  // `export default function f` is module syntax: as a script body the same function is `function f`.
  const body = p.source.replace(/^export default (async )?function/m, '$1function')
  const make = new Function(`"use strict";\n${body}\nreturn ${signature.name}`) as () => (...a: unknown[]) => unknown
  const fn = make()
  const args = clone(p.args)
  if (signature.kind === 'object') return () => fn(args)
  if (signature.kind === 'named') return () => fn(...signature.params.map((q) => args[q.name]))
  return () => fn()
}

const failed = (e: unknown): Outcome => ({ ok: false, message: e instanceof Error ? e.message : String(e) })

/** Run the source as JavaScript: strict mode, the last function is the entry. */
export function runNative(p: Program): Outcome {
  const entry = nativeEntry(p)
  try {
    return { ok: true, value: normalize(entry()) }
  } catch (e) {
    return failed(e)
  }
}

/** As runNative, for sources whose entry may be `async`: its promise is awaited. */
export async function runNativeAsync(p: Program): Promise<Outcome> {
  const entry = nativeEntry(p)
  try {
    return { ok: true, value: normalize(await entry()) }
  } catch (e) {
    return failed(e)
  }
}

interface VmLike {
  run(ast: AjsProgram, args: unknown, options: { fuel: number }): Promise<{ result: unknown; error?: { message: string } }>
}

let vmCtor: (new () => VmLike) | null | undefined

/** The VM class, once `src/vm/index.ts` exists and exports `AgentVM`. */
export async function loadVm(): Promise<(new () => VmLike) | null> {
  if (vmCtor !== undefined) return vmCtor
  const path = new URL('../../../src/vm/index.ts', import.meta.url)
  vmCtor = null
  if (existsSync(path)) {
    const mod = (await import(path.href)) as { AgentVM?: new () => VmLike }
    vmCtor = mod.AgentVM ?? null
  }
  return vmCtor
}

export async function runVm(p: Program, Vm: new () => VmLike): Promise<Outcome> {
  const { ast } = transpile(p.source, { filename: `${p.name}.ajs` })
  const r = await new Vm().run(ast, clone(p.args), { fuel: 1e7 })
  if (r.error) return { ok: false, message: r.error.message }
  return { ok: true, value: normalize(r.result) }
}

/** One test per program: it runs as JavaScript (it must) and gives the same outcome on the VM. */
export function testSideBySide(programs: readonly Program[], Vm: new () => VmLike): void {
  for (const p of programs) {
    test(p.name, async () => {
      const native = runNative(p)
      expect(native.ok).toBe(true)
      expect(await runVm(p, Vm)).toEqual(native)
    })
  }
}

/** The refusal of `source` (after a helper `show(v)`, which it may call): its code, hint and line; a source accepted fails the test. */
export function refusal(source: string): { code: string; hint: string; line: number } {
  source = `function show(v) { return v }\n${source}`
  try { transpile(source) } catch (e) {
    if (!(e instanceof TranspileError)) throw e
    return { code: e.code, hint: e.hint, line: e.line }
  }
  throw new Error(`accepted: ${source}`)
}

/** One test per case: `body`, the body of `function f()`, is refused with `code`, located in it, the hint containing `hint`. */
export function testRefusals(cases: ReadonlyArray<readonly [what: string, body: string, code: string, hint: string]>): void {
  for (const [what, body, code, hint] of cases) {
    test(what, () => {
      const r = refusal(`function f() {\n${body}\n}`)
      expect({ code: r.code, line: r.line > 1 }).toEqual({ code, line: true })
      expect(r.hint).toContain(hint)
    })
  }
}
