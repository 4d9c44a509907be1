/**
 * The differential corpus: hand-written bodies (hand.txt, one or more per feature) and bodies from a
 * seeded generator (generate.ts). Each runs as `_block(initial=INITIAL, **input)`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { generateCases } from './generate.ts'

export interface CorpusCase {
  name: string
  body: string
  params: string[]
  initial: unknown
  input: Record<string, unknown>
  /** `extended` for hand_extended.txt (run with that profile; CPython with the extended builtins). */
  profile?: 'extended'
  /** Compare an uncaught exception's message too (`KeyError: 'b'`), not only its class. */
  messages?: true
}

export const CORPUS_DIR = import.meta.dir
export const EXPECTED_PATH = join(CORPUS_DIR, 'expected.json')
/** CPython's results for the model-style cases (`model/...`), kept apart so both files regenerate without conflicts. */
export const MODEL_EXPECTED_PATH = join(CORPUS_DIR, 'expected_model.json')

/** The default arguments of hand-written cases (override per case with `### name | {input json}`). */
export const INITIAL = { user: { name: 'Ada', age: 36, tags: ['math', 'code'] }, n: 7 }
export const INPUT: Record<string, unknown> = { items: [3, 1, 2], text: 'Hello, World', data: { x: 1.5, y: -2, z: [1, 2] } }

export function handCases(file = 'hand.txt', prefix = 'hand'): CorpusCase[] {
  const text = readFileSync(join(CORPUS_DIR, file), 'utf8')
  const out: CorpusCase[] = []
  const seen = new Set<string>()
  for (const chunk of text.split(/^### /m).slice(1)) {
    const nl = chunk.indexOf('\n')
    const header = chunk.slice(0, nl).trim()
    const body = chunk.slice(nl + 1).replace(/\n+$/, '')
    const bar = header.indexOf(' | ')
    const name = `${prefix}/${bar < 0 ? header : header.slice(0, bar)}`
    if (seen.has(name)) throw new Error(`duplicate corpus case ${name}`)
    seen.add(name)
    const input = bar < 0 ? INPUT : JSON.parse(header.slice(bar + 3)) as Record<string, unknown>
    const c: CorpusCase = { name, body, params: ['initial', ...Object.keys(input)], initial: INITIAL, input }
    if (prefix !== 'hand') c.profile = 'extended'
    if (prefix === 'model') c.messages = true
    out.push(c)
  }
  return out
}

export function allCases(): CorpusCase[] {
  return [...handCases(), ...generateCases(), ...extendedCases(), ...modelCases()]
}

/** The extended profile's hand-written cases (`ext/...`). */
export function extendedCases(): CorpusCase[] {
  return handCases('hand_extended.txt', 'ext')
}

/**
 * Bodies written the way models write Python for data tasks (`model/...`, extended profile): helpers,
 * classes, comprehensions, format specs, json, re, collections, datetime, error paths. An uncaught
 * exception's message is compared too.
 */
export function modelCases(): CorpusCase[] {
  return handCases('hand_model.txt', 'model')
}
