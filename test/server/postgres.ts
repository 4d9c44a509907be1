/**
 * A throwaway PostgreSQL cluster for tests (bench/lib/postgres.mjs, shared with the benches, which run
 * on Node): `initdb` into a temporary directory, `postgres` on 127.0.0.1 with a free port and fsync off,
 * stopped and deleted by `stop()`. As root, the binaries run as the `postgres` user (initdb refuses
 * root). `available()` is false only when initdb is not installed (.ci/run installs the postgresql
 * package in that case).
 */
import { postgresBinDir, startPostgres as startCluster, type ThrowawayPostgres } from '../../bench/lib/postgres.mjs'

export function postgresAvailable(): boolean {
  return postgresBinDir() !== null
}

export type TestPostgres = ThrowawayPostgres

export function startPostgres(): Promise<TestPostgres> {
  return startCluster({ fsync: false })
}
