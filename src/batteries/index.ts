/**
 * ajs-lang/batteries: opt-in atoms for real LLM and vector work, and the
 * capability they need for chat. Re-exports only.
 *
 * ```ts
 * const vm = new AgentVM(batteryAtoms)
 * await vm.run(source, args, { capabilities: { llm: createBatteryLLM({ baseUrl, model }), store: createMemoryStore() } })
 * ```
 */
export { batteryAtoms, llmPredictBattery, llmVision, storeVectorize, storeCreateCollection, storeVectorAdd, storeSearch } from './atoms.ts'
export { createBatteryLLM } from './chat.ts'
export type { BatteryLLM, ChatAnswer, ChatMessage, ChatRequest, ContentPart, ToolCall } from './chat.ts'
export { BATTERY_ATOM_NAMES } from './names.ts'
export { createMemoryStore, createOpenAICompatibleLLM } from '../capabilities/index.ts'
