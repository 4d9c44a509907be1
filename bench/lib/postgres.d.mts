/** Types of postgres.mjs (a throwaway PostgreSQL cluster), for the tests that import it. */
export interface ThrowawayPostgres {
  url: string
  port: number
  pid: number | undefined
  stop(): Promise<void>
}
/** Where initdb and postgres are ('' when on PATH), or null when PostgreSQL is not installed. */
export function postgresBinDir(): string | null
/** Start a cluster; `fsync: false` for tests (speed over durability). */
export function startPostgres(options?: { fsync?: boolean }): Promise<ThrowawayPostgres>
