/**
 * Issue 24, listing and search: a run's name, tags and search attributes in the engine. Given at start
 * (journaled in the start entry), changed by the workflow with upsertAttributes (journaled, not again
 * on replay), bounded (SEARCH_ATTRIBUTES_LIMIT / _INVALID), carried by continueAsNew, and matched by
 * the listing filters every store shares.
 */
import { describe, expect, test } from 'bun:test'
import { MemoryJournalStore, compileWorkflow, continueWorkflow, resumeWorkflow, startWorkflow, type WorkflowRequest } from '../../src/workflows/index.ts'
import { SEARCH_LIMITS, attributeCandidates, attributesOfFlags, checkSearch, matchesSearch, searchOfJournal } from '../../src/workflows/engine/search.ts'

const SOURCE = `
upsertAttributes({ stage: 'draft', customer: args.customer })
const answer = await agent('draft')
const all = upsertAttributes({ stage: 'review', words: answer.length, customer: null })
let refused = null
try { upsertAttributes({ 'bad name': 1 }) } catch (e) { refused = e.code }
export default { all, refused }`

describe('upsertAttributes', () => {
  test('start options are journaled; upserts are journaled once, replayed without a second entry, and change exec.search', async () => {
    const store = new MemoryJournalStore()
    const program = compileWorkflow(SOURCE)
    const first = startWorkflow(program, { store, executionId: 's1', args: { customer: 'acme' }, name: 'nightly digest', tags: ['digest', 'digest', 'eu'], attributes: { priority: 2 } })
    const p = (await first.poll()) as { Request: WorkflowRequest }
    expect(first.search).toEqual({ name: 'nightly digest', tags: ['digest', 'eu'], attributes: { priority: 2, stage: 'draft', customer: 'acme' } })
    first.dispose() // a crash while the model answers

    const journal = store.read('s1')
    expect(journal[0]).toMatchObject({ t: 'start', name: 'nightly digest', tags: ['digest', 'eu'], attributes: { priority: 2 } })
    expect(journal.filter((e) => e.t === 'attributes')).toEqual([{ t: 'attributes', set: { stage: 'draft', customer: 'acme' } }])

    const second = await resumeWorkflow(program, journal, { store, executionId: 's1' })
    expect(second.search.attributes).toEqual({ priority: 2, stage: 'draft', customer: 'acme' })
    second.resolveRequest(p.Request.id, { Ok: 'hello' })
    const done = await second.poll()
    expect(done).toEqual({ Complete: { result: { all: { priority: 2, stage: 'review', words: 5 }, refused: 'SEARCH_ATTRIBUTES_INVALID' } } })
    const after = store.read('s1')
    expect(after.filter((e) => e.t === 'attributes').map((e) => (e as { set: unknown }).set)).toEqual([{ stage: 'draft', customer: 'acme' }, { stage: 'review', words: 5, customer: null }])
    expect(searchOfJournal(after)).toEqual(second.search)
    expect(second.search).toEqual({ name: 'nightly digest', tags: ['digest', 'eu'], attributes: { priority: 2, stage: 'review', words: 5 } })
  })

  test('over a bound the guest gets SEARCH_ATTRIBUTES_LIMIT (catchable, nothing journaled)', async () => {
    const store = new MemoryJournalStore()
    const ex = startWorkflow(`
const many = {}
for (let i = 0; i < ${SEARCH_LIMITS.attributes + 1}; i++) many['k' + i] = i
let code = null
try { upsertAttributes(many) } catch (e) { code = e.code }
let big = null
try { upsertAttributes({ text: 'x'.repeat(${SEARCH_LIMITS.attributeBytes}) }) } catch (e) { big = e.code }
export default { code, big }`, { store, executionId: 'lim' })
    expect(await ex.poll()).toEqual({ Complete: { result: { code: 'SEARCH_ATTRIBUTES_LIMIT', big: 'SEARCH_ATTRIBUTES_LIMIT' } } })
    expect(store.read('lim').some((e) => e.t === 'attributes')).toBe(false)
  })

  test('continueAsNew keeps the name, tags and the attributes as the run left them', async () => {
    const program = compileWorkflow(`
upsertAttributes({ round: args.n ?? 0 })
if ((args.n ?? 0) < 1) continueAsNew({ n: 1 })
export default 'done'`)
    const store = new MemoryJournalStore()
    const first = startWorkflow(program, { store, executionId: 'c0', name: 'poller', tags: ['poll'], attributes: { owner: 'ops' } })
    expect(await first.poll()).toMatchObject({ Complete: { continueAsNew: { args: { n: 1 } } } })
    const next = continueWorkflow(program, { executionId: 'c0', journal: store.read('c0') }, { store, executionId: 'c1' })
    expect(store.read('c1')[0]).toMatchObject({ t: 'start', name: 'poller', tags: ['poll'], attributes: { owner: 'ops', round: 0 } })
    expect(await next.poll()).toEqual({ Complete: { result: 'done' } })
    expect(next.search).toEqual({ name: 'poller', tags: ['poll'], attributes: { owner: 'ops', round: 1 } })
  })
})

