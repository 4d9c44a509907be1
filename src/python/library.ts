/**
 * `ajs-lang/runtime/python`: the Python runtime library (the `py$...`
 * functions programs compiled from Python call). Importing this module
 * registers it for every AgentVM of the process; or pass `pythonLibrary`
 * as `new AgentVM(atoms, { libraries: [pythonLibrary] })`.
 */
import { defineLibrary, registerLibrary } from '../vm/libraries.ts'
import { LIBRARIES } from '../ast/libraries.ts'
import { PYTHON_FUNCTIONS } from './runtime/functions.ts'

export const pythonLibrary = defineLibrary({ name: 'python', version: LIBRARIES.python.version, functions: PYTHON_FUNCTIONS })

registerLibrary(pythonLibrary)
