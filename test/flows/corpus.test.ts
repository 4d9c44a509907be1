/**
 * The Flow Specification v1 corpus (test/fixtures/vendor/flow-spec-v1, see PROVENANCE.md): every
 * one of its files comes out exactly as manifest.json says for a strict v1
 * importer — valid (with the reference walk order and a lossless round
 * trip), invalid with exactly the listed rules in order, or a parse error.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { FlowError, parseSavedFlow, serializeSavedFlow, validateSavedFlow, walkBfs } from '../../src/flows/index.ts'

const CORPUS = resolve(import.meta.dir, '../fixtures/vendor/flow-spec-v1')
interface Entry { file: string; v1: string | { invalid: string[] }; walk_bfs?: string[]; round_trip?: boolean }
const manifest = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as { files: Entry[] }
const SHAPE_RULES = new Set(['ParseError', 'MissingField', 'WrongType'])

/** `DanglingEdgeTarget{edge:x,target:missing}` → rule and the names its message must mention. */
function expected(spec: string): { rule: string; mentions: string[] } {
  const m = /^(\w+)(?:[({](.*)[)}])?$/.exec(spec)!
  const args = (m[2] ?? '').split(',').map((a) => a.trim()).filter(Boolean)
  const mentions = args.map((a) => /^\w+:(\w+)$/.exec(a)?.[1] ?? /^([\w-]+):\s/.exec(a)?.[1] ?? a)
  return { rule: m[1]!, mentions }
}

describe('flow-spec-v1 corpus', () => {
  test('has 33 files', () => expect(manifest.files.length).toBe(33))

  for (const entry of manifest.files) {
    const text = readFileSync(join(CORPUS, entry.file), 'utf8')
    test(entry.file, () => {
      const v1 = entry.v1
      let value: unknown
      try { value = JSON.parse(text) } catch { value = undefined }
      if (typeof v1 === 'string' && v1.startsWith('valid')) {
        expect(validateSavedFlow(value)).toEqual([])
        const flow = parseSavedFlow(text)
        expect(flow.spec_version).toBe('1')
        if (entry.walk_bfs) expect(walkBfs(flow)).toEqual(entry.walk_bfs)
        const again = parseSavedFlow(serializeSavedFlow(flow))
        expect(again).toEqual(flow)
        expect(serializeSavedFlow(again)).toBe(serializeSavedFlow(flow))
      } else if (typeof v1 === 'string' && v1.startsWith('parse_error')) {
        let error: unknown
        try { parseSavedFlow(text) } catch (e) { error = e }
        expect(error).toBeInstanceOf(FlowError)
        const problems = (error as FlowError).problems
        expect(problems.length).toBeGreaterThan(0)
        for (const p of problems) expect(SHAPE_RULES.has(p.rule)).toBe(true)
        const missing = /missing (?:field )?([\w/]+)/.exec(v1)?.[1]
        if (missing) {
          expect(problems.map((p) => `${p.rule} ${p.path.split('/').pop()}`)).toEqual(missing.split('/').map((f) => `MissingField ${f}`))
        } else {
          expect(problems.map((p) => p.rule)).toEqual(['ParseError'])
          expect(problems[0]!.line).toBe(1)
        }
      } else {
        const want = (v1 as { invalid: string[] }).invalid.map(expected)
        const problems = validateSavedFlow(value)
        expect(problems.map((p) => p.rule)).toEqual(want.map((w) => w.rule))
        want.forEach((w, i) => { for (const name of w.mentions) expect(`${problems[i]!.path} ${problems[i]!.message}`).toContain(name) })
        let error: unknown
        try { parseSavedFlow(text) } catch (e) { error = e }
        expect((error as FlowError).problems.map((p) => p.rule)).toEqual(want.map((w) => w.rule))
        for (const p of (error as FlowError).problems) expect(p.line).toBeGreaterThan(1)
      }
    })
  }
})
