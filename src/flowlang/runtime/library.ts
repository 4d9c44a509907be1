/**
 * The FlowLang runtime library: the FlowLang atoms as one opt-in library a
 * VM installs (`new AgentVM([], { libraries: [flowlangLibrary] })`); a turn
 * program declares it on its root (`libraries: { flowlang: 1 }`), so a VM
 * without it refuses the program before running it.
 */
import { defineLibrary } from '../../vm/libraries.ts'
import { FLOW_ATOMS, FLOWLANG_LIBRARY_VERSION } from './atoms.ts'

export const flowlangLibrary = defineLibrary({ name: 'flowlang', version: FLOWLANG_LIBRARY_VERSION, atoms: FLOW_ATOMS })
