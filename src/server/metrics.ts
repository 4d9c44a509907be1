/**
 * Prometheus metrics (text exposition format 0.0.4) kept in plain counters:
 * runs, fuel and run latency per tenant, refusals by code, and gauges read
 * at scrape time (pool queue, threads, runs in progress). No dependency: the
 * format is a few lines of text.
 */

/** Upper bounds of the run-latency histogram, in seconds. */
export const LATENCY_BUCKETS = Object.freeze([0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30])

interface TenantSeries {
  runsOk: number
  runsFailed: number
  fuel: number
  buckets: number[]
  latencySum: number
}

export type Gauge = () => Array<{ labels?: Record<string, string>; value: number }>

export class Metrics {
  private readonly tenants = new Map<string, TenantSeries>()
  private readonly refusals = new Map<string, number>()
  private readonly lostTokens = new Map<string, number>()
  /** Schedule actions by `tenant\0outcome` (started, skipped, buffered). */
  private readonly fires = new Map<string, number>()
  private readonly gauges: Array<{ name: string; help: string; read: Gauge }> = []

  private series(tenant: string): TenantSeries {
    let s = this.tenants.get(tenant)
    if (!s) {
      s = { runsOk: 0, runsFailed: 0, fuel: 0, buckets: LATENCY_BUCKETS.map(() => 0), latencySum: 0 }
      this.tenants.set(tenant, s)
    }
    return s
  }

