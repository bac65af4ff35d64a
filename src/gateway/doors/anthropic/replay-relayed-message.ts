import { relayedFrame } from './to-relayed-frames.ts';

type Json = Record<string, unknown>;

/** Blocks whose input streams as JSON text (input_json_delta) after a start with an empty input. */
const TOOL_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

/**
 * A cached relayed answer (a complete Messages JSON, decision 0021's amendment) written as the
 * stream a miss gives, in Anthropic's streaming format: message_start (the message with no content
 * and no stop reason yet, its usage), each block as content_block_start, its content in one delta
 * (text with its citations, thinking then its signature, a tool's input as JSON), and
 * content_block_stop, then message_delta (stop reason, stop sequence, the usage, `cost_usd` 0: a
 * hit costs nothing) and message_stop. A kept stream's usage is said as its own events said it. A block of a kind with no delta (redacted thinking, a
 * server tool's result) starts whole.
 */
export async function* replayRelayedMessage(
  messageText: string,
  streamUsage?: { start: unknown; delta: unknown },
): AsyncGenerator<string, string, undefined> {
  const message = JSON.parse(messageText) as Json;
  const content = Array.isArray(message.content) ? (message.content as Json[]) : [];
  const usage = isObject(message.usage) ? message.usage : {};
  // A kept stream's counts in the events that said them; a whole answer's in both (cumulative).
  const startUsage = isObject(streamUsage?.start) ? streamUsage.start : usage;
  const deltaUsage = isObject(streamUsage?.delta) ? streamUsage.delta : usage;
  const frame = (event: string, data: Json) => relayedFrame(event, JSON.stringify({ type: event, ...data }));
  yield frame('message_start', {
    message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: startUsage },
  });
  for (const [index, block] of content.entries()) {
    for (const [event, data] of blockEvents(block)) yield frame(event, { index, ...data });
  }
  yield frame('message_delta', {
    delta: { stop_reason: message.stop_reason ?? null, stop_sequence: message.stop_sequence ?? null },
    usage: { ...deltaUsage, cost_usd: 0 },
  });
  yield frame('message_stop', {});
  return '';
}

/** One block's events: its start, its deltas, its stop. */
function blockEvents(block: Json): [string, Json][] {
  const events: [string, Json][] = [];
  const delta = (payload: Json) => events.push(['content_block_delta', { delta: payload }]);
  if (block.type === 'text' && typeof block.text === 'string') {
    const { text, citations, ...rest } = block;
    // Citations stream as deltas; a `citations: null` stays on the block, as the upstream wrote it.
    const start = Array.isArray(citations) || citations === undefined ? rest : { ...rest, citations };
    events.push(['content_block_start', { content_block: { ...start, text: '' } }]);
    if (text !== '') delta({ type: 'text_delta', text });
    if (Array.isArray(citations))
      for (const citation of citations) delta({ type: 'citations_delta', citation });
  } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
    const { thinking, signature, ...rest } = block;
    events.push(['content_block_start', { content_block: { ...rest, thinking: '', signature: '' } }]);
    if (thinking !== '') delta({ type: 'thinking_delta', thinking });
    if (typeof signature === 'string') delta({ type: 'signature_delta', signature });
  } else if (typeof block.type === 'string' && TOOL_BLOCKS.has(block.type)) {
    const { input, ...rest } = block;
    events.push(['content_block_start', { content_block: { ...rest, input: {} } }]);
    delta({ type: 'input_json_delta', partial_json: JSON.stringify(input ?? {}) });
  } else events.push(['content_block_start', { content_block: block }]);
  events.push(['content_block_stop', {}]);
  return events;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
