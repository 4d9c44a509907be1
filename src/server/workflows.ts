/**
 * Workflow routes' backend (the durable engine lives in src/workflows/).
 * Until that engine is available the routes answer 501 NOT_AVAILABLE.
 */
import type pg from 'pg'
import type { TaskList } from 'graphile-worker'
import type { Host } from './host.ts'
import type { Jobs } from './jobs.ts'

export interface WorkflowRoutesBackend {
  start(tenant: string, body: { ast?: unknown; source?: string; token?: string; args?: Record<string, unknown> }): Promise<Record<string, unknown>>
  get(tenant: string, id: string): Promise<Record<string, unknown>>
  resolve(tenant: string, id: string, requestId: string, value: unknown): Promise<Record<string, unknown>>
}

export function workflowsBackend(_host: Host, _distributed?: { pgPool: pg.Pool; jobs: Jobs }): WorkflowRoutesBackend | undefined {
  return undefined
}

export function workflowJobTasks(_host: Host, _pgPool: pg.Pool): TaskList {
  return {}
}
