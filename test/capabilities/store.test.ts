import { describe, expect, test } from 'bun:test'
import { createMemoryStore } from '../../src/capabilities/store.ts'
import { createTtlCache } from '../../src/capabilities/ttl-cache.ts'

const code = (fn: () => unknown): string | undefined => {
  try {
    fn()
  } catch (e) {
    return (e as { code?: string }).code
  }
  return undefined
}

describe('memory store: get/set/delete', () => {
  test('round trip, missing keys are null', () => {
    const store = createMemoryStore()
    expect(store.set('a', { x: 1, list: [1, 'two', null, true] })).toBeNull()
    expect(store.get('a')).toEqual({ x: 1, list: [1, 'two', null, true] })
    expect(store.get('missing')).toBeNull()
    expect(store.has('a')).toBe(true)
    expect(store.delete('a')).toBe(true)
    expect(store.delete('a')).toBe(false)
    expect(store.get('a')).toBeNull()
  })

  test('values are copied in and out', () => {
    const store = createMemoryStore()
    const value = { nested: { n: 1 } }
    store.set('k', value)
    value.nested.n = 2
    const out = store.get('k') as { nested: { n: number } }
    expect(out.nested.n).toBe(1)
    out.nested.n = 3
    expect((store.get('k') as { nested: { n: number } }).nested.n).toBe(1)
  })

  test('two stores never share state', () => {
    const a = createMemoryStore()
    const b = createMemoryStore()
    a.set('k', 1)
    expect(b.get('k')).toBeNull()
  })

  test('JSON semantics for undefined: dropped in objects, null in arrays', () => {
    const store = createMemoryStore()
    store.set('k', { a: undefined, b: [undefined, 1] })
    expect(store.get('k')).toEqual({ b: [null, 1] })
  })

  test('a __proto__ key stays data and does not change the prototype', () => {
    const store = createMemoryStore()
    store.set('k', JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}'))
    const out = store.get('k') as Record<string, unknown>
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(Object.hasOwn(out, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  const cyclic: Record<string, unknown> = {}
  cyclic['self'] = cyclic
  let getterRan = false
  test.each([
    ['a function', () => 1],
    ['a symbol', Symbol('x')],
    ['a bigint', 1n],
    ['NaN', NaN],
    ['Infinity', { n: Infinity }],
    ['undefined', undefined],
    ['a Date', new Date(0)],
    ['a Map', new Map()],
    ['a class instance', new (class Point { x = 1 })()],
    ['a cycle', cyclic],
    ['a getter', Object.defineProperty({}, 'g', { enumerable: true, get: () => { getterRan = true; return 1 } })],
  ])('%s is refused with STORE_BAD_VALUE', (_what, value) => {
    const store = createMemoryStore()
    expect(code(() => store.set('k', value))).toBe('STORE_BAD_VALUE')
    expect(getterRan).toBe(false)
    expect(store.stats().keys).toBe(0)
  })

  test('depth is limited', () => {
    const store = createMemoryStore({ maxDepth: 5 })
    let deep: unknown = 1
    for (let i = 0; i < 10; i++) deep = [deep]
    expect(code(() => store.set('k', deep))).toBe('STORE_BAD_VALUE')
  })

  test.each([[''], [42], [null], ['x'.repeat(2000)]])('key %p is refused with STORE_BAD_KEY', (key) => {
    const store = createMemoryStore()
    expect(code(() => store.set(key as string, 1))).toBe('STORE_BAD_KEY')
    expect(code(() => store.get(key as string))).toBe('STORE_BAD_KEY')
  })
})

describe('memory store: limits', () => {
  test('maxKeys refuses new keys but allows overwrites', () => {
    const store = createMemoryStore({ maxKeys: 2 })
    store.set('a', 1)
    store.set('b', 2)
    expect(code(() => store.set('c', 3))).toBe('STORE_FULL')
    store.set('a', 10)
    expect(store.get('a')).toBe(10)
  })

  test('maxValueBytes refuses one big value', () => {
    const store = createMemoryStore({ maxValueBytes: 100 })
    expect(code(() => store.set('k', 'x'.repeat(200)))).toBe('STORE_BAD_VALUE')
  })

  test('maxBytes accounts for overwrites and deletes', () => {
    const store = createMemoryStore({ maxBytes: 300 })
    store.set('a', 'x'.repeat(200))
    expect(code(() => store.set('b', 'x'.repeat(200)))).toBe('STORE_FULL')
    store.set('a', 'small')
    store.set('b', 'x'.repeat(200))
    store.delete('b')
    expect(store.stats()).toEqual({ keys: 1, bytes: 'small'.length + 2 + 1 })
  })

  test('unknown options are refused', () => {
    expect(code(() => createMemoryStore({ maxKey: 1 } as never))).toBe('STORE_OPTIONS')
    expect(code(() => createMemoryStore({ maxKeys: -1 }))).toBe('STORE_OPTIONS')
  })

  test('clear and dispose drop everything', () => {
    const store = createMemoryStore()
    store.set('a', 1)
    store[Symbol.dispose]()
    expect(store.stats()).toEqual({ keys: 0, bytes: 0 })
  })
})

describe('memory store: query', () => {
  const store = createMemoryStore()
  store.set('user:3', { name: 'Cy', role: 'admin', tags: ['x'] })
  store.set('user:1', { name: 'Al', role: 'user', tags: ['x'] })
  store.set('user:2', { name: 'Bo', role: 'admin', tags: ['y'] })
  store.set('order:1', { total: 5 })
  store.set('note', 'plain string')

  test('prefix returns matches sorted by key', () => {
    expect(store.query({ prefix: 'user:' }).map((r) => r.key)).toEqual(['user:1', 'user:2', 'user:3'])
  })

  test('where matches top-level fields by JSON equality', () => {
    expect(store.query({ where: { role: 'admin' } }).map((r) => r.key)).toEqual(['user:2', 'user:3'])
    expect(store.query({ where: { tags: ['x'] } }).map((r) => r.key)).toEqual(['user:1', 'user:3'])
    expect(store.query({ where: { missing: null } })).toEqual([])
  })

  test('limit and offset page through matches', () => {
    expect(store.query({ prefix: 'user:', limit: 2 }).map((r) => r.key)).toEqual(['user:1', 'user:2'])
    expect(store.query({ prefix: 'user:', limit: 2, offset: 2 }).map((r) => r.key)).toEqual(['user:3'])
  })

  test('an empty query lists everything (up to the default limit)', () => {
    expect(store.query().map((r) => r.key)).toEqual(['note', 'order:1', 'user:1', 'user:2', 'user:3'])
    expect(store.query({})[0]).toEqual({ key: 'note', value: 'plain string' })
  })

  test.each([[{ prefx: 'a' }], [{ limit: -1 }], [{ where: [1] }], [{ prefix: 5 }], ['string']])(
    'bad query %j is STORE_BAD_QUERY',
    (q) => {
      expect(code(() => store.query(q as never))).toBe('STORE_BAD_QUERY')
    },
  )
})

describe('memory store: vector search', () => {
  const store = createMemoryStore()
  store.addVector('docs', 'east', [1, 0], { text: 'east', lang: 'en' })
  store.addVector('docs', 'north', [0, 1], { text: 'north', lang: 'en' })
  store.addVector('docs', 'northeast', [1, 1], { text: 'northeast', lang: 'fr' })
  store.addVector('docs', 'west', [-1, 0], { text: 'west', lang: 'en' })
  store.set('other:x', { vector: [1, 0], text: 'other collection' })
  store.set('other:3d', { vector: [1, 0, 0] })

  test('results are ordered by cosine similarity', () => {
    const hits = store.vectorSearch({ collection: 'docs', vector: [1, 0.1], k: 4 })
    expect(hits.map((h) => h.id)).toEqual(['east', 'northeast', 'north', 'west'])
    expect(hits[0]!.score).toBeCloseTo(1 / Math.sqrt(1.01), 10)
    expect(hits[3]!.score).toBeLessThan(0)
  })

  test('hits carry key, id and meta without the vector', () => {
    const [hit] = store.vectorSearch({ collection: 'docs', vector: [0, 1], k: 1 })
    expect(hit).toEqual({ key: 'docs:north', id: 'north', score: 1, meta: { text: 'north', lang: 'en' } })
  })

  test('k limits, filter narrows, collection scopes', () => {
    expect(store.vectorSearch({ collection: 'docs', vector: [1, 0], k: 2 })).toHaveLength(2)
    expect(store.vectorSearch({ collection: 'docs', vector: [1, 0], filter: { lang: 'fr' } }).map((h) => h.id)).toEqual(['northeast'])
    expect(store.vectorSearch({ collection: 'other', vector: [1, 0] }).map((h) => h.id)).toEqual(['x'])
  })

  test('without a collection every vector of the same dimension is searched; ties order by key', () => {
    const hits = store.vectorSearch({ vector: [1, 0], k: 2 })
    expect(hits.map((h) => h.key)).toEqual(['docs:east', 'other:x'])
    expect(store.vectorSearch({ vector: [0, 0, 5] }).map((h) => h.key)).toEqual(['other:3d'])
  })

  test('a zero query vector scores 0 everywhere', () => {
    expect(store.vectorSearch({ collection: 'docs', vector: [0, 0] }).every((h) => h.score === 0)).toBe(true)
  })

  test.each([[[]], [['1', 2]], [[NaN, 1]], ['text']])('bad query vector %j is STORE_BAD_VECTOR', (vector) => {
    expect(code(() => store.vectorSearch({ vector: vector as never }))).toBe('STORE_BAD_VECTOR')
  })

  test('a stored value with a bad vector field is refused', () => {
    expect(code(() => store.set('docs:bad', { vector: [1, 'x'] }))).toBe('STORE_BAD_VECTOR')
    expect(code(() => createMemoryStore({ maxDimensions: 2 }).addVector('c', 'i', [1, 2, 3]))).toBe('STORE_BAD_VECTOR')
  })
})

describe('createTtlCache', () => {
  test('entries expire with the injected clock', () => {
    let now = 1000
    const cache = createTtlCache<string>({ ttlMs: 100, now: () => now })
    cache.set('a', 'A')
    cache.set('b', 'B', 500)
    now += 100
    expect(cache.get('a')).toBeUndefined()
    expect(cache.get('b')).toBe('B')
    now += 400
    expect(cache.has('b')).toBe(false)
  })

  test('least recently used entries are evicted first', () => {
    const cache = createTtlCache<number>({ maxEntries: 2 })
    cache.set('a', 1)
    cache.set('b', 2)
    cache.get('a')
    cache.set('c', 3)
    expect(cache.has('a')).toBe(true)
    expect(cache.has('b')).toBe(false)
    expect(cache.size).toBe(2)
  })

  test('prune drops expired entries and reports the count', () => {
    let now = 0
    const cache = createTtlCache<number>({ ttlMs: 10, now: () => now })
    cache.set('a', 1)
    cache.set('b', 2, 100)
    now = 50
    expect(cache.prune()).toBe(1)
    expect(cache.size).toBe(1)
  })

  test('bad options are refused', () => {
    expect(code(() => createTtlCache({ ttl: 5 } as never))).toBe('CACHE_OPTIONS')
    expect(code(() => createTtlCache().set('a', 1, -5))).toBe('CACHE_OPTIONS')
  })
})
