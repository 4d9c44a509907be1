// flows/lmstudio-qwen-functions.flow.js (the seed's authoring example)
export default function build({ blocks }) {
  // 1) Instantiate blocks
  const f = blocks.family.qwen3();
  const p = blocks.protocol.openai({ baseUrl: 'http://localhost:1234/v1' });
  const x = blocks.codec.mcp_over_functions();
  const r = blocks.router.mcp();
  const t = blocks.tools.negotiation_advertise();
  const sink = blocks.sink.ui.messages();

  // 2) Connect typed ports (wires)
  const edges = [
    { from: [f.id, 'messages.out'], to: [p.id, 'messages.in'] },
    { from: [p.id, 'stream.delta'], to: [x.id, 'stream.delta'] },
    { from: [x.id, 'tool_use.neutral'], to: [r.id, 'tool_use.neutral'] },
    { from: [r.id, 'tool_result.neutral'], to: [x.id, 'tool_result.neutral'] },
    { from: [x.id, 'messages.out'], to: [sink.id, 'events.out'] },
  ];

  // 3) Return the graph (validated by the parent)
  return {
    version: 1,
    name: 'LMStudio-Qwen Functions',
    nodes: [f, p, x, r, t, sink],
    edges,
  };
}
