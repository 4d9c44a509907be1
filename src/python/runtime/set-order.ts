/**
 * A set's members in CPython's iteration order. CPython iterates a set in its hash table's slot
 * order; for numbers that order is the same in every process (a number's hash is its value mod
 * 2^61 - 1, numberHash), so a block that lists a set of ints sees CPython's order. SetTable is the
 * Map a PySet keeps its members in: besides the members it keeps CPython's table (Objects/
 * setobject.c, 3.11: 8 slots first, the slot is hash & mask, a collision probes the next 9 slots
 * and then jumps by i * 5 + 1 + perturb, a removed member leaves a dummy, the table grows to four
 * times the members when 3/5 of its slots are used or dummies) and iterates in its slot order (so
 * do objects of the program whose `__hash__` returns an int). A
 * set holding anything else (a str, whose hash changes with every CPython process, None, a tuple)
 * iterates in insertion order. Set operators and copies insert members in the order they iterate;
 * CPython's presizing there can lay out collisions differently (documented).
 */
import { PyFloat, PyInstance, PyNumeric } from './values.ts'

/** The int an object of the program's `__hash__` returns, or undefined (runtime/dunders.ts sets it: no import cycle). */
export const objectHash: { of: ((x: PyInstance) => number | bigint | undefined) | null } = { of: null }

/** CPython's modulus of number hashes (sys.hash_info.modulus, 2^61 - 1). */
export const HASH_MOD = (1n << 61n) - 1n
const LINEAR_PROBES = 9
const EMPTY: unique symbol = Symbol('empty')
const DUMMY: unique symbol = Symbol('dummy')

/**
 * CPython's hash of an int, bool or float (sys.hash_info: the value mod 2^61 - 1 with its sign, -1
 * becoming -2, infinities ±314159); undefined for anything else, NaN included (CPython hashes it by identity).
 */
export function numberHash(x: unknown): bigint | undefined {
  if (typeof x === 'boolean') return x ? 1n : 0n
  // A module's number (fractions.Fraction) hashes as CPython's, so a set of them keeps CPython's order too.
  if (x instanceof PyNumeric) return BigInt(x.unary('hash') as number | bigint)
  // An object of the program with `__hash__`: CPython's slot comes from the int it returns, hashed as an int.
  if (x instanceof PyInstance) { const h = objectHash.of?.(x); return h === undefined ? undefined : numberHash(h) }
  const v = x instanceof PyFloat ? x.v : x
  if (typeof v === 'number' && !Number.isInteger(v)) {
    if (Number.isNaN(v)) return undefined
    if (!Number.isFinite(v)) return v > 0 ? 314159n : -314159n
    return floatHash(v)
  }
  if (typeof v !== 'number' && typeof v !== 'bigint') return undefined
  if (typeof v === 'number' && Math.abs(v) < 2 ** 53) return v === -1 ? -2n : BigInt(v)
  const b = BigInt(v)
  let h = (b < 0n ? -b : b) % HASH_MOD
  if (b < 0n) h = -h
  return h === -1n ? -2n : h
}

/** CPython's hash of a non-integral finite float (the value mod 2**61 - 1, exactly). */
function floatHash(v: number): bigint {
  const neg = v < 0
  let m = Math.abs(v)
  // m = mant * 2**e exactly, with mant an integer.
  let e = 0
  while (!Number.isInteger(m)) { m *= 2; e-- }
  const mant = BigInt(m)
  // 2**61 ≡ 1 (mod P), so 2**-k ≡ 2**(61 - k mod 61).
  const shift = BigInt(((e % 61) + 61) % 61)
  let h = (mant % HASH_MOD) * ((1n << shift) % HASH_MOD) % HASH_MOD
  if (neg) h = -h
  return h === -1n ? -2n : h
}

/** A hash as the probing reads it: a number when it is a non-negative safe integer, else a bigint. */
type Hash = number | bigint
const asHash = (h: bigint): Hash => (h >= 0n && h < 2n ** 53n ? Number(h) : h)

/** The first slot of a hash: its low bits (an int32 view keeps them for any safe integer). */
const home = (h: Hash, mask: number): number => (typeof h === 'number' ? h & mask : Number(BigInt.asUintN(64, h) & BigInt(mask)))

/**
 * Where the probing goes after the slots at i: `perturb >>= 5; i = (i * 5 + 1 + perturb) & mask`
 * on CPython's unsigned 64-bit hash (the perturb reduced mod the table size first: only its low bits count).
 */
