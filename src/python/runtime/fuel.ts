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

/**
 * Results up to this many characters are charged as they are built; a larger
 * one is paid for before it is built (`payChars`), so a guest-controlled width
 * or count never reaches a native `repeat` or loop unpaid (issue 23, class 4).
 */
export const PREPAY_CHARS = 4096

/**
 * Pay for a string of `n` characters before building it: fuel at the VM's
 * character rate and its string ceiling (`HEAP_LIMIT` when over), and the
 * clock for large `n`. Small results are left to the charge of the built value.
 */
export function payChars(rt: PyRun, n: number): void {
  if (n > PREPAY_CHARS) rt.chargeString({ length: n } as string)
}

/**
 * Micro-fuel for one big-int multiplication, division or power step on
 * operands of `a` and `b` bits: linear (10 per bit) plus a product term
 * (a·b / 2^14) for the engines' sub-quadratic but super-linear
 * multiplication, so a large product costs at least what it takes
 * (10,000,000-bit squares: ~61 fuel for 0.1-0.3 s measured under Node and Bun).
 */
export function bigWorkUnits(a: number, b: number = a): number {
  return (a + b) * 10 + (a * b) / 16384
}
