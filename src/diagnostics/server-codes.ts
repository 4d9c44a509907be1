/**
 * Stable codes of the HTTP API (`ajsc serve`, `ajs-lang/client`). Every
 * non-2xx answer is `{ "error": { code, message, hint } }` with one of these
 * codes (or a VM code, for a program the server refuses to run). The hint
 * names the fix in the server's terms: a request field, a header, or a key of
 * the config file.
 */

export interface ServerCodeSpec {
  /** HTTP status the server answers with. */
  status: number
  message: string
  hint: string
}

export const SERVER_CODES = {
  UNAUTHORIZED: { status: 401, message: 'Missing or unknown bearer token', hint: 'Send `Authorization: Bearer <token>` with a token whose SHA-256 is listed as a tenant\'s tokenSha256 in the serve config.' },
  NOT_FOUND: { status: 404, message: 'No such resource for this tenant', hint: 'Check the id or token; runs, procedures and workflows are only visible to the tenant that created them.' },
  ROUTE_NOT_FOUND: { status: 404, message: 'No such route', hint: 'See GET /openapi.json for the routes this server offers.' },
  BAD_REQUEST: { status: 400, message: 'The request is malformed', hint: 'Send a JSON body that matches the route\'s schema in GET /openapi.json.' },
  BODY_TOO_LARGE: { status: 413, message: 'The request body is larger than the server accepts', hint: 'Send a smaller program or arguments, or raise `limits.maxBodyBytes` in the serve config.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request body must be JSON', hint: 'Send `Content-Type: application/json`.' },
  PROGRAM_REJECTED: { status: 422, message: 'The program cannot be run', hint: 'See `error.details`; validate the AST (`ajsc check`) before sending it.' },
  PLAN_REFUSED: { status: 422, message: 'The program\'s plan exceeds the tenant\'s plan policy', hint: 'See `error.details` (one entry per policy key: `plan.maxFuel`, `plan.allow`, `plan.deny`, `plan.maxCalls.<atom>`, `plan.reach.<what>`); rewrite the program within it, or change the tenant\'s `plan` in the serve config.' },
  RATE_LIMITED: { status: 429, message: 'Too many requests for this tenant', hint: 'Wait for `Retry-After` seconds, or raise the tenant\'s `limits.requestsPerMinute` in the serve config.' },
  TENANT_BUSY: { status: 429, message: 'The tenant already has its maximum number of runs in progress', hint: 'Wait for a run to finish, or raise the tenant\'s `limits.concurrentRuns` in the serve config.' },
  FUEL_QUOTA_EXCEEDED: { status: 429, message: 'The tenant used its fuel for today', hint: 'Wait until 00:00 UTC, or raise the tenant\'s `limits.fuelPerDay` in the serve config.' },
  STORE_QUOTA_EXCEEDED: { status: 429, message: 'The tenant holds as many stored items (or bytes) of this kind as its quota allows', hint: 'Delete some (procedures: DELETE /v1/procedures/{token}; async runs are dropped after `limits.runRetentionMs`), or raise the tenant\'s quota named in the message (`limits.maxProcedures`, `limits.maxProcedureBytes`, `limits.maxAsyncRuns`, `limits.maxAsyncRunBytes`, `limits.maxWorkflows`, `limits.maxWorkflowBytes`, `limits.maxSchedules`, `limits.maxScheduleBytes`) in the serve config; schedules: DELETE /v1/schedules/{id}.' },
  SERVER_STORE_FULL: { status: 503, message: 'The server\'s store is full', hint: 'Retry after `Retry-After` seconds; the operator can lower the tenants\' quotas (`limits.max*`) so that together they fit.' },
  REQUEST_TOO_DEEP: { status: 400, message: 'The request nests too deeply', hint: 'Flatten the JSON body: arrays and objects may nest 4 × `limits.maxAstDepth` + 64 levels (864 by default).' },
  QUEUE_FULL: { status: 503, message: 'Every worker is busy and the run queue is full', hint: 'Retry after `Retry-After` seconds, or start the server with a larger `--pool-size` / `--queue-size`.' },
  WORKFLOW_BUSY: { status: 409, message: 'The workflow is taking a step right now', hint: 'Send the answer again after `Retry-After` seconds.' },
  ALREADY_RESOLVED: { status: 409, message: 'The request was already answered', hint: 'GET /v1/workflows/{id} lists the requests still open.' },
  WORKFLOW_STATE: { status: 409, message: 'The workflow is not in a state that allows this', hint: 'GET /v1/workflows/{id} shows its state: only a failed workflow can be retried; a workflow that ended takes no signals and cannot be cancelled.' },
  SCHEDULE_INVALID: { status: 400, message: 'The schedule\'s spec is not valid', hint: 'Send `spec: { cron }` with five fields (minute hour day-of-month month day-of-week) or six (seconds first), or `spec: { everyMs }` with a positive whole number; backfill `from` and `to` are past times, `from` not after `to`.' },
  SCHEDULE_TIMEZONE: { status: 400, message: 'The schedule\'s time zone is unknown', hint: 'Send `spec.timezone` as an IANA time zone name (`Europe/Oslo`, `America/New_York`, `UTC`), or leave it out for UTC.' },
  SCHEDULE_TOO_FREQUENT: { status: 400, message: 'The schedule fires more often than the tenant may', hint: 'Fire less often (`spec.everyMs`, or a `spec.cron` whose closest fires are further apart), or raise the tenant\'s `limits.minScheduleIntervalMs` in the serve config.' },
  SCHEDULE_OUTSIDE_LIMITS: { status: 409, message: 'The schedule\'s spec no longer passes the tenant\'s limits, so it may not be left active', hint: 'PATCH /v1/schedules/{id} with a `spec` that fires less often (with `paused: false` to unpause it), or with `paused: true`; or raise the tenant\'s `limits.minScheduleIntervalMs` in the serve config.' },
  SCHEDULE_CONFLICT: { status: 409, message: 'The schedule changed since the version named in If-Match was read', hint: 'GET /v1/schedules/{id} again, make your change to what it shows, and send its `ETag` (its `conflictToken` in quotes) as `If-Match`; leave `If-Match` out to change it whatever changed since.' },
  SCHEDULE_EXISTS: { status: 409, message: 'The tenant already has a schedule of this id', hint: 'Choose another `id`, or leave it out to get a new one; DELETE /v1/schedules/{id} removes the old schedule.' },
  SCHEDULE_BACKFILL_LIMIT: { status: 400, message: 'The backfill covers more fires than the tenant may start at once', hint: 'Narrow `from` and `to` and send several backfills, or raise the tenant\'s `limits.maxBackfillFires` in the serve config.' },
  NOT_AVAILABLE: { status: 501, message: 'This server does not offer that feature', hint: 'Start the server with the option the message names.' },
  WORKER_CRASHED: { status: 500, message: 'The worker running the program stopped unexpectedly', hint: 'Retry the run; the worker was replaced.' },
  BUDGET_TOKEN_INVALID: { status: 403, message: 'The budget token is not valid: not signed with this deployment\'s key, changed after it was minted (e.g. inflated), or malformed', hint: 'Send the token (header `x-ajs-budget`) exactly as `budgetToken` minted it; the servers that accept each other\'s tokens must share the key (serve config `budgetTokens.keyEnv`).' },
  BUDGET_TOKEN_EXPIRED: { status: 403, message: 'The budget token has expired', hint: 'Mint a new token with a later deadline (`budgetToken({ fuel, timeoutMs })`) and present it at once.' },
  BUDGET_TOKEN_REPLAYED: { status: 409, message: 'The budget token was already spent', hint: 'A token pays for one child run: mint a new one for each.' },
  BUDGET_TOKEN_ANSWERED: { status: 409, message: 'The budget token was already spent by a run that has ended: the answer carries that run\'s receipt (header `x-ajs-budget-receipt`), not its result', hint: 'Settle the receipt (`budgetSettle({ receipt })`): it is what the first run used. The run is not repeated and its result is not kept; mint a new token to run again.' },
  BUDGET_TOKEN_IN_FLIGHT: { status: 409, message: 'The budget token is being spent by a run that has not ended', hint: 'Retry at the time the answer gives (header `Retry-After`): the first run\'s time limit plus `budgetTokens.leaseGraceMs`, by when it has ended and the retry is answered with its receipt (`BUDGET_TOKEN_ANSWERED`), or its server stopped and the retry is answered with a receipt of the whole grant (`BUDGET_TOKEN_LOST`). At the token\'s deadline it is charged in full.' },
  BUDGET_TOKEN_LOST: { status: 409, message: 'The budget token was spent by a run that was lost: its server stopped before the run ended, and the run\'s time limit has passed since. The answer carries a receipt of the whole grant (header `x-ajs-budget-receipt`)', hint: 'Settle the receipt (`budgetSettle({ receipt })`): what the lost run used is unknown, so the whole grant is charged. The run is not repeated under this token (it may have used its fuel and made its calls); mint a new token to run again.' },
  BUDGET_TOKEN_DEPTH: { status: 422, message: 'Budget tokens nest deeper than the deployment allows', hint: 'Flatten the chain of sub-runs, or raise `budgetTokens.maxDepth` in the serve config (library: `new BudgetTokens({ maxDepth })`).' },
  BUDGET_RECEIPT_INVALID: { status: 0, message: 'A budget receipt is not valid (inside a run: budgetSettle; never sent by a server): forged, changed, for a token this run did not mint, or already settled', hint: 'Settle each token the run minted once, with the receipt of its sub-run unchanged (budgetRun\'s `receipt`, or the `x-ajs-budget-receipt` header).' },
  BUDGET_QUOTA_EXCEEDED: { status: 0, message: 'A budget token asks for more calls of an atom than the run minting it has left under its quotas (inside a run: budgetToken; never sent by a server)', hint: 'Give the token at most the calls the run has left (`budgetToken({ fuel, quotas: { atom: n } })`), or raise the run\'s quota (run option `quotas`).' },
  NETWORK_ERROR: { status: 0, message: 'The server could not be reached (reported by ajs-lang/client, never sent by a server)', hint: 'Check the url given to createRemoteVM and that `ajsc serve` is running there.' },
  SERVER_ERROR: { status: 500, message: 'Internal server error', hint: 'This is a bug in ajs-lang; please report it with the request.' },
} as const satisfies Record<string, ServerCodeSpec>

export type ServerCode = keyof typeof SERVER_CODES