  /** A finished run: its outcome, fuel and wall time in ms (from admission to result). */
  run(tenant: string, failed: boolean, fuel: number, ms: number): void {
    const s = this.series(tenant)
    if (failed) s.runsFailed++
    else s.runsOk++
    s.fuel += fuel
    const seconds = ms / 1000
    s.latencySum += seconds
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) if (seconds <= LATENCY_BUCKETS[i]!) s.buckets[i]!++
  }

  /** A request answered with an error code (401, 413, 422, 429, 503, ...). */
  refused(tenant: string, code: string): void {
    const key = `${tenant}\u0000${code}`
    this.refusals.set(key, (this.refusals.get(key) ?? 0) + 1)
  }

  /** A budget token found lost (its run's lease passed with no receipt): counted by whoever reached the verdict, once per token. */
  budgetTokenLost(tenant: string): void {
    this.lostTokens.set(tenant, (this.lostTokens.get(tenant) ?? 0) + 1)
  }

  /** A schedule's action taken by this process: a fire started, skipped (overlap, catch-up window, a refusal) or buffered. */
  scheduleAction(tenant: string, outcome: string): void {
    const key = `${tenant}\u0000${outcome}`
    this.fires.set(key, (this.fires.get(key) ?? 0) + 1)
  }

  gauge(name: string, help: string, read: Gauge): void {
    this.gauges.push({ name, help, read })
  }

  /**
   * The exposition. `all`: every tenant's series (the operator). A tenant id: totals plus that
   * tenant's own series. `aggregate` (no token): totals only, no tenant ids.
   */
  render(scope: 'all' | 'aggregate' | { tenant: string } = 'all'): string {
    if (scope !== 'all') return this.renderScoped(scope)
    const out: string[] = []
    const t = [...this.tenants.entries()]
    out.push('# HELP ajs_runs_total Runs finished, by tenant and outcome.', '# TYPE ajs_runs_total counter')
    for (const [id, s] of t) {
      out.push(`ajs_runs_total{tenant=${q(id)},outcome="ok"} ${s.runsOk}`, `ajs_runs_total{tenant=${q(id)},outcome="error"} ${s.runsFailed}`)
    }
    out.push('# HELP ajs_fuel_used_total Fuel used by finished runs, by tenant.', '# TYPE ajs_fuel_used_total counter')
    for (const [id, s] of t) out.push(`ajs_fuel_used_total{tenant=${q(id)}} ${num(s.fuel)}`)
    out.push('# HELP ajs_run_duration_seconds Run latency from admission to result, by tenant.', '# TYPE ajs_run_duration_seconds histogram')
    for (const [id, s] of t) {
      LATENCY_BUCKETS.forEach((le, i) => out.push(`ajs_run_duration_seconds_bucket{tenant=${q(id)},le="${le}"} ${s.buckets[i]}`))
      const n = s.runsOk + s.runsFailed
      out.push(`ajs_run_duration_seconds_bucket{tenant=${q(id)},le="+Inf"} ${n}`, `ajs_run_duration_seconds_sum{tenant=${q(id)}} ${num(s.latencySum)}`, `ajs_run_duration_seconds_count{tenant=${q(id)}} ${n}`)
    }
    out.push('# HELP ajs_requests_refused_total Requests answered with an error, by tenant ("" when unauthenticated) and code.', '# TYPE ajs_requests_refused_total counter')
    for (const [key, n] of this.refusals) {
      const [tenant, code] = key.split('\u0000') as [string, string]
      out.push(`ajs_requests_refused_total{tenant=${q(tenant)},code=${q(code)}} ${n}`)
    }
    out.push('# HELP ajs_budget_tokens_lost_total Budget tokens whose run was found lost (its lease passed with no receipt; charged the whole grant), by the tenant whose retry found it.', '# TYPE ajs_budget_tokens_lost_total counter')
    for (const [tenant, n] of this.lostTokens) out.push(`ajs_budget_tokens_lost_total{tenant=${q(tenant)}} ${n}`)
    out.push('# HELP ajs_schedule_actions_total Schedule actions this process took, by tenant and outcome (started, skipped, buffered; the fires a catch-up window skipped together are one action).', '# TYPE ajs_schedule_actions_total counter')
    for (const [key, n] of this.fires) {
      const [tenant, outcome] = key.split('\u0000') as [string, string]
      out.push(`ajs_schedule_actions_total{tenant=${q(tenant)},outcome=${q(outcome)}} ${n}`)
    }
    for (const g of this.gauges) {
      out.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`)
      for (const { labels, value } of g.read()) {
        const l = labels ? `{${Object.entries(labels).map(([k, v]) => `${k}=${q(v)}`).join(',')}}` : ''
        out.push(`${g.name}${l} ${num(value)}`)
      }
    }
    return `${out.join('\n')}\n`
  }

  private renderScoped(scope: 'aggregate' | { tenant: string }): string {
    const sum: TenantSeries = { runsOk: 0, runsFailed: 0, fuel: 0, buckets: LATENCY_BUCKETS.map(() => 0), latencySum: 0 }
    for (const s of this.tenants.values()) {
      sum.runsOk += s.runsOk; sum.runsFailed += s.runsFailed; sum.fuel += s.fuel; sum.latencySum += s.latencySum
      s.buckets.forEach((n, i) => { sum.buckets[i]! += n })
    }
    const view = new Metrics()
    view.tenants.set('*', sum)
    if (typeof scope === 'object' && this.tenants.has(scope.tenant)) view.tenants.set(scope.tenant, this.tenants.get(scope.tenant)!)
    for (const [key, n] of this.refusals) {
      const [tenant, code] = key.split('\u0000') as [string, string]
      const k = `*\u0000${code}`
      view.refusals.set(k, (view.refusals.get(k) ?? 0) + n)
      if (typeof scope === 'object' && tenant === scope.tenant) view.refusals.set(key, n)
    }
    for (const [tenant, n] of this.lostTokens) {
      view.lostTokens.set('*', (view.lostTokens.get('*') ?? 0) + n)
      if (typeof scope === 'object' && tenant === scope.tenant) view.lostTokens.set(tenant, n)
    }
    for (const [key, n] of this.fires) {
      const [tenant, outcome] = key.split('\u0000') as [string, string]
      const k = `*\u0000${outcome}`
      view.fires.set(k, (view.fires.get(k) ?? 0) + n)
      if (typeof scope === 'object' && tenant === scope.tenant) view.fires.set(key, n)
    }
    for (const g of this.gauges) {
      view.gauges.push({ name: g.name, help: g.help, read: () => {
        const rows = g.read()
        if (!rows.some((r) => r.labels?.tenant !== undefined)) return rows
        const total = rows.reduce((a, r) => a + r.value, 0)
        const own = typeof scope === 'object' ? rows.filter((r) => r.labels?.tenant === scope.tenant) : []
        return [{ labels: { tenant: '*' }, value: total }, ...own]
      } })
    }
    return view.render('all')
  }
}

const q = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`
const num = (v: number) => (Number.isInteger(v) ? String(v) : String(Math.round(v * 1e6) / 1e6))
