/**
 * Errors thrown by the capability kit.
 *
 * Every failure is a `CapabilityError` with a stable `code` (tests and hosts
 * branch on the code, never on prose) and a `hint` telling the host what to
 * change. The VM turns a thrown capability error into the run's `AgentError`;
 * keeping the code on the object lets it carry through unchanged.
 */

/** Every code the kit can throw, with the hint shown to the host. */
export const CAPABILITY_ERROR_HINTS = Object.freeze({
  FETCH_BAD_URL: 'use an absolute http:// or https:// URL without user:password@',
  FETCH_BAD_REQUEST: 'check method, headers and body (plain strings; no Host/Content-Length overrides)',
  FETCH_HOST_DENIED: 'add the host to `allowedHosts` (exact host, `*.domain` or `*`)',
  FETCH_PRIVATE_ADDRESS: 'private, loopback, link-local and metadata addresses are refused; list the host in `allowPrivateHosts` if this is intended',
  FETCH_DNS: 'the host name could not be resolved',
  FETCH_REDIRECTS: 'too many redirects; raise `maxRedirects` or fetch the final URL directly',
  FETCH_TOO_LARGE: 'the response is bigger than `maxBytes`; raise the limit or request less data',
  FETCH_TIMEOUT: 'the request took longer than `timeoutMs`',
  FETCH_ABORTED: 'the run was cancelled while the request was in flight',
  FETCH_NETWORK: 'the connection failed; check that the server is reachable',
  FETCH_BAD_JSON: 'the server declared JSON but sent invalid JSON',
  FETCH_OPTIONS: 'fix the options passed to createFetchCapability',
  STORE_BAD_KEY: 'keys are non-empty strings within `maxKeyLength`',
  STORE_BAD_VALUE: 'values must be plain JSON data (no functions, class instances, cycles, NaN)',
  STORE_BAD_QUERY: 'query is { prefix?, where?, limit?, offset? }',
  STORE_BAD_VECTOR: 'vectors are non-empty arrays of finite numbers',
  STORE_FULL: 'the store reached `maxKeys` or `maxBytes`; delete keys or raise the limits',
  STORE_OPTIONS: 'fix the options passed to createMemoryStore',
  LLM_OPTIONS: 'fix the options passed to createOpenAICompatibleLLM',
  LLM_BAD_PROMPT: 'the prompt must be a non-empty string',
  LLM_BAD_OPTIONS: 'allowed options: system, model, temperature, maxTokens, topP, stop, responseFormat, signal',
  LLM_HTTP: 'the endpoint answered with an error status; check baseUrl, model and apiKey',
  LLM_BAD_RESPONSE: 'the endpoint did not answer in the OpenAI chat/embeddings format',
  LLM_TIMEOUT: 'the endpoint took longer than `timeoutMs`',
  LLM_ABORTED: 'the run was cancelled while waiting for the model',
  LLM_NETWORK: 'the endpoint is not reachable; is the server (LM Studio, Ollama, vLLM) running?',
  LLM_TOO_LARGE: 'the endpoint response is bigger than `maxBytes`',
  CACHE_OPTIONS: 'fix the options passed to createTtlCache',
})

/** A stable capability error code. */
export type CapabilityErrorCode = keyof typeof CAPABILITY_ERROR_HINTS

/** An error thrown by a capability: `code` is stable, `hint` says what to do. */
export class CapabilityError extends Error {
  readonly code: CapabilityErrorCode
  readonly hint: string

  constructor(code: CapabilityErrorCode, summary: string, options?: { cause?: unknown }) {
    const hint = CAPABILITY_ERROR_HINTS[code]
    super(`${code}: ${summary} (hint: ${hint})`, options)
    this.name = 'CapabilityError'
    this.code = code
    this.hint = hint
  }
}

/** Shorthand used by the capability modules: `throw fail('CODE', 'what happened')`. */
export function fail(code: CapabilityErrorCode, summary: string, cause?: unknown): CapabilityError {
  return new CapabilityError(code, summary, cause === undefined ? undefined : { cause })
}

/** True when `e` is a CapabilityError (or any error carrying a string `code` from this kit). */
export function isCapabilityError(e: unknown): e is CapabilityError {
  return e instanceof CapabilityError
}
