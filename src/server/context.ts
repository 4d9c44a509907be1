/** What every route module receives: the server's services, built once in app.ts. */
import type { ServeConfig } from './config.ts'
import type { Metrics } from './metrics.ts'
import type { ProcedureService } from './procedures.ts'
import type { RunService } from './runs.ts'
import type { ServerStores } from './stores/types.ts'
import type { Tenant, Tenants } from './tenants.ts'
import type { RawAst } from './runs.ts'
import type { WorkflowRoutesBackend } from './workflows.ts'
import type { ScheduleService } from './schedules/service.ts'
import type { ScheduleLoop } from './schedules/loop.ts'

export interface ServerContext {
  config: ServeConfig
  tenants: Tenants
  stores: ServerStores
  runs: RunService
  /** Budget tokens of the deployment (config budgetTokens), when enabled. */
  budget?: import('../codemode/budget-token.ts').BudgetTokens
  procedures: ProcedureService
  metrics: Metrics
  /** Present when the workflows engine is available. */
  workflows?: WorkflowRoutesBackend
  /** Workflow schedules (with the workflows engine), and the loop that fires them (tests run its passes themselves). */
  schedules?: ScheduleService
  scheduleLoop?: ScheduleLoop
  version: string
  /** Health facts shown by GET /healthz. */
  health(): Record<string, unknown>
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated tenant (set by the auth hook; absent on open routes). */
    tenant: Tenant | null
    /**
     * The text of the body's top-level "ast" member when it is an object or array (set by the JSON
     * parser), with its SHA-256 key when the tenant sent it before (pool threads find its parsed
     * program by the key, without hashing the text).
     */
    rawAst: RawAst | undefined
    /** The body's "ast" was left as text (a {} in its place in the parsed body): POST /v1/runs answered now. */
    astUnparsed: boolean
    /** The route is POST /v1/runs (set by its auth hook): the body parser may leave the AST as text. */
    runRoute: boolean
  }
  interface FastifySchema {
    /** One line for /openapi.json. */
    summary?: string
  }
  interface FastifyContextConfig {
    /** false: no bearer token needed (health, metrics, openapi). */
    auth?: boolean
    /** Documented responses for /openapi.json: status -> { description, schema }. */
    responses?: Record<number, { description: string; schema?: unknown; contentType?: string }>
    /** true: the body may be left out (it is {} before validation, body.ts); /openapi.json says it is not required. Otherwise a route with a body schema answers a missing body 400. */
    bodyOptional?: boolean
  }
}
