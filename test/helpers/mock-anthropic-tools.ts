import {
  argumentsText,
  fragmentsOf,
  isObject,
  MockRejection,
  roughTokens,
  SCRIPTED_PROMPT_TOKENS,
  type ScriptedReply,
} from './scripted-reply.ts';

// The tool-calling half of the Anthropic mock: what the Messages API refuses about tools and tool
// blocks, and scripted answers with tool_use blocks, whole or streamed (see mock-anthropic-server.ts).

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const CHOICE_TYPES = new Set(['auto', 'any', 'tool', 'none']);

/**
 * Refuses, as the Messages API does: malformed `tools` (a name outside `^[a-zA-Z0-9_-]{1,64}$`, an
 * `input_schema` that is not an object schema), a `tool_choice` without tools or naming none of
 * them, non-string `stop_sequences`, a `tool_use` block outside an assistant turn, a `tool_result`
 * whose `tool_use_id` has no `tool_use` in the assistant turn just before, tool_use blocks left
 * without results in the next user turn, and results placed after other content in their turn.
 */
export function checkAnthropicToolFields(
  body: Record<string, unknown>,
  options: { systemMessages?: boolean } = {},
): void {
  const names = checkTools(body['tools']);
  const choice = body['tool_choice'];
  if (choice !== undefined) {
    if (!isObject(choice) || !CHOICE_TYPES.has(choice['type'] as string)) {
      throw new MockRejection('tool_choice: Input tag does not match any of the expected tags');
    }
    if (names.size === 0) throw new MockRejection('tool_choice may only be specified while providing tools.');
    if (choice['type'] === 'tool' && !names.has(choice['name'] as string)) {
      throw new MockRejection(`Tool '${String(choice['name'])}' not found in provided tools`);
    }
  }
  const stops = body['stop_sequences'];
  if (stops !== undefined && (!Array.isArray(stops) || !stops.every((stop) => typeof stop === 'string'))) {
    throw new MockRejection('stop_sequences: Input should be a valid list of strings');
  }
  const messages = body['messages'];
  if (!Array.isArray(messages)) throw new MockRejection('messages: Field required');
  let pending: Set<string> = new Set();
  for (const [index, message] of messages.entries()) {
    // Claude Code 2.1 sends per-turn instructions as `role: "system"` messages (with their own
    // `output_config`) under the `per-turn-control-2026-07-01` beta; they take no part in the
    // pairing of tool calls and results.
    if (options.systemMessages === true && isObject(message) && message['role'] === 'system') {
      blocksOf(message['content'], index);
      continue;
    }
    if (!isObject(message) || (message['role'] !== 'user' && message['role'] !== 'assistant')) {
      throw new MockRejection(`messages.${index}.role: Input should be 'user' or 'assistant'`);
    }
    const blocks = blocksOf(message['content'], index);
    if (message['role'] === 'assistant') {
      if (pending.size > 0) throw unanswered(index - 1, pending);
      pending = checkAssistantBlocks(blocks, index);
    } else {
      checkUserBlocks(blocks, index, pending);
      pending = new Set();
    }
  }
}

function checkTools(tools: unknown): Set<string> {
  const names = new Set<string>();
  if (tools === undefined) return names;
  if (!Array.isArray(tools)) throw new MockRejection('tools: Input should be a valid list');
  for (const [index, tool] of tools.entries()) {
    if (!isObject(tool) || typeof tool['name'] !== 'string' || !TOOL_NAME.test(tool['name'])) {
      throw new MockRejection(
        `tools.${index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`,
      );
    }
    const schema = tool['input_schema'];
    if (!isObject(schema) || schema['type'] !== 'object') {
      throw new MockRejection(`tools.${index}.custom.input_schema.type: Field required`);
    }
    if (names.has(tool['name'])) throw new MockRejection('tools: Tool names must be unique.');
    names.add(tool['name']);
  }
  return names;
}

function blocksOf(content: unknown, index: number): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content) || !content.every(isObject)) {
    throw new MockRejection(`messages.${index}.content: Input should be a valid list`);
  }
  return content;
}

function checkAssistantBlocks(blocks: Record<string, unknown>[], index: number): Set<string> {
  const ids = new Set<string>();
  for (const [n, block] of blocks.entries()) {
    if (block['type'] === 'tool_result') {
      throw new MockRejection(
        `messages.${index}.content.${n}: tool_result blocks may only appear in user messages`,
      );
    }
    if (block['type'] !== 'tool_use') continue;
    if (typeof block['id'] !== 'string' || !/^[a-zA-Z0-9_-]+$/.test(block['id'])) {
      throw new MockRejection(
        `messages.${index}.content.${n}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`,
      );
    }
    if (typeof block['name'] !== 'string' || !isObject(block['input'])) {
      throw new MockRejection(
        `messages.${index}.content.${n}.tool_use.input: Input should be a valid dictionary`,
      );
    }
    ids.add(block['id']);
  }
  return ids;
}

