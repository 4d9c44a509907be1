/**
 * A FlowLang pipeline as an "ajs/1" program: one run of it is one turn.
 *
 * The turn loop — rounds, the rounds limit, the idle nudge, the tool round
 * trip, the conversation — is AJS steps; each block's work is a call of a
 * FlowLang atom (atoms.ts) with the block's id, type and options as
 * literals. The program's args are the turn's (history, input, turn number,
 * codec.auto's detected channel, the rounds limit, the host's system
 * prompt); it returns `{ text, messages, rounds, toolCalls, unsupported,
 * channel }`. Host settings (model endpoint, MCP servers, callbacks) are not
 * in it: they are the run's capabilities.
 *
 * Equivalent JavaScript, for a graph `f → p → x ⇄ r`:
 *
 *   let conversation = [...history, { role: 'user', content: input }], added = [...]
 *   let rounds = 0, toolCalls = 0, nudges = 0, calls = 0, unsupported = []
 *   const tools = flowTools({ node: 'r', ... })
 *   while (true) {
 *     if (rounds >= maxRounds) flowStop({ problem: 'TURN_ROUNDS', params: { rounds } })
 *     rounds = rounds + 1
 *     let messages = system ? [{ role: 'system', content: system }, ...conversation] : conversation
 *     messages = flowShape({ type: 'family.qwen3', options: {...}, messages })
 *     const request = flowAdvertise({ codec: 'codec.auto', tools, messages })
 *     const round = flowModelRound({ node: 'p', protocol: 'protocol.openai', ..., round: rounds })
 *     const gate = flowDecode({ node: 'x', ..., round, calls })
 *     channel = gate.channel; calls = gate.calls
 *     if (gate.uses.length === 0) { ... nudge or: added.push(flowFinal(...)); return {...} }
 *     const results = []
 *     for (const use of gate.uses) { toolCalls = toolCalls + 1; const call = flowToolCall({...}); ... }
 *     const encoded = flowEncode({ channel: gate.active, round, gate, results })
 *     conversation.push(...encoded); added.push(...encoded)
 *   }
 */
import type { AjsProgram, Expr, Json, Step } from '../../ast/types.ts'
import { blockSpec } from '../catalog.ts'
import type { FlowGraph, FlowNode } from '../graph.ts'
import { codecChannel } from './codecs.ts'
import { FLOW_ATOM_NAMES, FLOWLANG_LIBRARY_VERSION } from './atoms.ts'
import { SHAPERS } from './shapers.ts'
import * as b from '../../ast/build.ts'

// The nodes of a turn, made with the one node kit (src/ast/build.ts).
const lit = (value: unknown): Expr => b.lit((value ?? null) as Json)
const id = b.id
const get = (object: Expr, property: string): Expr => b.member(object, property)
const bin = b.binary
const and = b.and
const not = b.not
const spread = b.spread
const arr = (...elements: Expr[]): Expr => b.array(elements)
const obj = (props: Record<string, Expr>): Expr => b.object(props)
const method = (object: Expr, name: string, ...args: Expr[]): Expr => b.methodCall(object, name, args)
const len = (e: Expr): Expr => get(e, 'length')
const plus1 = (name: string): Step => set(name, bin('+', id(name), lit(1)))
const set = (name: string, value: Expr): Step => b.exprStep(b.assign(name, value))
const stmt = (value: Expr): Step => b.exprStep(value)
const lets = (vars: Record<string, Expr>): Step => b.varsLet(vars)
const when = (condition: Expr, then: Step[], otherwise?: Step[]): Step => b.if_(condition, then, otherwise)
/** An atom step; every field a value expression. */
const call = (op: string, fields: Record<string, Expr>, result?: string): Step => ({ op, ...fields, ...(result ? { result } : {}) })

const byRole = (graph: FlowGraph, role: string): FlowNode[] => graph.nodes.filter((n) => blockSpec(n.type)?.role === role)

/** The shapers feeding the protocol's `messages.in`, first to last. */
export function messageChain(graph: FlowGraph, protocol: FlowNode): FlowNode[] {
  const chain: FlowNode[] = []
  let target = protocol.id
  for (let guard = 0; guard < graph.nodes.length; guard++) {
    const edge = graph.edges.find((e) => e.to[0] === target && e.to[1] === 'messages.in')
    const node = edge && graph.nodes.find((n) => n.id === edge.from[0])
    if (!node || !SHAPERS[node.type] || chain.includes(node)) break
    chain.unshift(node)
    target = node.id
  }
  return chain
}

