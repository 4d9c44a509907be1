/**
 * The local driver's defaults and run states: what `ajsc workflow`'s help and option checks need
 * before a command runs, apart from the driver itself (which brings the engine and every frontend).
 */
import { availableParallelism } from 'node:os'
import { join } from 'node:path'

/** Agent calls at once when `maxAgents` is not given: min(16, cores - 2), at least 1. */
export const defaultMaxAgents = (): number => Math.max(1, Math.min(16, availableParallelism() - 2))

/** Where runs live when no directory is given: `<cwd>/.ajs/runs`. */
export function defaultRunsDir(cwd: string): string {
  return join(cwd, '.ajs', 'runs')
}

/** A local run's state, as `ajsc workflow ls` / `show` report it (derived from its journal: runs.ts). */
export type LocalRunState = 'complete' | 'failed' | 'cancelled' | 'running' | 'invalid'

export const RUN_STATES: readonly LocalRunState[] = ['running', 'complete', 'failed', 'cancelled', 'invalid']
