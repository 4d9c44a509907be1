/**
 * Compile-time context: lexical scopes resolved to frame slots, and the
 * shapes of compiled closures.
 *
 * Names are resolved once, at compile time, to an index into the current
 * function's slot array; at run time a variable read is one array load.
 */
import type { Frame, Completion } from '../runtime.ts'
import type { Loc } from '../../ast/types.ts'
import type { SlotOp } from './fusion.ts'
import { vmError, VmError } from '../errors.ts'

/** A compiled expression: `fn` may return a Promise only when `async` is true. */
export interface CExpr {
  fn: (f: Frame) => any
  /** Micro-fuel of the nodes always evaluated by this subtree (charged by the caller once). */
  cost: number
  async: boolean
  /** Set for literal nodes: lets operators fold or specialise. */
  constant?: { value: unknown }
  /** Set for plain variable reads: lets operators read the slot directly. */
  slot?: number
  /** The call needs no location wrapper: its errors are located inside (helper bodies) or cannot happen. */
  selfLocated?: boolean
  /** Set for `slot op number` / `slot op slot` superinstructions: lets steps fuse them. */
  slotOp?: SlotOp
  /** Set for `x++` / `x--` (any form) on a variable: lets loops step it inline. */
  slotInc?: { slot: number; delta: number }
  /**
   * The same effect as a step, for expressions whose value is discarded
   * (`i++`, `total += x` as statements): one closure instead of two.
   */
  step?: CStep
  /**
   * The same work by destination (nested-fusion.ts Into): given a slot, a step closure that stores
   * the value there, so `let x = <expr>` is one closure call, not the step's and the value's.
   */
  into?: (dst: number) => ((f: Frame) => unknown) | undefined
}

export type CStep = (f: Frame) => Completion | Promise<Completion>

export type BindingKind = 'let' | 'const' | 'var' | 'param'

export interface Binding {
  slot: number
  kind: BindingKind
}

/** One function being compiled: owns the slot counter. */
export class FnCtx {
  nslots = 0
  readonly root: Scope
  /**
   * Every caller of this function accepts a Promise from it (the entry, and
   * helpers that wait): its loops may pause between time slices.
   */
  suspendable = false
  constructor(readonly name: string) {
    this.root = new Scope(null, this)
  }
  alloc(): number {
    return this.nslots++
  }
}

export class Scope {
  readonly names = new Map<string, Binding>()
  constructor(
    readonly parent: Scope | null,
    readonly fn: FnCtx,
    /**
     * Each run of this block works on its own copy of the variables (the
     * items form of `parallel`): an assignment to a name declared outside
     * it would be lost, so it is refused.
     */
    readonly isolated = false,
  ) {}

  child(): Scope {
    return new Scope(this, this.fn)
  }

  isolatedChild(): Scope {
    return new Scope(this, this.fn, true)
  }

  /** The binding an assignment writes; refused when it lies outside an isolated block, or is a constant. */
  lookupForWrite(name: string): Binding | undefined {
    let crossed = false
    for (let s: Scope | null = this; s; s = s.parent) {
      const b = s.names.get(name)
      if (b) {
        if (crossed) throw compileError('PARALLEL_ASSIGN', `A parallel item body cannot assign "${name}", declared outside it`)
        if (b.kind === 'const') throw compileError('CONST_ASSIGN', `Assignment to constant "${name}"`)
        return b
      }
      if (s.isolated) crossed = true
    }
    return undefined
  }

  /** Where an undeclared `result` (or varSet key) is declared: the function scope, or the isolated block around. */
  varScope(): Scope {
    for (let s: Scope = this; ; s = s.parent!) {
      if (s.isolated) return s
      if (!s.parent) return this.fn.root
    }
  }

  declare(name: string, kind: BindingKind): Binding {
    const b = { slot: this.fn.alloc(), kind }
    this.names.set(name, b)
    return b
  }

  lookup(name: string): Binding | undefined {
    for (let s: Scope | null = this; s; s = s.parent) {
      const b = s.names.get(name)
      if (b) return b
    }
    return undefined
  }
}

/** Attach a location to a compile error (first one wins: innermost). */
export function withLoc<T>(loc: Loc | undefined, f: () => T): T {
  if (!loc) return f()
  try {
    return f()
  } catch (e) {
    if (e instanceof VmError && !e.loc) e.loc = loc
    throw e
  }
}

export const compileError = (code: Parameters<typeof vmError>[0], message: string, loc?: Loc) =>
  vmError(code, message, loc ? { loc } : undefined)
