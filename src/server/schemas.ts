/**
 * JSON Schemas of the API: route bodies, parameters and documented
 * responses. Fastify compiles each once at start-up (validation and
 * /openapi.json both come from here), never per request.
 */

const runOptions = {
  type: 'object',
  additionalProperties: false,
  description: 'Budgets of this run; capped by the tenant\'s limits.',
  properties: {
    fuel: { type: 'number', minimum: 0, description: 'Fuel budget (default and cap: the tenant\'s limits.fuelPerRun).' },
    timeoutMs: { type: 'number', minimum: 0, description: 'Wall-clock limit in ms, queueing included (cap: the tenant\'s limits.timeoutMs).' },
    trace: { type: 'boolean', description: 'Record a trace of every step with its fuel.' },
  },
} as const

export const agentError = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    name: { const: 'AgentError' },
    code: { type: 'string', description: 'Stable code (docs/errors.md).' },
    message: { type: 'string' },
    hint: { type: 'string' },
    location: { type: 'string', description: '`file:line:column` of the failing step or compile error (1-based).' },
    file: { type: 'string' },
    line: { type: 'integer', description: '1-based.' },
    column: { type: 'integer', description: '1-based, as in `location`.' },
    details: { type: 'array', items: { type: 'object' } },
  },
} as const

export const errorBody = { type: 'object', required: ['error'], properties: { error: agentError } } as const

export const runResult = {
  type: 'object',
  required: ['result', 'fuelUsed'],
  description: 'What AgentVM.run resolves to: the program\'s result, or the error it failed with.',
  properties: {
    result: {},
    error: agentError,
    fuelUsed: { type: 'number' },
    trace: { type: 'array', items: { type: 'object' } },
    warnings: { type: 'array', items: { type: 'string' } },
    diagnostics: {
      type: 'array', description: 'Compile warnings of a program sent as source (e.g. AJS4003: `==` does not coerce); column is 1-based.',
      items: {
        type: 'object', required: ['severity', 'code', 'message'],
        properties: {
          severity: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' }, hint: { type: 'string' },
          file: { type: 'string' }, line: { type: 'integer' }, column: { type: 'integer' }, location: { type: 'string' },
        },
      },
    },
  },
} as const

export const runBody = {
  type: 'object',
  additionalProperties: false,
  description: 'Exactly one of ast, source or token.',
  properties: {
    ast: { type: 'object', description: 'An ajs/1 AST.' },
    source: { type: 'string', description: 'AJS source text (compiled by the server).' },
    token: { type: 'string', description: 'A proc_ token from POST /v1/procedures.' },
    args: { type: 'object', description: 'The program\'s arguments.' },
    options: runOptions,
  },
} as const

export const runsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { async: { type: 'string', enum: ['1', 'true', '0', 'false'], description: '1: answer 202 { id } at once; read the run with GET /v1/runs/{id}.' } },
} as const

export const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 200 } } } as const
export const tokenParams = { type: 'object', required: ['token'], properties: { token: { type: 'string', maxLength: 200 } } } as const

export const runRecord = {
  type: 'object',
  required: ['id', 'state', 'createdAt'],
  properties: {
    id: { type: 'string' },
    state: { type: 'string', enum: ['queued', 'running', 'done'] },
    createdAt: { type: 'number' },
    startedAt: { type: 'number' },
    finishedAt: { type: 'number' },
    result: runResult,
  },
} as const

export const procedureBody = {
  type: 'object',
  additionalProperties: false,
  description: 'Exactly one of ast or source.',
  properties: {
    ast: { type: 'object' },
    source: { type: 'string' },
    ttl: { type: 'number', minimum: 1, description: 'Time to live in ms (default and cap from the serve config).' },
  },
} as const

export const procedureCreated = { type: 'object', required: ['token', 'expiresAt'], properties: { token: { type: 'string' }, expiresAt: { type: 'number' } } } as const
export const procedureInfo = {
  type: 'object',
  properties: { token: { type: 'string' }, createdAt: { type: 'number' }, expiresAt: { type: 'number' }, ast: { type: 'object' } },
} as const

/** The error answers every authenticated route may give. */
export const authErrors = {
  401: { description: 'Missing or unknown bearer token (UNAUTHORIZED).', schema: errorBody },
  429: { description: 'Over the tenant\'s request rate (RATE_LIMITED); see Retry-After.', schema: errorBody },
} as const
