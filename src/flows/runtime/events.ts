/**
 * The events of a flow run: `run_started`, `step_started`, `step_completed`
 * (with the fuel the step used, and tokens when the `llm` capability
 * reports them), `step_failed` and `flow_completed`.
 *
 * Step events come from the compiled program itself (the `flowStepStart` /
 * `flowStepEnd` atoms) through a per-run sink the host passes as the
 * `flowEvents` capability, so the same AST reports its steps on any VM that
 * has the flow atoms. `runFlow` adds the run-level events around it and
 * turns the steps still open when a run fails into `step_failed`.
 */
import type { AgentError } from '../../vm/errors.ts'

export interface TokenUsage { prompt: number; completion: number; total: number }

export type FlowEvent =
  | { type: 'run_started'; flow: string; format: 'saved-flow' | 'blocks'; at: number; input: unknown }
  | { type: 'step_started'; step: string; kind: string; at: number; iteration?: number }
  | { type: 'step_completed'; step: string; kind: string; at: number; ms: number; fuel: number; tokens?: TokenUsage; iteration?: number }
  | { type: 'step_failed'; step: string; kind: string; at: number; ms: number; error: { code: string; message: string }; iteration?: number }
  | { type: 'flow_completed'; flow: string; status: 'ok' | 'failed'; at: number; ms: number; fuelUsed: number; error?: { code: string; message: string } }

interface OpenStep { step: string; kind: string; at: number; fuelLeft: number; tokens?: TokenUsage; iteration?: number }

/** The `flowEvents` capability: collects one run's events. */
export class FlowEventSink {
  readonly events: FlowEvent[] = []
  private readonly open: OpenStep[] = []

  constructor(private readonly limit = 100_000) {}

  private push(e: FlowEvent): void {
    if (this.events.length < this.limit) this.events.push(e)
  }

  emit(e: FlowEvent): void {
    this.push(e)
  }

  /** `iteration`: the index of the innermost loop iteration the step runs in. */
  stepStarted(step: string, kind: string, at: number, fuelLeft: number, iteration?: number): void {
    const it = iteration === undefined ? {} : { iteration }
    this.open.push({ step, kind, at, fuelLeft, ...it })
    this.push({ type: 'step_started', step, kind, at, ...it })
  }

  /** Tokens the llm capability reported for a call made by `step`. */
  addTokens(step: string, usage: TokenUsage): void {
    const s = this.open.findLast((o) => o.step === step)
    if (s) {
      const t = (s.tokens ??= { prompt: 0, completion: 0, total: 0 })
      t.prompt += usage.prompt
      t.completion += usage.completion
      t.total += usage.total
    }
  }

  stepCompleted(step: string, at: number, fuelLeft: number): void {
    const i = this.open.findLastIndex((s) => s.step === step)
    if (i < 0) return
    const [s] = this.open.splice(i, 1)
    const fuel = Math.round((s!.fuelLeft - fuelLeft) * 1e6) / 1e6
    this.push({
      type: 'step_completed', step, kind: s!.kind, at, ms: at - s!.at, fuel,
      ...(s!.tokens ? { tokens: s!.tokens } : {}), ...(s!.iteration === undefined ? {} : { iteration: s!.iteration }),
    })
  }

  /** The innermost step still open (where a failed run stopped). */
  innermost(): { step: string; kind: string } | undefined {
    const s = this.open.at(-1)
    return s && { step: s.step, kind: s.kind }
  }

  /** After a failed run: every step still open failed, innermost first. */
  failOpen(error: AgentError, at: number): void {
    while (this.open.length > 0) {
      const s = this.open.pop()!
      this.push({
        type: 'step_failed', step: s.step, kind: s.kind, at, ms: at - s.at, error: { code: error.code, message: error.message },
        ...(s.iteration === undefined ? {} : { iteration: s.iteration }),
      })
    }
  }
}
