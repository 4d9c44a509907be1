// Host atoms of workflow-steps-child.ts: `spin` busy-waits in host code, where the VM cannot notice
// its interrupt flag (a misbehaving atom): only terminating its thread stops it.
import { defineAtom, s } from 'ajs-lang'

export const spin = defineAtom('spin', s.object({ ms: s.number }), s.number, ({ ms }) => {
  const end = Date.now() + ms
  while (Date.now() < end) { /* spin */ }
  return ms
}, { sync: true })
