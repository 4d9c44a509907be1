// Runs the transpile section (or the sizes in spec.only) in a fresh process,
// so the heap left by the execution section or by a smaller size (hundreds of
// MB of garbage) does not slow the GC-heavy parses of large sources down. argv = <spec.json>;
// prints the section's result as one JSON line (progress lines go to stderr).
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { runTranspile } from './transpile.mjs'
import { rng } from './timing.mjs'

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const { generateLargeSource } = await import(pathToFileURL(spec.genLarge).href)
const transpile = spec.oursBundle ? (await import(pathToFileURL(spec.oursBundle).href)).transpile : undefined
const opts = { transpile: spec.transpile, rand: rng(spec.seed) }
const out = await runTranspile({ generateLargeSource, transpile, opts, only: spec.only, log: (s) => process.stderr.write(s + '\n') })
process.stdout.write(JSON.stringify(out) + '\n')