function jump(i: number, perturb: Hash, mask: number): [number, Hash] {
  if (typeof perturb === 'number') {
    const p = Math.floor(perturb / 32)
    return [(i * 5 + 1 + (p % (mask + 1))) & mask, p]
  }
  const p = perturb >> 5n
  return [Number((BigInt(i) * 5n + 1n + p) & BigInt(mask)), p]
}

const firstPerturb = (h: Hash): Hash => (typeof h === 'number' ? h : BigInt.asUintN(64, h))

/** A PySet's members: a Map (by hash key) that also keeps CPython's table while the members are numbers. */
export class SetTable extends Map<unknown, unknown> {
  /** Slot → member key, EMPTY or DUMMY; null once a member is not a number (insertion order then). */
  private slots: Array<unknown> | null = new Array(8).fill(EMPTY)
  private hashes: Hash[] = new Array(8).fill(0)
  /** Slot → member (the Map's value for that key). */
  private members: unknown[] = new Array(8).fill(undefined)
  private fill = 0
  private finger = 0

  override set(key: unknown, value: unknown): this {
    const fresh = !super.has(key)
    super.set(key, value)
    if (!fresh && this.slots) this.members[this.slotOfKey(key)] = value
    else if (this.slots) {
      // A non-negative int is its own hash (the common case, without a bigint).
      if (typeof value === 'number' && value >= 0 && Number.isSafeInteger(value)) this.add(key, value)
      else {
        const h = numberHash(value)
        if (h === undefined) this.untrack()
        else this.add(key, asHash(h))
      }
    }
    return this
  }

  override delete(key: unknown): boolean {
    if (!super.has(key)) return false
    if (this.slots) {
      const at = this.slotOfKey(key)
      this.slots[at] = DUMMY
      this.members[at] = undefined
    }
    return super.delete(key)
  }

  /** The slot holding a member's key: its probe sequence up to it (CPython's set lookup). */
  private slotOfKey(key: unknown): number {
    const slots = this.slots!
    const mask = slots.length - 1
    const v = super.get(key)
    const h = typeof v === 'number' && v >= 0 && Number.isSafeInteger(v) ? v : asHash(numberHash(v)!)
    let i = home(h, mask)
    let perturb = firstPerturb(h)
    for (;;) {
      const last = i + LINEAR_PROBES <= mask ? i + LINEAR_PROBES : i
      for (let j = i; j <= last; j++) {
        if (slots[j] === key) return j
      }
      ;[i, perturb] = jump(i, perturb, mask)
    }
  }

  override clear(): void {
    super.clear()
    this.slots = new Array(8).fill(EMPTY)
    this.hashes = new Array(8).fill(0)
    this.members = new Array(8).fill(undefined)
    this.fill = 0
    this.finger = 0
  }

  /** Whether the members are numbers (the table is kept). */
  get tracked(): boolean {
    return this.slots !== null
  }

  /** An empty set's table made for minused members at once (CPython's set_merge into an empty set). */
  presize(minused: number): void {
    let n = 8
    while (n <= minused) n <<= 1
    if (this.size === 0 && this.slots) {
      this.slots = new Array(n).fill(EMPTY)
      this.hashes = new Array(n).fill(0)
      this.members = new Array(n).fill(undefined)
    }
  }

  /** This (empty) set becomes a copy of another's table (CPython's set_merge when the sizes match). */
  adopt(other: SetTable): void {
    this.clear()
    for (const [k, v] of Map.prototype.entries.call(other)) super.set(k, v)
    if (!other.slots) { this.untrack(); return }
    this.slots = other.slots.slice()
    this.hashes = other.hashes.slice()
    this.members = other.members.slice()
    this.fill = other.fill
  }

  private untrack(): void {
    this.slots = null
    this.hashes = []
    this.members = []
  }

  /** set_add_entry: the first empty slot of the probe sequence, or the first dummy before it. */
  private add(key: unknown, h: Hash): void {
    const slots = this.slots!
    const mask = slots.length - 1
    let free = -1
    let i = home(h, mask)
    let perturb = firstPerturb(h)
    for (;;) {
      const last = i + LINEAR_PROBES <= mask ? i + LINEAR_PROBES : i
      for (let j = i; j <= last; j++) {
        const s = slots[j]
        if (s === EMPTY) {
          if (free >= 0) { this.put(free, key, h, super.get(key)); return }
          this.put(j, key, h, super.get(key))
          this.fill++
          if (this.fill * 5 >= mask * 3) this.resize(this.size > 50000 ? this.size * 2 : this.size * 4)
          return
        }
        if (s === DUMMY && free < 0) free = j
      }
      [i, perturb] = jump(i, perturb, mask)
    }
  }

