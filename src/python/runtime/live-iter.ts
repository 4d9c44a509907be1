/**
 * Iterators over a dict (its keys, values or items), a set and a deque that see their container
 * change under them as CPython's do (a `for` loop, a comprehension, `iter()`): a dict whose size
 * changed since the iterator was made is `RuntimeError: dictionary changed size during iteration`
 * at the next step, also after its last item, and again at every step after; more items than it
 * had (a key deleted and another added) `dictionary keys changed during iteration`; a set `Set
 * changed size during iteration`, a deque whose length changed `deque mutated during iteration`; an
 * OrderedDict `OrderedDict mutated during iteration` when it has a next key. Values updated in place
 * are seen. A set's members are the ones it had (CPython's iterator walks the live table: a member
 * removed and another added in one step may show).
 */
import { PyDeque, PyDict, PyDictView, PyIter, PySet, tuple } from './values.ts'
import { raise } from './errors.ts'
import type { PyRun } from './fuel.ts'

type Kind = 'keys' | 'values' | 'items'
type Entry = [unknown, unknown]

const pick = (kind: Kind, [k, v]: Entry): unknown => (kind === 'keys' ? k : kind === 'values' ? v : tuple([k, v]))
const NAMES: Record<Kind, string> = { keys: 'dict_keyiterator', values: 'dict_valueiterator', items: 'dict_itemiterator' }

/** The items one at a time, for what reads an iterator whole (`list(it)`, `sorted(it)`). */
abstract class LiveIter extends PyIter {
  override rest(): unknown[] {
    const out: unknown[] = []
    for (let v = this.step(); v !== undefined; v = this.step()) out.push(v)
    return out
  }
}

/** CPython's dictiter: the size checked first at each step, the items counted down from the size it had. */
class DictIter extends LiveIter {
  private it: Iterator<Entry> | null
  private used: number
  private left: number
  constructor(readonly d: PyDict, readonly kind: Kind) {
    super([], NAMES[kind])
    this.used = this.left = d.size
    // A JS Map's iterator is live as a dict's entry table is: deleted entries are skipped, new ones come last.
    this.it = d.map.values()
  }
  override step(): unknown {
    if (this.it === null) return undefined
    if (this.used !== this.d.size) {
      this.used = -1
      raise('RuntimeError', 'dictionary changed size during iteration')
    }
    const r = this.it.next()
    if (r.done) { this.it = null; return undefined }
    if (this.left === 0) {
      this.it = null
      raise('RuntimeError', 'dictionary keys changed during iteration')
    }
    this.left--
    return pick(this.kind, r.value)
  }
}

/**
 * CPython's odictiter: the next key is found when one is given and checked when it is asked for; an
 * insertion or deletion since the iterator was made (seen here as a change of size or the next key
 * gone) is "mutated", after which the iterator is done.
 */
class OrderedDictIter extends LiveIter {
  private it: Iterator<[unknown, Entry]>
  private next: [unknown, Entry] | null
  private readonly size: number
  constructor(readonly d: PyDict, readonly kind: Kind) {
    super([], `odict_${kind === 'keys' ? 'key' : kind === 'values' ? 'value' : 'item'}iterator`)
    this.size = d.size
    this.it = d.map.entries()
    this.next = this.advance()
  }
  private advance(): [unknown, Entry] | null {
    const r = this.it.next()
    return r.done ? null : r.value
  }
  override step(): unknown {
    const cur = this.next
    if (cur === null) return undefined
    const entry = this.d.map.get(cur[0])
    if (this.size !== this.d.size || entry === undefined) {
      this.next = null
      raise('RuntimeError', 'OrderedDict mutated during iteration')
    }
    this.next = this.advance()
    return pick(this.kind, entry)
  }
}

/** CPython's setiter: the size checked at each step (the members as they were). */
class SetIter extends LiveIter {
  private used: number
  private members: unknown[] | null
  constructor(readonly s: PySet) {
    super([], 'set_iterator')
    this.used = s.size
    this.members = Array.from(s.map.values())
  }
  override step(): unknown {
    if (this.members === null) return undefined
    if (this.used !== this.s.size) {
      this.used = -1
      raise('RuntimeError', 'Set changed size during iteration')
    }
    if (this.i >= this.members.length) { this.members = null; return undefined }
    return this.members[this.i++]
  }
}

/** CPython's dequeiter: a change of the deque is an error at every step after it (here: of its length). */
class DequeIter extends LiveIter {
  private readonly length: number
  constructor(readonly q: PyDeque) {
    super([], '_collections._deque_iterator')
    this.length = q.length
  }
  override step(): unknown {
    if (this.q.length !== this.length) raise('RuntimeError', 'deque mutated during iteration')
    return this.i < this.length ? this.q[this.i++] : undefined
  }
}

/** An iterator that sees x change, for a dict, a dict view, a set or a deque; undefined for another value. */
export function liveIterator(x: unknown, rt?: PyRun): PyIter | undefined {
  let it: PyIter
  if (x instanceof PyDict) it = x.pyName === 'OrderedDict' ? new OrderedDictIter(x, 'keys') : new DictIter(x, 'keys')
  else if (x instanceof PyDictView) it = x.dict.pyName === 'OrderedDict' ? new OrderedDictIter(x.dict, x.kind) : new DictIter(x.dict, x.kind)
  else if (x instanceof PySet) it = new SetIter(x)
  else if (x instanceof PyDeque) it = new DequeIter(x)
  else return undefined
  // Paid as the snapshot it replaces was: one slot per item.
  rt?.chargeSlots(x instanceof PyDictView ? x.dict.size : x instanceof PyDeque ? x.length : x.size)
  return it
}
