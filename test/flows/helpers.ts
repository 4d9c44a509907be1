/** Shared imports for the flow tests. */
export { AgentVM, defineAtom } from '../../src/vm/index.ts'
export { flowAtoms as flowAtomsForTest } from '../../src/flows/index.ts'
