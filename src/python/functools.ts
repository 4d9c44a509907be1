/**
 * `functools` (extended profile), rewritten before scope analysis into plain Python the rest of the
 * frontend already runs: `reduce` and `cmp_to_key` are helper `def`s of the block (written in Python,
 * below; `cmp_to_key` as CPython's C KeyWrapper: each comparison calls cmp and compares its result
 * with 0, so a result that is not a number is that comparison's TypeError),
 * `@lru_cache` / `@cache` on a `def` a memo dict keyed by the argument tuple (a plain memo: no size
 * bound, no `cache_info`; the results are the same as CPython's for the pure functions it is used on).
 */
import type { Expr, ImportName, Loc, Stmt, StmtOf } from './ir.ts'
import { PyParser } from './parse.ts'
import { Refuser } from './refuse.ts'

const FUNCTOOLS = `def reduce(function, iterable, initial="\\x00reduce: no initial value"):
    it = iter(iterable)
    if isinstance(initial, str) and initial == "\\x00reduce: no initial value":
        try:
            value = next(it)
        except StopIteration:
            raise TypeError("reduce() of empty iterable with no initial value")
    else:
        value = initial
    for element in it:
        value = function(value, element)
    return value

def cmp_to_key(mycmp, key_class=[]):
    if not key_class:
        class KeyWrapper:
            def __init__(self, obj, mycmp):
                self.obj = obj
                # Read by the runtime (core.ts): sorting calls mycmp itself, not __lt__ and then mycmp.
                self._cmp_to_key_mycmp = mycmp
            def __lt__(self, other):
                if type(other) is not KeyWrapper:
                    raise TypeError("other argument must be K instance")
                return self._cmp_to_key_mycmp(self.obj, other.obj) < 0
            def __gt__(self, other):
                if type(other) is not KeyWrapper:
                    raise TypeError("other argument must be K instance")
                return self._cmp_to_key_mycmp(self.obj, other.obj) > 0
            def __le__(self, other):
                if type(other) is not KeyWrapper:
                    raise TypeError("other argument must be K instance")
                return self._cmp_to_key_mycmp(self.obj, other.obj) <= 0
            def __ge__(self, other):
                if type(other) is not KeyWrapper:
                    raise TypeError("other argument must be K instance")
                return self._cmp_to_key_mycmp(self.obj, other.obj) >= 0
            def __eq__(self, other):
                if type(other) is not KeyWrapper:
                    raise TypeError("other argument must be K instance")
                return self._cmp_to_key_mycmp(self.obj, other.obj) == 0
            def __ne__(self, other):
                if type(other) is not KeyWrapper:
                    raise TypeError("other argument must be K instance")
                return self._cmp_to_key_mycmp(self.obj, other.obj) != 0
            __hash__ = None
        key_class.append(KeyWrapper)
    KeyWrapper = key_class[0]
    def key(obj):
        return KeyWrapper(obj, mycmp)
    return key
`

/**
 * itertools functions that call the program's functions (the runtime cannot), as eager generators:
 * a group of groupby holds its items (CPython's groups end when the next one starts).
 */
const ITERTOOLS = `def groupby(iterable, key=None):
    groups = []
    for item in iterable:
        k = item if key is None else key(item)
        if groups and groups[-1][0] == k:
            groups[-1][1].append(item)
        else:
            groups.append((k, [item]))
    for k, items in groups:
        yield k, iter(items)

def takewhile(predicate, iterable):
    for x in iterable:
        if not predicate(x):
            return
        yield x

def dropwhile(predicate, iterable):
    dropping = True
    for x in iterable:
        if dropping and predicate(x):
            continue
        dropping = False
        yield x

def filterfalse(predicate, iterable):
    for x in iterable:
        if not (bool(x) if predicate is None else predicate(x)):
            yield x

def accumulate(iterable, func=None, initial=None):
    started = initial is not None
    total = initial
    if started:
        yield total
    for x in iterable:
        if not started:
            total = x
            started = True
        elif func is None:
            total = total + x
        else:
            total = func(total, x)
        yield total

def starmap(function, iterable):
    for args in iterable:
        yield function(*args)
`

