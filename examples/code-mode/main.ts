// Code mode end to end: an MCP server's tools become typed atoms, their
// declarations go in a prompt, the program the model wrote (agent.js, or a
// real model with --llm URL) is type-checked, planned and checked against a
// policy, then run with approvals for the calls that move money and a trace.
// Run: npx bun examples/code-mode/main.ts [--llm http://127.0.0.1:1234/v1] [--model name]
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { AgentVM, transpile, TranspileError } from 'ajs-lang'
import { analyzeProgram, checkPlan, describeAtoms, mcpAtoms, withApprovals, type ApprovalCall, type ApprovalDecision, type PlanPolicy } from 'ajs-lang/codemode'

const HERE = import.meta.dir
const TASK = 'Refund the late orders of the customer with the given email: in full for gold customers, half otherwise; tell the customer what was refunded.'

/** What the host lets a model-written program do: read tools, refunds and notices, no network. */
export const POLICY: PlanPolicy = { allow: ['customers_find', 'orders_list', 'refund', 'notify'], maxCalls: { notify: 1 }, reach: { network: false } }

/** Stands in for a person: refunds up to 100 are approved, larger ones are not. */
export function decide(call: ApprovalCall): ApprovalDecision {
  const amount = Number(call.input.amount)
  return amount <= 100 ? true : { approve: false, reason: `${amount} is over the 100 a bot may refund` }
}

/** Ask an OpenAI-compatible endpoint for the program (the declarations are the prompt's API). */
async function askModel(url: string, model: string, declarations: string): Promise<string> {
  const res = await fetch(`${url.replace(/\/$/, '')}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(process.env.LLM_API_KEY ? { authorization: `Bearer ${process.env.LLM_API_KEY}` } : {}) },
    body: JSON.stringify({
      model,
      temperature: 0,
      messages: [
        { role: 'system', content: `Write one JavaScript function taking ({ email }) that does the task by calling these functions (they return values, do not await them). Answer with the code only.\n\n${declarations}` },
        { role: 'user', content: TASK },
      ],
    }),
  })
  const text: string = (await res.json()).choices[0].message.content
  return /```(?:\w+)?\n([\s\S]*?)```/.exec(text)?.[1] ?? text
}

export async function main(options: { llm?: string; model?: string; source?: string; email?: string; log?: (line: string) => void } = {}) {
  const log = options.log ?? (() => {})
  const tools = await mcpAtoms({ command: process.execPath, args: [join(HERE, 'tools-server.ts')] })
  try {
    // 1. The declarations a prompt needs (TypeScript, with the tools' docs).
    const declarations = describeAtoms(tools.atoms)
    log(`--- declarations for the model\n${declarations}`)
    // 2. The model's program.
    const source = options.source ?? (options.llm ? await askModel(options.llm, options.model ?? 'local-model', declarations) : readFileSync(join(HERE, 'agent.js'), 'utf8'))
    // 3. Type-checked against the tools' schemas before anything runs.
    let ast
    try {
      ast = transpile(source, { atoms: tools.atoms, typecheck: true, filename: 'agent.js' }).ast
    } catch (e) {
      if (!(e instanceof TranspileError)) throw e
      return { stage: 'typecheck', diagnostics: e.errors.map((x) => `${x.line}:${x.column} ${x.code} ${x.message}`) }
    }
    // 4. The plan, and the host's policy on it.
    const plan = analyzeProgram(ast, tools.atoms)
    log(`--- plan\n${JSON.stringify(plan.atoms, null, 2)}`)
    const violations = checkPlan(plan, POLICY)
    if (violations.length > 0) return { stage: 'plan', violations }
    // 5. Run: the destructive tool's calls wait for a decision; the trace shows every step.
    const approvals: string[] = []
    const atoms = withApprovals(tools.atoms, (call) => {
      const answer = decide(call)
      approvals.push(`${call.op} ${JSON.stringify(call.input)}: ${answer === true ? 'approved' : 'rejected'}`)
      return answer
    })
    const run = await new AgentVM(atoms).run(ast, { email: options.email ?? 'ana@example.com' }, { fuel: 1000, trace: true })
    const trace = (run.trace ?? []).map((t) => `${t.location} ${t.op} fuel ${t.fuel}${t.error ? ` (${t.error})` : ''}`)
    log(`--- approvals\n${approvals.join('\n')}\n--- trace\n${trace.join('\n')}`)
    return {
      stage: 'ran',
      renamed: tools.renamed.map((r) => `${r.tool} -> ${r.op}`),
      plan: Object.fromEntries(Object.entries(plan.atoms).map(([op, a]) => [op, a.calls])),
      approvals,
      steps: trace.length,
      result: run.result,
      error: run.error?.code,
      fuelUsed: run.fuelUsed,
    }
  } finally {
    await tools.close()
  }
}

if (import.meta.main) {
  const arg = (name: string) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined }
  // The walk-through goes to stdout with the result, so the example prints nothing on stderr unless it fails.
  const out = await main({ llm: arg('--llm'), model: arg('--model'), log: (line) => console.log(line) })
  console.log(JSON.stringify(out, null, 2))
}
