/** Local functions in a workflow module (src/transpiler/statements-entry.ts lifts them as transpile does for functions). */
import { expect, test } from 'bun:test'
import { compileWorkflow, startWorkflow } from '../../src/workflows/index.ts'
import { drive } from './helpers.ts'

test('module-level arrows (one async) read args and the variables around them, and call agents', async () => {
  const src = `const tag = (x) => args.prefix + x
const seen = new Set()
const ask = async (topic) => {
  if (seen.has(topic)) return 'again'
  seen.add(topic)
  return await agent(tag(topic))
}
const first = await ask('a')
const again = await ask('a')
const all = args.topics.map(tag)
export default { first, again, all, size: seen.size }`
  const ex = startWorkflow(src, { args: { prefix: '>', topics: ['x', 'y'] } })
  const { result } = await drive(ex, (r) => ({ Ok: (r as { prompt: string }).prompt.toUpperCase() }))
  expect(result).toEqual({ first: '>A', again: 'again', all: ['>x', '>y'], size: 1 })
})

test('the lifted helpers are part of the program (its hash pins them) and keep their names', () => {
  const { ast } = compileWorkflow('const k = 2\nconst twice = (x) => x * k\nexport default twice(3)')
  expect(JSON.stringify(ast.functions?.twice?.params)).toBe('["k","x"]')
})