/** heapq's sift functions, written into each helper that needs them (a helper reads no variable of the block). */
const SIFT_DOWN = `    def sift_down(heap, start, pos):
        item = heap[pos]
        while pos > start:
            parent = (pos - 1) // 2
            if item < heap[parent]:
                heap[pos] = heap[parent]
                pos = parent
                continue
            break
        heap[pos] = item
`
const SIFT_UP = `    def sift_up(heap, pos):
        end = len(heap)
        start = pos
        item = heap[pos]
        child = 2 * pos + 1
        while child < end:
            right = child + 1
            if right < end and not heap[child] < heap[right]:
                child = right
            heap[pos] = heap[child]
            pos = child
            child = 2 * pos + 1
        heap[pos] = item
        sift_down(heap, start, pos)
`

/**
 * heapq: the binary heap of the textbooks on a list (the smaller child moved up, then the item sifted
 * down). Each helper holds its own sift functions: a helper must read no variable of the block (a
 * comprehension calling it would not pass one).
 */
const HEAPQ = `def heappush(heap, item):
${SIFT_DOWN}    heap.append(item)
    sift_down(heap, 0, len(heap) - 1)

def heappop(heap):
${SIFT_DOWN}${SIFT_UP}    if not heap:
        raise IndexError("index out of range")
    last = heap.pop()
    if heap:
        top = heap[0]
        heap[0] = last
        sift_up(heap, 0)
        return top
    return last

def heapify(heap):
${SIFT_DOWN}${SIFT_UP}    for i in reversed(range(len(heap) // 2)):
        sift_up(heap, i)

def heapreplace(heap, item):
${SIFT_DOWN}${SIFT_UP}    if not heap:
        raise IndexError("index out of range")
    top = heap[0]
    heap[0] = item
    sift_up(heap, 0)
    return top

def heappushpop(heap, item):
${SIFT_DOWN}${SIFT_UP}    if heap and heap[0] < item:
        item, heap[0] = heap[0], item
        sift_up(heap, 0)
    return item

def nlargest(n, iterable, key=None):
    return sorted(iterable, key=key, reverse=True)[:n]

def nsmallest(n, iterable, key=None):
    return sorted(iterable, key=key)[:n]
`

const PRELUDES: Record<string, string> = { functools: FUNCTOOLS, itertools: ITERTOOLS, heapq: HEAPQ }

/** The block-level helper def that stands for an imported function written in Python (`functools$reduce`). */
export const preludeName = (module: string, name: string): string => `${module}$${name}`

function imports(stmts: Stmt[], out: ImportName[] = []): ImportName[] {
  for (const s of stmts) {
    if (s.k === 'import') out.push(...s.names)
    else if (s.k === 'def') imports(s.body, out)
    else if (s.k === 'if' || s.k === 'while' || s.k === 'for') { imports(s.body, out); imports(s.orelse, out) }
    else if (s.k === 'try') { imports(s.body, out); imports(s.orelse, out); imports(s.finalbody, out); for (const h of s.handlers) imports(h.body, out) }
  }
  return out
}