describe('start options and filters', () => {
  test('bad start options are refused with their code, before anything is journaled', () => {
    const store = new MemoryJournalStore()
    const code = (o: Record<string, unknown>) => {
      try { startWorkflow('export default 1', { store, ...o }); return 'started' } catch (e) { return (e as { code: string }).code }
    }
    expect(code({ tags: ['ok', 'not ok'] })).toBe('SEARCH_ATTRIBUTES_INVALID')
    expect(code({ tags: Array.from({ length: 17 }, (_, i) => `t${i}`) })).toBe('SEARCH_ATTRIBUTES_LIMIT')
    expect(code({ attributes: { nested: { a: 1 } } })).toBe('SEARCH_ATTRIBUTES_INVALID')
    expect(code({ attributes: { n: Number.NaN } })).toBe('SEARCH_ATTRIBUTES_INVALID')
    expect(code({ attributes: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i])) })).toBe('SEARCH_ATTRIBUTES_LIMIT')
    expect(code({ name: '' })).toBe('SEARCH_ATTRIBUTES_INVALID')
    expect(code({ name: 'x'.repeat(201) })).toBe('SEARCH_ATTRIBUTES_LIMIT')
    expect(store.ids()).toEqual([])
    expect(checkSearch({ tags: [] })).toEqual({})
  })

  test('a filter needs every tag and every attribute; a number or boolean matches its text', () => {
    const run = { name: 'n', tags: ['a', 'b'], attributes: { customer: 'acme', priority: 2, urgent: true, zip: '02134' } }
    expect(matchesSearch(run, { tags: ['a'] })).toBe(true)
    expect(matchesSearch(run, { tags: ['a', 'c'] })).toBe(false)
    expect(matchesSearch(run, { attributes: { customer: 'acme', priority: '2', urgent: 'true' } })).toBe(true)
    expect(matchesSearch(run, { attributes: { zip: '02134' } })).toBe(true)
    expect(matchesSearch(run, { attributes: { priority: '3' } })).toBe(false)
    expect(matchesSearch(run, { attributes: { missing: 'x' } })).toBe(false)
    expect(matchesSearch(run, { name: 'other' })).toBe(false)
    expect(attributeCandidates('2')).toEqual(['2', 2])
    expect(attributeCandidates('')).toEqual([''])
    expect(attributesOfFlags(['priority=2', 'urgent=true', 'customer=acme', 'zip="02134"', 'eq=a=b'], '--attr')).toEqual({ priority: 2, urgent: true, customer: 'acme', zip: '02134', eq: 'a=b' })
    expect(() => attributesOfFlags(['=x'], '--attr')).toThrow(expect.objectContaining({ code: 'SEARCH_ATTRIBUTES_INVALID' }))
  })
})
