/** Names of the battery atoms (kept apart so the CLI's transpile step does not load their code). */
export const BATTERY_ATOM_NAMES = Object.freeze([
  'llmPredictBattery', 'llmVision', 'storeVectorize', 'storeCreateCollection', 'storeVectorAdd', 'storeSearch',
] as const)
