/**
 * `throw e` of a value a catch bound keeps the first error's place, code and hint (JavaScript's error
 * keeps its stack): before, the host was told the handler's `throw` line, and a rethrown TypeError
 * became THROWN.
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'

const vm = new AgentVM()
async function run(source: string, args: Record<string, unknown> = {}) {
  const { ast } = transpile(source, { filename: 'p.ajs' })
  return vm.run(ast, args)
}

describe('rethrowing a caught error', () => {
  test('a thrown Error keeps the line that threw it first', async () => {
    const r = await run(`function g(x) {
  throw new Error('boom ' + x)
}
function f({ a }) {
  try {
    return g(a)
  } catch (e) {
    throw e
  }
}`, { a: 1 })
    expect(r.error).toMatchObject({ code: 'THROWN', message: 'boom 1', line: 2, column: 3, value: { name: 'Error', message: 'boom 1' } })
  })

  test("a VM error keeps its code and hint while e.code names it, with the handler's message", async () => {
    const src = (change: string) => `function f({ a }) {
  try {
    return a.trim()
  } catch (e) {
    ${change}
    throw e
  }
}`
    const kept = await run(src("e.message = 'reading a: ' + e.message"), { a: 5 })
    expect(kept.error).toMatchObject({ code: 'TYPE_ERROR', line: 3, column: 12 })
    expect(kept.error?.message).toStartWith('reading a: trim is a string method')
    expect(kept.error?.hint).toContain('String(x).trim')
    const recoded = await run(src("e.code = 'MINE'"), { a: 5 })
    expect(recoded.error).toMatchObject({ code: 'THROWN', line: 3, value: { code: 'MINE', name: 'TypeError' } })
  })

  test('caught again, it is the same object (what the handler added is still there)', async () => {
    const r = await run(`function f({ a }) {
  try {
    try {
      return a.trim()
    } catch (e) {
      e.seen = 1
      throw e
    }
  } catch (e2) {
    return { name: e2.name, code: e2.code, seen: e2.seen }
  }
}`, { a: 5 })
    expect(r.result).toEqual({ name: 'TypeError', code: 'TYPE_ERROR', seen: 1 })
  })

  test('a new error thrown from the handler is located where it is thrown', async () => {
    const r = await run(`function f({ a }) {
  try {
    return a.trim()
  } catch (e) {
    throw new Error('wrapped: ' + e.message)
  }
}`, { a: 5 })
    expect(r.error).toMatchObject({ code: 'THROWN', line: 5, column: 5 })
  })

  test('a value caught and thrown again later keeps its first place; one never caught has its own', async () => {
    const r = await run(`function f() {
  const err = { why: 'no' }
  try {
    throw err
  } catch (e) {
    e.n = 1
  }
  throw err
}`)
    // Caught once at line 4, then thrown again from line 8: the first error's place (line 4), as JS's stack would be the creation's.
    expect(r.error).toMatchObject({ code: 'THROWN', line: 4, value: { why: 'no', n: 1 } })
    const fresh = await run(`function f() {
  const err = { why: 'no' }
  throw err
}`)
    expect(fresh.error).toMatchObject({ line: 3 })
  })
})
