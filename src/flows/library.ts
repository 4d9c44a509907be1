/**
 * `ajs-lang/runtime/flow`: the flow runtime library (the atoms compiled flow
 * documents call: step events, model calls, branch handles, loop inputs,
 * flow errors). Importing this module registers it for every AgentVM of the
 * process; or pass `flowLibrary` as `new AgentVM(atoms, { libraries: [flowLibrary] })`.
 * Flows with Python code blocks also declare the Python library.
 */
import { defineLibrary, registerLibrary } from '../vm/libraries.ts'
import { LIBRARIES } from '../ast/libraries.ts'
import { flowAtoms } from './runtime/atoms.ts'

export const flowLibrary = defineLibrary({ name: 'flow', version: LIBRARIES.flow.version, atoms: flowAtoms })

registerLibrary(flowLibrary)