  private put(i: number, key: unknown, h: Hash, member: unknown): void {
    this.slots![i] = key
    this.hashes[i] = h
    this.members[i] = member
  }

  /** set_table_resize: the smallest power of two above minused, the members re-inserted in slot order. */
  private resize(minused: number): void {
    let n = 8
    while (n <= minused) n <<= 1
    const old = this.slots!, oldHashes = this.hashes, oldMembers = this.members
    // Filled arrays (not holey ones grown by index) keep the slot writes fast.
    const slots: unknown[] = new Array(n).fill(EMPTY)
    this.slots = slots
    this.hashes = new Array(n).fill(0)
    this.members = new Array(n).fill(undefined)
    const mask = n - 1
    for (let k = 0; k < old.length; k++) {
      const key = old[k]
      if (key === EMPTY || key === DUMMY) continue
      const h = oldHashes[k]!
      let i = home(h, mask)
      let perturb = firstPerturb(h)
      for (let done = false; !done;) {
        const last = i + LINEAR_PROBES <= mask ? i + LINEAR_PROBES : i
        for (let j = i; j <= last; j++) if (slots[j] === EMPTY) { this.put(j, key, h, oldMembers[k]); done = true; break }
        if (!done) [i, perturb] = jump(i, perturb, mask)
      }
    }
    this.fill = this.size
  }

  /** The member keys in CPython's order. */
  orderedKeys(): unknown[] {
    if (!this.slots) return Array.from(super.keys())
    const out: unknown[] = []
    for (const k of this.slots) if (k !== EMPTY && k !== DUMMY) out.push(k)
    return out
  }

  override keys(): MapIterator<unknown> {
    if (!this.slots) return super.keys()
    return this.orderedKeys()[Symbol.iterator]() as MapIterator<unknown>
  }

  override values(): MapIterator<unknown> {
    if (!this.slots) return super.values()
    const out: unknown[] = []
    const slots = this.slots
    for (let i = 0; i < slots.length; i++) if (slots[i] !== EMPTY && slots[i] !== DUMMY) out.push(this.members[i])
    return out[Symbol.iterator]() as MapIterator<unknown>
  }

  override entries(): MapIterator<[unknown, unknown]> {
    if (!this.slots) return super.entries()
    const out: Array<[unknown, unknown]> = []
    const slots = this.slots
    for (let i = 0; i < slots.length; i++) if (slots[i] !== EMPTY && slots[i] !== DUMMY) out.push([slots[i], this.members[i]])
    return out[Symbol.iterator]() as MapIterator<[unknown, unknown]>
  }

  override [Symbol.iterator](): MapIterator<[unknown, unknown]> {
    return this.entries()
  }

  override forEach(f: (value: unknown, key: unknown, map: Map<unknown, unknown>) => void, thisArg?: unknown): void {
    for (const k of this.orderedKeys()) f.call(thisArg, super.get(k), k, this)
  }

  /** set.pop(): CPython takes the first member at or after its finger (where the last pop left off). */
  popKey(): unknown {
    if (!this.slots) return super.keys().next().value
    const n = this.slots.length
    let i = this.finger & (n - 1)
    while (this.slots[i] === EMPTY || this.slots[i] === DUMMY) i = (i + 1) % n
    this.finger = i + 1
    return this.slots[i]
  }
}

/**
 * A set display of three or more constants (`{9, 17, 1, 25}`): CPython's compiler makes it a
 * frozenset constant, rebuilt from its own iteration order when the code's constants are merged,
 * and the new set copies that table (up to 4 members) or takes its members in table order into a
 * table presized for twice their number.
 */
export function constantSet(map: Map<unknown, unknown>): void {
  const m = map as SetTable
  if (m.size < 3 || !m.tracked) return
  const first = new SetTable()
  for (const [k, v] of Map.prototype.entries.call(m)) first.set(k, v)
  const rebuilt = new SetTable()
  for (const [k, v] of first) rebuilt.set(k, v)
  const n = m.size
  if (n * 5 < 7 * 3) { m.adopt(rebuilt); return }
  m.clear()
  m.presize(n * 2)
  for (const [k, v] of rebuilt) m.set(k, v)
}
