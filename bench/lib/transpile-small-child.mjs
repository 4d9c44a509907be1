// One process of the bench's small-source transpile measure (transpile-small.mjs): argv = <ours bundle> <rounds>.
// Prints [{ lines, acorn, transpile }] (ms per call, least of the rounds, CPU time) as one JSON line.
import { parse } from 'acorn'
import { pathToFileURL } from 'node:url'
import { join } from 'node:path'
import { measureSmall, smallSources } from './transpile-small.mjs'
import { benchDir } from './paths.mjs'

const { transpile } = await import(pathToFileURL(process.argv[2]).href)
const { generateLargeSource } = await import(pathToFileURL(join(benchDir, 'workloads/gen-large.mjs')).href)
process.stdout.write(JSON.stringify(measureSmall(parse, transpile, smallSources(join(benchDir, 'workloads'), generateLargeSource), { rounds: Number(process.argv[3]) })) + '\n')
