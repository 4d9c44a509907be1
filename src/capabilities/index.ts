/**
 * The capability kit: host-side implementations of `capabilities.fetch`,
 * `capabilities.store` and `capabilities.llm` for `vm.run(ast, args, { capabilities })`.
 * Re-exports only. Node-only (node:http, node:dns); the `./vm` entry does not import it.
 */

export { createFetchCapability } from './fetch.ts'
export type { FetchCapability, FetchCapabilityOptions, FetchInit, FetchResult, LookupFn } from './fetch.ts'
export type { FetchLike } from './transport.ts'
export { createMemoryStore } from './store.ts'
export type { MemoryStore, MemoryStoreOptions, StoreQuery, VectorQuery, VectorHit } from './store.ts'
export { createTtlCache } from './ttl-cache.ts'
export type { TtlCache, TtlCacheOptions } from './ttl-cache.ts'
export { createOpenAICompatibleLLM } from './llm.ts'
export type { OpenAICompatibleLLM, OpenAICompatibleLLMOptions, PredictOptions, LlmFetch } from './llm.ts'
export { classifyAddress, isBlockedAddress, parseIPv4, parseIPv6 } from './address.ts'
export type { AddressInfo, AddressKind } from './address.ts'
export { CapabilityError, CAPABILITY_ERROR_HINTS, isCapabilityError } from './errors.ts'
export type { CapabilityErrorCode } from './errors.ts'
