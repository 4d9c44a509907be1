/**
 * ajs-lang/server: the remote VM behind `ajsc serve` and `ajsc worker`.
 * Re-exports only. Node-only; npm dependencies (fastify, pg,
 * graphile-worker) stay external to the bundle.
 */
export { createServer, type AjsServer, type ServeOptions } from './app.ts'
export { startServe, startWorker, type StartServeOptions, type StartWorkerOptions, type Served, type StartedWorker } from './serve.ts'
export { createHost, type Host, type HostOptions } from './host.ts'
export { loadServerAtoms, type ServerAtoms } from './atoms.ts'
export { createPgStores, migrate, type PgStores } from './stores/postgres.ts'
export { createMemoryStores } from './stores/memory.ts'
export {
  parseServeConfig, singleTenantConfig, withAtomModules, tokenSha256, ServeConfigError, DEFAULT_TENANT_LIMITS, DEFAULT_SERVER_LIMITS,
  type ServeConfig, type ParseServeConfigOptions, type TenantConfig, type TenantLimits, type TenantCapabilities, type ServerLimits,
} from './config.ts'
export { HttpError } from './errors.ts'
export type { PoolOptions } from './pool/pool.ts'
export type { ServerStores, ProcedureRepo, RunRepo, AgentMemory, RunRecord, StoredProcedure } from './stores/types.ts'
export { SERVER_CODES, type ServerCode } from '../diagnostics/server-codes.ts'