/** The turn program of a graph (it must have passed validateFlowGraph). */
export function compileTurnProgram(graph: FlowGraph): AjsProgram {
  const protocol = byRole(graph, 'protocol')[0]!
  const codec = byRole(graph, 'codec')[0]!
  const router = byRole(graph, 'router')[0]!
  const advertiser = graph.nodes.find((n) => n.type === 'tools.negotiation_advertise')
  const gates = graph.nodes.filter((n) => n.type === 'advisor.gate' && (n.options.when as string[] | undefined)?.includes('preTool'))
  const nudge = graph.nodes.find((n) => n.type === 'scheduler.idle_nudge')
  const servers = lit(router.options.servers)
  const user = obj({ role: lit('user'), content: id('input') })

  const done: Step[] = [
    when(len(get(id('gate'), 'unrouted')), [stmt(method(id('unsupported'), 'push', spread(get(id('gate'), 'unrouted'))))]),
  ]
  if (nudge) {
    const message = obj({ role: lit('user'), content: lit(String(nudge.options.message)) })
    const empty = obj({ role: lit('assistant'), content: lit('') })
    done.push(when(and(and(not(method(get(id('gate'), 'visible'), 'trim')), bin('===', len(get(id('gate'), 'dropped')), lit(0))), bin('<', id('nudges'), lit(Number(nudge.options.maxNudges ?? 1)))), [
      plus1('nudges'),
      call('flowTrace', { node: lit(nudge.id), kind: lit('nudge'), detail: obj({ n: id('nudges') }) }),
      stmt(method(id('conversation'), 'push', empty, message)),
      stmt(method(id('added'), 'push', empty, message)),
      { op: 'continue' },
    ]))
  }
  done.push(
    call('flowFinal', { node: lit(codec.id), text: get(id('gate'), 'visible') }, 'final'),
    stmt(method(id('added'), 'push', id('final'))),
    { op: 'return', value: obj({
      text: get(id('gate'), 'visible'), messages: id('added'), rounds: id('rounds'), toolCalls: id('toolCalls'),
      unsupported: id('unsupported'), channel: id('channel'),
    }) },
  )

  const round: Step[] = [
    when(bin('>=', id('rounds'), id('maxRounds')), [call('flowStop', { problem: lit('TURN_ROUNDS'), params: obj({ rounds: id('rounds') }) })]),
    plus1('rounds'),
    lets({ messages: b.cond(id('system'), arr(obj({ role: lit('system'), content: id('system') }), spread(id('conversation'))), id('conversation')) }),
    ...messageChain(graph, protocol).map((n) => call('flowShape', { type: lit(n.type), options: lit(n.options), messages: id('messages') }, 'messages')),
    call('flowAdvertise', { codec: lit(codec.type), tools: id('tools'), messages: id('messages') }, 'request'),
    call('flowModelRound', {
      node: lit(protocol.id), protocol: lit(protocol.type), options: lit(protocol.options),
      messages: get(id('request'), 'messages'), tools: get(id('request'), 'tools'), round: id('rounds'),
    }, 'round'),
    call('flowDecode', {
      node: lit(codec.id), fixed: lit(codecChannel(codec.type)), channel: id('channel'), prefer: lit(codec.options.prefer ?? 'functions'),
      round: id('round'), turn: id('turn'), calls: id('calls'),
    }, 'gate'),
    set('channel', get(id('gate'), 'channel')),
    set('calls', get(id('gate'), 'calls')),
    when(bin('===', len(get(id('gate'), 'uses')), lit(0)), done),
    lets({ results: arr() }),
    {
      op: 'forOf', target: 'use', kind: 'const', iterable: get(id('gate'), 'uses'), body: [
        plus1('toolCalls'),
        call('flowToolCall', {
          router: lit(router.id), codec: lit(codec.id), use: id('use'), tools: id('tools'),
          gates: lit(gates.map((g) => ({ id: g.id, threshold: g.options.threshold }))), servers,
        }, 'called'),
        when(get(id('called'), 'unsupported'), [stmt(method(id('unsupported'), 'push', get(id('use'), 'name')))]),
        stmt(method(id('results'), 'push', get(id('called'), 'result'))),
      ],
    },
    call('flowEncode', { channel: get(id('gate'), 'active'), round: id('round'), gate: id('gate'), results: id('results') }, 'encoded'),
    stmt(method(id('conversation'), 'push', spread(id('encoded')))),
    stmt(method(id('added'), 'push', spread(id('encoded')))),
  ]

  const param = (name: string) => ({ key: name, value: name })
  return {
    ajs: 1,
    op: 'seq',
    name: `flowlang turn: ${graph.name}`,
    description: 'One turn of a FlowLang pipeline (compiled by ajs-lang/flowlang).',
    atoms: [...FLOW_ATOM_NAMES],
    libraries: { flowlang: FLOWLANG_LIBRARY_VERSION },
    params: { $pattern: 'object', properties: ['history', 'input', 'turn', 'channel', 'maxRounds', 'system'].map(param) },
    steps: [
      lets({
        conversation: arr(spread(id('history')), user),
        added: arr(user),
        rounds: lit(0), toolCalls: lit(0), nudges: lit(0), calls: lit(0), unsupported: arr(),
      }),
      call('flowTools', { node: lit(router.id), servers, only: lit(advertiser?.options.tools) }, 'tools'),
      { op: 'while', condition: lit(true), body: round },
    ],
  }
}