export function desugarFunctools(stmts: Stmt[], r: Refuser): Stmt[] {
  const names = imports(stmts).filter((n) => n.module === 'functools')
  const isMemo = (e: Expr): boolean => {
    if (e.k === 'call' && e.args.length === 0 && e.kw.every((k) => k.name === 'maxsize' || k.name === 'typed')) return isMemo(e.fn)
    if (e.k === 'name') return names.some((n) => n.alias === e.id && (n.name === 'lru_cache' || n.name === 'cache'))
    if (e.k === 'attr' && e.obj.k === 'name') { const id = e.obj.id; return (e.name === 'lru_cache' || e.name === 'cache') && names.some((n) => n.alias === id && n.name === null) }
    return false
  }
  const walk = (xs: Stmt[]): Stmt[] => xs.flatMap((s): Stmt[] => {
    switch (s.k) {
      case 'def': {
        const body = walk(s.body)
        if (!s.memo) return [{ ...s, body }]
        if (!isMemo(s.memo)) throw r.error('PY_UNSUPPORTED', { name: 'This decorator', fix: 'Only `@lru_cache`, `@lru_cache(maxsize=...)` and `@cache` (from functools) decorate a `def`; call other helpers directly.' }, s.memo.loc)
        if (s.params.some((p) => p.kind === 'kwstar')) throw r.error('PY_UNSUPPORTED', { name: '`@lru_cache` on a def with `**kwargs`', fix: 'Memoize a def of positional parameters (`*args` is fine).' }, s.loc)
        return memoized({ ...s, body, memo: undefined })
      }
      case 'if': case 'while': case 'for': return [{ ...s, body: walk(s.body), orelse: walk(s.orelse) }]
      case 'try': return [{ ...s, body: walk(s.body), orelse: walk(s.orelse), finalbody: walk(s.finalbody), handlers: s.handlers.map((h) => ({ ...h, body: walk(h.body) })) }]
      default: return [s]
    }
  })
  const out = walk(stmts)
  const all = imports(stmts)
  const prelude: Stmt[] = []
  for (const [module, text] of Object.entries(PRELUDES)) {
    const used = all.filter((n) => n.module === module)
    if (!used.length) continue
    const defs = new PyParser(text, new Refuser(text, text, `<${module}>`, 0)).parseScript()
    for (const d of defs) {
      if (d.k === 'def' && used.some((n) => n.name === null || n.name === d.name)) prelude.push({ ...d, name: preludeName(module, d.name) })
    }
  }
  return [...prelude, ...out]
}

/**
 * `@lru_cache def f(a, b=1): body` -> a memo dict beside the def, and the def looking its argument tuple
 * up first and storing what each `return` returns (in place: no second frame per call, so recursion
 * goes as deep as without the decorator).
 */
function memoized(d: StmtOf<'def'>): Stmt[] {
  const loc: Loc = d.loc
  const name = (id: string, at: Loc = loc): Expr => ({ k: 'name', id, loc: at })
  const memo = `memo$${d.name}`
  const slot = (at: Loc): Expr => ({ k: 'sub', obj: name(memo, at), index: name('key$', at), loc: at })
  const store = (value: Expr | null, at: Loc): Stmt[] => [
    { k: 'assign', targets: [name('value$', at)], value: value ?? { k: 'const', v: null, loc: at }, loc: at },
    { k: 'assign', targets: [slot(at)], value: name('value$', at), loc: at },
    { k: 'return', value: name('value$', at), loc: at },
  ]
  const walk = (xs: Stmt[]): Stmt[] => xs.flatMap((s): Stmt[] => {
    switch (s.k) {
      case 'return': return store(s.value, s.loc)
      case 'if': case 'while': case 'for': return [{ ...s, body: walk(s.body), orelse: walk(s.orelse) }]
      case 'try': return [{ ...s, body: walk(s.body), orelse: walk(s.orelse), finalbody: walk(s.finalbody), handlers: s.handlers.map((h) => ({ ...h, body: walk(h.body) })) }]
      default: return [s]
    }
  })
  const body: Stmt[] = [
    { k: 'assign', targets: [name('key$')], value: { k: 'tuple', elts: d.params.map((p) => name(p.name)), loc }, loc },
    { k: 'if', test: { k: 'cmp', ops: ['in'], xs: [name('key$'), name(memo)], loc }, body: [{ k: 'return', value: slot(loc), loc }], orelse: [], loc },
    ...walk(d.body),
    ...store(null, loc),
  ]
  return [{ k: 'assign', targets: [name(memo)], value: { k: 'dict', items: [], loc }, loc }, { ...d, body }]
}
