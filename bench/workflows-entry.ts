// What bench/workflows.mjs bundles: the workflow runtime and the plain VM to compare with.
export * from '../src/workflows/index.ts'
export { AgentVM, defineAtom } from '../src/vm/index.ts'
export { transpile } from '../src/transpiler/index.ts'
