/**
 * The opt-in parts of the VM, by the name of their module here and of their import
 * (`ajs-lang/vm/<name>`). all.ts imports each; `loadVm({ parts })` (ajs-lang/vm/cached) takes these names.
 */
export const VM_PARTS = ['regex', 'schema', 'texts', 'hash', 'procedures', 'dates', 'maps'] as const

export type VmPart = (typeof VM_PARTS)[number]
