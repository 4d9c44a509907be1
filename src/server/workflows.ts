/**
 * Workflow routes' backend (the durable engine lives in src/workflows/).
 * Filled in when that engine is available; until then the routes answer
 * 501 NOT_AVAILABLE.
 */
export interface WorkflowRoutesBackend {
  start(tenant: string, body: { ast?: unknown; source?: string; token?: string; args?: Record<string, unknown> }): Promise<Record<string, unknown>>
  get(tenant: string, id: string): Promise<Record<string, unknown>>
  resolve(tenant: string, id: string, requestId: string, value: unknown): Promise<Record<string, unknown>>
}
