/**
 * Plan policies: what a program's plan (analyzeProgram) may contain before a
 * host agrees to run it. `checkPlan(plan, policy)` lists every way the plan
 * exceeds the policy, each naming the policy key that refuses it, so a
 * server can answer with the key an operator would change and a model with
 * what to rewrite. Nothing runs.
 */
import type { Bound, ProgramPlan } from './plan.ts'
import { unknownKeyMessage } from '../host/unknown-key.ts'

/** What a plan may reach (`false`: the program must not). */
export interface PlanReach {
  network?: boolean
  store?: boolean
  model?: boolean
  subAgent?: boolean
  procedures?: boolean
  mcp?: boolean
}

export interface PlanPolicy {
  /** The plan's worst-case fuel must be a number at most this (an `unbounded` plan is refused). */
  maxFuel?: number
  /** The only `io` atoms the program may call (pure atoms are not limited by it: use `deny`). */
  allow?: string[]
  /** Atoms the program must not call. */
  deny?: string[]
  /** At most this many calls of an atom in one run (a bound over the inputs or `unbounded` is refused). */
  maxCalls?: Record<string, number>
  /** What the program must not reach. */
  reach?: PlanReach
}

export interface PlanViolation {
  /** The policy key that refuses the plan: `maxFuel`, `allow`, `deny`, `maxCalls.<atom>`, `reach.<what>`. */
  key: string
  message: string
  /** The atom concerned, when there is one. */
  op?: string
  /** `line:col` of its first call site. */
  loc?: string
}

const REACH_KEYS = ['network', 'store', 'model', 'subAgent', 'procedures', 'mcp'] as const
const REACH_WORDS: Record<(typeof REACH_KEYS)[number], string> = {
  network: 'the network (httpFetch)', store: 'the store', model: 'a model (llmPredict)', subAgent: 'a sub-agent (agentRun)',
  procedures: 'stored procedures', mcp: 'MCP servers',
}

const boundText = (b: Bound) => (typeof b === 'number' ? String(b) : b)

/** Every way `plan` exceeds `policy` (empty: it satisfies it). */
export function checkPlan(plan: ProgramPlan, policy: PlanPolicy): PlanViolation[] {
  const out: PlanViolation[] = []
  const firstLoc = (op: string) => plan.calls.find((c) => c.op === op)?.loc
  const at = (op: string) => { const loc = firstLoc(op); return loc ? { op, loc } : { op } }
  for (const op of Object.keys(plan.atoms)) {
    if (policy.deny?.includes(op)) {
      out.push({ key: 'deny', message: `the program calls \`${op}\`, which the policy denies`, ...at(op) })
    } else if (policy.allow && plan.atoms[op]!.effects === 'io' && !policy.allow.includes(op)) {
      out.push({ key: 'allow', message: `the program calls \`${op}\` (io), which is not in the policy's allow list (${policy.allow.map((a) => `\`${a}\``).join(', ') || 'empty'})`, ...at(op) })
    }
  }
  for (const [op, max] of Object.entries(policy.maxCalls ?? {})) {
    const a = plan.atoms[op]
    if (!a) continue
    if (typeof a.calls === 'number' && a.calls <= max) continue
    const why = a.calls === 'unbounded' ? `unbounded (${a.unboundedBy ?? 'a loop'})` : boundText(a.calls)
    out.push({ key: `maxCalls.${op}`, message: `the program may call \`${op}\` ${why} times; the policy allows at most ${max}`, ...at(op) })
  }
  for (const k of REACH_KEYS) {
    if (policy.reach?.[k] !== false) continue
    const reached = k === 'mcp' ? plan.reaches.mcp.length > 0 : plan.reaches[k]
    if (reached) out.push({ key: `reach.${k}`, message: `the program can reach ${REACH_WORDS[k]}${k === 'mcp' ? ` (${plan.reaches.mcp.join(', ')})` : ''}, which the policy forbids` })
  }
  if (policy.maxFuel !== undefined) {
    if (plan.fuel === 'unbounded') out.push({ key: 'maxFuel', message: `the program's fuel has no static bound (${plan.fuelUnboundedBy ?? 'a loop'}); the policy requires at most ${policy.maxFuel}` })
    else if (plan.fuel > policy.maxFuel) out.push({ key: 'maxFuel', message: `the program may use up to ${plan.fuel} fuel; the policy allows at most ${policy.maxFuel}` })
  }
  return out
}

/** A policy from JSON (a serve config, a request): throws a TypeError naming the path of the first problem. */
export function parsePlanPolicy(raw: unknown, path = 'plan'): PlanPolicy {
  const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)
  const fail = (p: string, m: string): never => { throw new TypeError(`${p}: ${m}`) }
  const only = (o: Record<string, unknown>, keys: readonly string[], p: string) => {
    for (const k of Object.keys(o)) if (!keys.includes(k)) fail(`${p}.${k}`, unknownKeyMessage(k, keys))
  }
  const names = (v: unknown, p: string): string[] => {
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s === '')) fail(p, 'must be an array of atom names')
    return [...new Set(v as string[])]
  }
  const positive = (v: unknown, p: string, zero = false): number => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (!zero && v === 0)) fail(p, zero ? 'must be a number >= 0' : 'must be a positive number')
    return v as number
  }
  if (!isObj(raw)) return fail(path, 'must be an object: { maxFuel?, allow?, deny?, maxCalls?, reach? }')
  only(raw, ['maxFuel', 'allow', 'deny', 'maxCalls', 'reach'], path)
  const policy: PlanPolicy = {}
  if (raw.maxFuel !== undefined) policy.maxFuel = positive(raw.maxFuel, `${path}.maxFuel`)
  if (raw.allow !== undefined) policy.allow = names(raw.allow, `${path}.allow`)
  if (raw.deny !== undefined) policy.deny = names(raw.deny, `${path}.deny`)
  if (raw.maxCalls !== undefined) {
    if (!isObj(raw.maxCalls)) fail(`${path}.maxCalls`, 'must be an object of atom name -> count')
    policy.maxCalls = {}
    for (const [op, n] of Object.entries(raw.maxCalls as Record<string, unknown>)) {
      const v = positive(n, `${path}.maxCalls.${op}`, true)
      if (!Number.isInteger(v)) fail(`${path}.maxCalls.${op}`, 'must be a whole number')
      policy.maxCalls[op] = v
    }
  }
  if (raw.reach !== undefined) {
    if (!isObj(raw.reach)) fail(`${path}.reach`, 'must be an object, e.g. { "network": false }')
    only(raw.reach as Record<string, unknown>, REACH_KEYS, `${path}.reach`)
    policy.reach = {}
    for (const [k, v] of Object.entries(raw.reach as Record<string, unknown>)) {
      if (typeof v !== 'boolean') fail(`${path}.reach.${k}`, 'must be true or false')
      policy.reach[k as keyof PlanReach] = v as boolean
    }
  }
  return policy
}
