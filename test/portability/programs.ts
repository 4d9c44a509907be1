/**
 * One program per frontend, compiled once, with its args and the result
 * every host must give (or the refusal a host that lacks its library must
 * give). The expected values are written out here, so a host that agrees
 * with the others on a wrong answer still fails.
 */
import { transpile, Agent, e, s, type AjsProgram } from '../../src/index.ts'
import { transpilePython } from '../../src/python/index.ts'
import { compileFlow } from '../../src/flows/index.ts'
import { compileWorkflow } from '../../src/workflows/index.ts'
import { baselineGraph, compileTurnProgram } from '../../src/flowlang/index.ts'

export interface PortableProgram {
  frontend: string
  ast: AjsProgram
  args: Record<string, unknown>
  /** The result every host that runs it gives. */
  result?: unknown
  /** Or: the error code every plain host refuses it with (the program needs an engine), and what its hint names on each kind of host. */
  refused?: { code: string; hint: { library: string; cli: string; server: string } }
  /** The runtime libraries it declares (a browser page without them must refuse it). */
  libraries: string[]
}

const JS = `function tally({ items, label = 'items' }) {
  let total = 0
  for (const x of items) total += x * 2
  const odd = items.filter((x) => x % 2 === 1).length
  return { total, odd, label: \`\${items.length} \${label}\` }
}`

const PYTHON = `counts = {}
for w in words:
    counts[w] = counts.get(w, 0) + 1
top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
return {"distinct": len(counts), "top": top[0], "ratio": round(len(counts) / len(words), 3), "text": str(2.0)}`

const SAVED_FLOW = {
  id: 'route', name: 'Route', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
  flow: {
    nodes: [
      { id: 'start', node_type: 'entry', data: {} },
      { id: 'size', node_type: 'branch', data: { condition: 'input.lines > 100' } },
      { id: 'again', node_type: 'branch', data: { condition: 'visits < 3' } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'size' },
      { id: 'e2', source: 'size', target: 'again', source_handle: 'true' },
    ],
  },
}

const BLOCK_FLOW = {
  name: 'words',
  global_input_schema: { fields: [{ name: 'words', type: 'list' }] },
  steps: { type: 'h', children: ['count', 'shout'] },
  blocks: {
    count: {
      processor_type: 'code',
      content: 'return {"n": len(words), "words": words}',
      input_schema: { fields: [{ name: 'words', type: 'list' }] },
    },
    shout: {
      processor_type: 'code',
      content: 'return {"n": n, "loud": " ".join(w.upper() for w in words) + "!"}',
      input_schema: { fields: [{ name: 'n', type: 'integer' }, { name: 'words', type: 'list' }] },
    },
  },
}

const WORKFLOW = `export const meta = { name: 'digest' }
const draft = await agent(\`Summarize \${args.url}\`)
export default { draft }`

export function portablePrograms(): PortableProgram[] {
  const builder = Agent.take(s.object({ name: s.string, n: s.number }))
    .template({ template: 'Hello, {{who}}!', vars: { who: e.ident('name') } }).as('text')
    .return(e.parse('{ text, twice: n * 2, length: text.length }'))
  return [
    { frontend: 'JS source', ast: transpile(JS).ast, args: { items: [1, 2, 3, 5] }, result: { total: 22, odd: 3, label: '4 items' }, libraries: [] },
    { frontend: 'builder', ast: builder.toJSON() as AjsProgram, args: { name: 'Ada', n: 21 }, result: { text: 'Hello, Ada!', twice: 42, length: 11 }, libraries: [] },
    {
      frontend: 'Python block',
      ast: transpilePython(PYTHON, { params: ['initial', 'words'] }).ast,
      args: { initial: {}, words: ['b', 'a', 'b', 'c', 'a', 'b'] },
      result: { distinct: 3, top: 'b', ratio: 0.5, text: '2.0' },
      libraries: ['python'],
    },
    {
      frontend: 'SavedFlow',
      ast: compileFlow(SAVED_FLOW).ast,
      args: { lines: 400 },
      result: { outputs: {}, last: null, path: ['start', 'size', 'again'] },
      libraries: ['flow'],
    },
    {
      frontend: 'Block flow',
      ast: compileFlow(BLOCK_FLOW).ast,
      args: { words: ['to', 'be', 'or'] },
      result: { n: 3, loud: 'TO BE OR!' },
      libraries: ['flow', 'python'],
    },
    {
      // A turn of a FlowLang graph: its model, tools and sinks are capabilities a FlowSession gives it.
      frontend: 'FlowLang graph',
      ast: compileTurnProgram(baselineGraph({ type: 'protocol.openai', options: { url: 'http://127.0.0.1:9/v1', model: 'm' } })),
      args: { history: [], input: 'hi', turn: 1, channel: null, maxRounds: 4, system: null },
      refused: { code: 'LIBRARY_MISSING', hint: { library: 'FlowSession', cli: 'ajsc flowlang run', server: 'FlowLang session' } },
      libraries: ['flowlang'],
    },
    {
      frontend: 'workflow module',
      ast: compileWorkflow(WORKFLOW).ast,
      args: { args: { url: 'https://example.com' } },
      refused: { code: 'LIBRARY_MISSING', hint: { library: 'startWorkflow()', cli: 'ajsc workflow run', server: 'POST /v1/workflows' } },
      libraries: ['workflow'],
    },
  ]
}
