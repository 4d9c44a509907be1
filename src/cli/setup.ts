/**
 * The embedded default setup of `ajsc run`: everything a program needs to
 * run from a terminal with no services. An in-memory store is always there;
 * network access exists only when granted (`--allow-fetch`), and an LLM only
 * when an endpoint is named (`--llm`). The battery atoms are installed, so
 * vector and chat work with the same flags; the runtime libraries a program
 * declares (Python, flows) load on first use.
 */
import { AgentVM } from '../full-vm.ts'
import type { ProcedureStore } from '../vm/procedures.ts'
import type { AtomDef } from '../vm/atoms/types.ts'
import { batteryAtoms } from '../batteries/index.ts'
import { assembleVM } from '../host/assemble.ts'
import { hostCapabilities } from '../host/capabilities.ts'

export interface SetupOptions {
  /** Hosts the program may fetch from (`--allow-fetch`). Empty: no `fetch` capability. */
  allowFetch?: readonly string[]
  /** Hosts that may be private/loopback addresses (`--allow-private`). */
  allowPrivate?: readonly string[]
  /** OpenAI-compatible endpoint (`--llm`). */
  llmUrl?: string
  model?: string
  apiKey?: string
  procedures?: ProcedureStore
  /** Custom atoms from `--atoms <module>`; one named like a battery replaces it. */
  atoms?: readonly AtomDef[]
}

export interface RunSetup {
  vm: AgentVM
  capabilities: Record<string, unknown>
}

export function createRunSetup(options: SetupOptions = {}): RunSetup {
  const capabilities = hostCapabilities({
    fetch: { allowedHosts: options.allowFetch ?? [], allowPrivateHosts: options.allowPrivate ?? [] },
    ...(options.llmUrl ? {
      // A local model may think for two minutes on one call; the run's own --timeout still bounds the whole run.
      llm: { baseUrl: options.llmUrl, model: options.model ?? 'default', timeoutMs: 120_000, ...(options.apiKey ? { apiKey: options.apiKey } : {}) },
    } : {}),
  })
  const vm = assembleVM<AgentVM>({ VM: AgentVM, baseAtoms: batteryAtoms, atoms: options.atoms ?? [], ...(options.procedures ? { procedures: options.procedures } : {}) })
  return { vm, capabilities }
}
