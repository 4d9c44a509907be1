/**
 * What the Python runtime needs from a VM run: fuel for work in proportion
 * to its size, and the heap ceiling for what it allocates. Work is charged at
 * the VM's slot rate (0.0001 fuel per element visited or created); strings at
 * its character rate.
 */
export interface PyRun {
  charge(units: number): void
  chargeSlots(n: number): void
  chargeString(s: string): string
}

/** Micro-fuel per element visited (same as the VM's SLOT_COST). */
export const ELEMENT_UNITS = 100

/** Charge for visiting `n` elements (scans, comparisons, hashing). */
export function work(rt: PyRun, n: number): void {
  if (n > 16) rt.charge(n * ELEMENT_UNITS)
}
