/**
 * The AgentVM of the full package: the runtime plus the transpiler, so
 * `vm.run(source)` compiles source text (cached) with the VM's own atoms
 * known to the transpiler.
 */
import { AgentVM as RuntimeVM, type AgentVMOptions } from './vm/agent-vm.ts'
import type { AtomDef } from './vm/atoms/types.ts'
import { transpile } from './transpiler/index.ts'

export class AgentVM extends RuntimeVM {
  constructor(customAtoms: Record<string, AtomDef> | AtomDef[] = {}, options: AgentVMOptions = {}) {
    let self: RuntimeVM | undefined
    super(customAtoms, {
      sourceCompiler: (source) => transpile(source, { atoms: [...(self?.atoms.keys() ?? [])] }).ast,
      ...options,
    })
    self = this
  }
}
