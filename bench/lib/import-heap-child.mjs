// V8 heap an import leaves behind, in a fresh `node --expose-gc` process: heapUsed after a full gc(),
// before and after importing the module at argv[2] (the module's code, tables and whatever its top
// level keeps; garbage collected first). Prints { bytes, exports } as one JSON line.
import { pathToFileURL } from 'node:url'

gc()
gc()
const h0 = process.memoryUsage().heapUsed
const m = await import(pathToFileURL(process.argv[2]).href)
gc()
gc()
const bytes = process.memoryUsage().heapUsed - h0
process.stdout.write(JSON.stringify({ bytes, exports: Object.keys(m).length }) + '\n')
