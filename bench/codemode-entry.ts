// What bench/codemode.mjs bundles: the VM, the transpiler and code mode (MCP atoms, declarations).
export { AgentVM, defineAtom } from '../src/vm/index.ts'
export { transpile } from '../src/transpiler/index.ts'
export { mcpAtoms, describeAtoms } from '../src/codemode/index.ts'
