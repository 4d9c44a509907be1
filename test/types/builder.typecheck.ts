/**
 * Compile-only type tests for the builder (checked by `tsc --noEmit`; not a
 * bun test). Each `@ts-expect-error` line must be an error under --strict,
 * so unknown methods and wrongly-typed inputs are caught at compile time.
 */
import { s } from 'tosijs-schema'
import { Agent, AgentVM, defineAtom, e, type AjsProgram } from '../../src/index.ts'
import type { ValueOf } from '../../src/builder/types.ts'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const assertType = <T extends true>(_v?: T) => {}

// --- core atoms are methods, typed from their signatures -------------------
Agent.httpFetch({ url: 'https://example.com' })
Agent.httpFetch({ url: e.parse('base + "/x"') })
Agent.len({ value: [1, 2, 3] }).as('n')
Agent.uuid() // no required fields: the input may be omitted
Agent.random({ min: 1, max: 6 })

// @ts-expect-error: unknown method (typo of httpFetch)
Agent.httpFetc({ url: 'x' })
// @ts-expect-error: unknown method
Agent.notAnAtom()
// @ts-expect-error: url must be a string (or an expression)
Agent.httpFetch({ url: 42 })
// @ts-expect-error: unknown field
Agent.httpFetch({ url: 'x', verb: 'GET' })
// @ts-expect-error: missing required field `url`
Agent.httpFetch({ method: 'GET' })
// @ts-expect-error: split needs value and separator
Agent.split({ value: 'a,b' })
// @ts-expect-error: min must be a number
Agent.random({ min: 'one' })
// @ts-expect-error: len takes one input object
Agent.len()

// --- take(schema) types the parameters; ref() is typed by them ------------
const typed = Agent.take(s.object({ url: s.string, count: s.number }))
typed.httpFetch({ url: typed.ref('url') })
// @ts-expect-error: `count` is a number, url wants a string
typed.httpFetch({ url: typed.ref('count') })
// @ts-expect-error: no variable `nope` in scope
typed.ref('nope')

// --- .as(name) binds the previous step's output type ----------------------
const afterLen = Agent.len({ value: 'abc' }).as('n')
const nRef = afterLen.ref('n')
assertType<Equal<ValueOf<typeof nRef>, number>>()
assertType<Equal<ValueOf<ReturnType<typeof typed.ref<'url'>>>, string>>()
// @ts-expect-error: the bound type is number, not string
assertType<Equal<ValueOf<typeof nRef>, string>>()
// @ts-expect-error: `n` is a number, not a string
afterLen.httpFetch({ url: afterLen.ref('n') })
const splitted = Agent.split({ value: 'a,b', separator: ',' }).as('parts')
splitted.join({ items: splitted.ref('parts') })
// @ts-expect-error: join.items wants an array, `n` is a number
afterLen.join({ items: afterLen.ref('n') })

// --- bodies are typed builders too ----------------------------------------
typed.if('count > 1', (b) => b.httpFetch({ url: b.ref('url') }))
typed.if('msg.includes("x")', { msg: 'url' }, (b) => b.return(1), (b) => b.return(2))
// @ts-expect-error: unknown method inside a body
typed.if('count > 1', (b) => b.htpFetch({ url: 'x' }))
typed.forOf('item', '[1, 2]', (b) => b.consoleLog({ message: b.ref('item') }))
typed.map(e.ident('xs'), 'x', (b) => b.return(b.ref('x')))
typed.try({ try: (b) => b.throw('x'), catchParam: 'err', catch: (b) => b.return(b.ref('err')) })
// @ts-expect-error: a body must return a builder
typed.scope(() => 42)

// --- builder-only methods and probes --------------------------------------
const ast: AjsProgram = typed.return(1).toJSON()
void ast
// @ts-expect-error: take() is only on the root
typed.take(s.object({}))
// @ts-expect-error: as() needs a name
Agent.len({ value: 1 }).as()

// --- custom atoms from defineAtom appear, typed, on vm.Agent --------------
const shout = defineAtom('shout', s.object({ text: s.string }), s.string, ({ text }) => text.toUpperCase())
const add = defineAtom('add', s.object({ a: s.number, b: s.number }), s.number, ({ a, b }) => a + b)
// @ts-expect-error: defineAtom checks fn against the schemas (text is a string)
defineAtom('bad', s.object({ text: s.string }), s.number, ({ text }) => text * 2)
const vm = new AgentVM([shout, add])
vm.Agent.shout({ text: 'hi' }).as('loud')
vm.Agent.add({ a: 1, b: 2 }).len({ value: 'core atoms still there' })
const loud = vm.Agent.shout({ text: 'hi' }).as('loud')
loud.shout({ text: loud.ref('loud') }) // output of shout is a string
// @ts-expect-error: text must be a string
vm.Agent.shout({ text: 1 })
// @ts-expect-error: add needs b
vm.Agent.add({ a: 1 })
// @ts-expect-error: the core-only Agent does not know custom atoms
Agent.shout({ text: 'hi' })
// @ts-expect-error: add's output is a number, shout.text wants a string
vm.Agent.add({ a: 1, b: 2 }).as('sum').shout({ text: vm.Agent.add({ a: 1, b: 2 }).as('sum').ref('sum') })
const byRecord = new AgentVM({ shout })
byRecord.Agent.shout({ text: 'x' })
// @ts-expect-error: unknown method on a VM's builder
byRecord.Agent.add({ a: 1, b: 2 })