function checkUserBlocks(blocks: Record<string, unknown>[], index: number, pending: Set<string>): void {
  let seenOther = false;
  for (const [n, block] of blocks.entries()) {
    if (block['type'] === 'tool_use') {
      throw new MockRejection(
        `messages.${index}.content.${n}: tool_use blocks may only appear in assistant messages`,
      );
    }
    if (block['type'] !== 'tool_result') {
      seenOther = true;
      continue;
    }
    const id = block['tool_use_id'];
    if (typeof id !== 'string' || !pending.delete(id)) {
      throw new MockRejection(
        `messages.${index}.content.${n}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
    }
    if (seenOther) {
      throw new MockRejection(
        `messages.${index}.content.${n}: tool_result blocks must come first in the user message's content`,
      );
    }
    const content = block['content'];
    if (content !== undefined && typeof content !== 'string' && !Array.isArray(content)) {
      throw new MockRejection(
        `messages.${index}.content.${n}.tool_result.content: Input should be a valid string`,
      );
    }
  }
  if (pending.size > 0) throw unanswered(index - 1, pending);
}

function unanswered(index: number, pending: Set<string>): MockRejection {
  return new MockRejection(
    `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...pending].join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  );
}

const MODEL = 'claude-sonnet-4-5-20250929';

function idsOf(reply: ScriptedReply): string[] {
  return (reply.toolCalls ?? []).map((call, index) => call.id ?? `toolu_mock${index}`);
}

function outputTokens(reply: ScriptedReply): number {
  return roughTokens((reply.text ?? '') + (reply.toolCalls ?? []).map(argumentsText).join(''));
}

/** A Message answering with the script: thinking blocks, a text block, then a tool_use block per call. */
export function scriptedMessage(reply: ScriptedReply): Record<string, unknown> {
  const calls = reply.toolCalls ?? [];
  const ids = idsOf(reply);
  const content: unknown[] = (reply.thinking ?? []).map((part) => ({
    type: 'thinking',
    thinking: part.text,
    signature: part.signature,
  }));
  if (reply.text !== undefined && reply.text !== '') content.push({ type: 'text', text: reply.text });
  for (const [index, call] of calls.entries()) {
    content.push({
      type: 'tool_use',
      id: ids[index],
      name: call.name,
      input: JSON.parse(argumentsText(call) || '{}'),
    });
  }
  return {
    id: 'msg_scripted',
    type: 'message',
    role: 'assistant',
    model: MODEL,
    content,
    stop_reason:
      calls.length > 0 ? 'tool_use' : reply.stopSequence !== undefined ? 'stop_sequence' : 'end_turn',
    stop_sequence: calls.length === 0 ? (reply.stopSequence ?? null) : null,
    usage: scriptedUsage(reply),
  };
}

/**
 * The script's usage in the Messages API's fields, or the rough default (20 in, no cache). With
 * cache counts, `input_tokens` is only the uncached part, as Anthropic reports it.
 */
function scriptedUsage(reply: ScriptedReply): Record<string, unknown> {
  const usage = reply.usage;
  if (usage === undefined) {
    return {
      input_tokens: SCRIPTED_PROMPT_TOKENS,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: outputTokens(reply),
    };
  }
  const write5m = usage.cacheWrite5mTokens ?? 0;
  const write1h = usage.cacheWrite1hTokens ?? 0;
  return {
    input_tokens: usage.inputTokens ?? SCRIPTED_PROMPT_TOKENS,
    cache_creation_input_tokens: write5m + write1h,
    cache_read_input_tokens: usage.cacheReadTokens ?? 0,
    cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
    output_tokens: usage.outputTokens ?? outputTokens(reply),
  };
}

/**
 * The same answer as a Messages event stream: each tool_use block opens with an empty `input`,
 * then an empty `input_json_delta` (as the API sends), then the arguments in fragments.
 */
export function scriptedEventStream(reply: ScriptedReply): string {
  const events: string[] = [];
  const emit = (type: string, data: object) =>
    events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const message = scriptedMessage(reply);
  emit('message_start', {
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...(message['usage'] as object), output_tokens: 1 },
    },
  });
  let index = 0;
  // A thinking block streams as the API sends it: empty, its text, then its signature whole.
  for (const part of reply.thinking ?? []) {
    emit('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const thinking of fragmentsOf(part.text, reply.fragmentSize)) {
      emit('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } });
    }
    emit('content_block_delta', { index, delta: { type: 'signature_delta', signature: part.signature } });
    emit('content_block_stop', { index });
    index++;
  }
  if (reply.text !== undefined && reply.text !== '') {
    emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const text of fragmentsOf(reply.text, reply.fragmentSize)) {
      emit('content_block_delta', { index, delta: { type: 'text_delta', text } });
    }
    emit('content_block_stop', { index });
    index++;
  }
  const ids = idsOf(reply);
  for (const [n, call] of (reply.toolCalls ?? []).entries()) {
    emit('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: ids[n], name: call.name, input: {} },
    });
    emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
    const text = argumentsText(call);
    if (text !== '') {
      for (const partial_json of fragmentsOf(text, reply.fragmentSize)) {
        emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
      }
    }
    emit('content_block_stop', { index });
    index++;
  }
  // message_delta's counts are cumulative (MessageDeltaUsage): the prompt's again, without the
  // cache_creation split, and the output.
  const { cache_creation: _split, ...totals } = message['usage'] as Record<string, unknown>;
  emit('message_delta', {
    delta: { stop_reason: message['stop_reason'], stop_sequence: message['stop_sequence'] },
    usage: totals,
  });
  emit('message_stop', {});
  return events.join('');
}
