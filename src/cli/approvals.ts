/**
 * Approvals in `ajsc run` (code mode): a call of an atom that requires
 * approval (an MCP tool annotated `destructiveHint`, an atom defined with
 * `requiresApproval`) is shown on stderr and asked about on the terminal:
 * y (run it), n (reject: the call throws APPROVAL_REJECTED, catchable), e
 * (edit its arguments as JSON, then run). `--approve-all` / `--deny-all`
 * answer every call without asking; without a terminal, calls are denied
 * unless --approve-all is given.
 */
import { createInterface } from 'node:readline'
import { withApprovals, type ApprovalCall, type ApprovalDecision } from '../codemode/approval.ts'
import type { AtomDef } from '../vm/atoms/types.ts'
import type { CliIO } from './io.ts'

export type ApprovalMode = 'ask' | 'approve' | 'deny'

/** A line from the terminal (stdin), the prompt on stderr. */
export type AskLine = (prompt: string) => Promise<string>

const terminalLine: AskLine = (prompt) => new Promise((resolve) => {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true })
  rl.question(prompt, (answer) => { rl.close(); resolve(answer) })
  rl.on('close', () => resolve(''))
})

const describe = (call: ApprovalCall) => `${call.op}${call.mcp ? ` (MCP ${call.mcp.server}/${call.mcp.tool})` : ''} ${JSON.stringify(call.input)}`

/** The atoms with `ajsc run`'s approval step (atoms that require none are unchanged). */
export function approvalGate(atoms: readonly AtomDef[], mode: ApprovalMode, io: CliIO, ask: AskLine = terminalLine): AtomDef[] {
  let warned = false
  return withApprovals(atoms, async (call): Promise<ApprovalDecision> => {
    if (mode === 'approve') {
      io.err(`approval: ${describe(call)}: approved (--approve-all)\n`)
      return true
    }
    if (mode === 'deny') {
      io.err(`approval: ${describe(call)}: denied (--deny-all)\n`)
      return { approve: false, reason: 'denied by --deny-all' }
    }
    if (!io.stdinIsTTY) {
      if (!warned) io.err('approval: no terminal to ask on; calls that need approval are denied (pass --approve-all or --deny-all)\n')
      warned = true
      io.err(`approval: ${describe(call)}: denied\n`)
      return { approve: false, reason: 'no terminal to ask for approval' }
    }
    for (;;) {
      const answer = (await ask(`approve ${describe(call)}? [y]es / [n]o / [e]dit arguments: `)).trim().toLowerCase()
      if (answer === 'y' || answer === 'yes') return true
      if (answer === 'n' || answer === 'no' || answer === '') return { approve: false, reason: 'rejected at the terminal' }
      if (answer === 'e' || answer === 'edit') {
        const text = await ask('arguments as JSON: ')
        try {
          const input: unknown = JSON.parse(text)
          if (input && typeof input === 'object' && !Array.isArray(input)) return { approve: true, input: input as Record<string, unknown> }
        } catch { /* asked again */ }
        io.err('not a JSON object; asked again\n')
      }
    }
  })
}
