/**
 * Sinks: where values leave the pipeline for the host.
 *
 * sink.ui.messages: messages go to `onMessage` (or their text, one line, to
 * `output`); any other value is passed on as an event. sink.plain.events:
 * every value becomes an event (`{ type: 'message' | 'delta' | 'usage' |
 * …}`) for `onEvent` (or one NDJSON line on `output`). A sink with neither
 * callback nor stream drops values (the trace still records the turn).
 */
import type { PortType } from '../catalog.ts'
import type { FlowNode } from '../graph.ts'
import type { ChatMessage, FlowEvent, FlowHost, StreamDelta } from './types.ts'

/** A value of a port type as an event. */
export function asEvent(type: PortType, value: unknown): FlowEvent {
  switch (type) {
    case 'messages': return { type: 'message', message: value as ChatMessage }
    case 'stream': return { type: 'delta', text: (value as Extract<StreamDelta, { type: 'text' }>).text ?? '' }
    case 'usage': {
      const u = value as Extract<StreamDelta, { type: 'usage' }>
      return { type: 'usage', promptTokens: u.promptTokens, completionTokens: u.completionTokens }
    }
    default: return value as FlowEvent
  }
}

export function deliver(sink: FlowNode, type: PortType, value: unknown, host: FlowHost): void {
  const from = { sink: sink.id }
  const event = asEvent(type, value)
  if (sink.type === 'sink.ui.messages' && event.type === 'message') {
    if (host.onMessage) host.onMessage(event.message, from)
    else host.output?.write(`${event.message.content ?? ''}\n`)
    return
  }
  if (host.onEvent) host.onEvent(event, from)
  else host.output?.write(`${JSON.stringify(event)}\n`)
}
