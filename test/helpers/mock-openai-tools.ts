import {
  argumentsText,
  fragmentsOf,
  isObject,
  MockRejection,
  roughTokens,
  SCRIPTED_PROMPT_TOKENS,
  type ScriptedReply,
} from './scripted-reply.ts';

// The tool-calling half of the OpenAI mock: what Chat Completions refuses about tools, and
// scripted answers with tool calls, whole or streamed (see mock-openai-server.ts).

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Refuses, as Chat Completions does, a request whose tools, tool_choice, stop or tool messages are
 * malformed: a `role: "tool"` message must answer a `tool_calls` id of the assistant message
 * before it, and every call of an assistant message must be answered before the conversation
 * goes on.
 */
export function checkOpenAIToolFields(request: Record<string, unknown>): void {
  const names = checkTools(request['tools']);
  checkToolChoice(request['tool_choice'], names);
  checkStop(request['stop']);
  const messages = request['messages'];
  if (!Array.isArray(messages))
    throw new MockRejection("Missing required parameter: 'messages'.", 'messages');
  let open = new Set<string>();
  let openAt = -1;
  for (const [index, message] of messages.entries()) {
    if (!isObject(message))
      throw new MockRejection(`Invalid type for 'messages[${index}]'.`, `messages[${index}]`);
    const role = message['role'];
    if (role === 'tool') {
      const id = message['tool_call_id'];
      if (typeof id !== 'string') {
        throw new MockRejection(
          `Missing required parameter: 'messages[${index}].tool_call_id'.`,
          `messages[${index}].tool_call_id`,
        );
      }
      if (!open.delete(id)) {
        throw new MockRejection(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${index}].role`,
        );
      }
      if (typeof message['content'] !== 'string' && !Array.isArray(message['content'])) {
        throw new MockRejection(
          `Invalid type for 'messages[${index}].content'.`,
          `messages[${index}].content`,
        );
      }
      continue;
    }
    if (open.size > 0) {
      throw new MockRejection(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
        `messages.[${openAt}].role`,
      );
    }
    if (role === 'assistant') {
      open = checkAssistant(message, index);
      openAt = index;
    } else if (role !== 'system' && role !== 'user' && role !== 'developer') {
      throw new MockRejection(
        `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `messages[${index}].role`,
      );
    }
  }
}

function checkTools(tools: unknown): Set<string> {
  const names = new Set<string>();
  if (tools === undefined) return names;
  if (!Array.isArray(tools) || tools.length === 0) {
    throw new MockRejection(
      "Invalid 'tools': empty array. Expected an array with minimum length 1.",
      'tools',
    );
  }
  for (const [index, tool] of tools.entries()) {
    const fn = isObject(tool) ? tool['function'] : undefined;
    if (!isObject(tool) || tool['type'] !== 'function' || !isObject(fn)) {
      throw new MockRejection(
        `Missing required parameter: 'tools[${index}].function'.`,
        `tools[${index}].function`,
      );
    }
    const name = fn['name'];
    if (typeof name !== 'string' || !FUNCTION_NAME.test(name)) {
      throw new MockRejection(
        `Invalid 'tools[${index}].function.name': string does not match pattern.`,
        `tools[${index}].function.name`,
      );
    }
    if (fn['parameters'] !== undefined && !isObject(fn['parameters'])) {
      throw new MockRejection(
        `Invalid type for 'tools[${index}].function.parameters'.`,
        `tools[${index}].function.parameters`,
      );
    }
    names.add(name);
  }
  return names;
}

function checkToolChoice(choice: unknown, names: Set<string>): void {
  if (choice === undefined) return;
  if (names.size === 0) {
    throw new MockRejection(
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      'tool_choice',
    );
  }
  if (choice === 'auto' || choice === 'none' || choice === 'required') return;
  const fn = isObject(choice) ? choice['function'] : undefined;
  if (!isObject(choice) || choice['type'] !== 'function' || !isObject(fn) || typeof fn['name'] !== 'string') {
    throw new MockRejection("Invalid value for 'tool_choice'.", 'tool_choice');
  }
  if (!names.has(fn['name'])) {
    throw new MockRejection(
      `Invalid value for 'tool_choice': function '${fn['name']}' not found in 'tools'.`,
      'tool_choice',
    );
  }
}

function checkStop(stop: unknown): void {
  if (stop === undefined || stop === null || typeof stop === 'string') return;
  if (!Array.isArray(stop) || stop.length > 4 || !stop.every((item) => typeof item === 'string')) {
    throw new MockRejection("Invalid 'stop': expected a string or an array of at most 4 strings.", 'stop');
  }
}

function checkAssistant(message: Record<string, unknown>, index: number): Set<string> {
  const calls = message['tool_calls'];
  const content = message['content'];
  if (calls === undefined) {
    if (typeof content !== 'string' && !Array.isArray(content)) {
      throw new MockRejection(
        `Invalid value for 'messages[${index}].content': expected a string, got null.`,
        `messages[${index}].content`,
      );
    }
    return new Set();
  }
  if (!Array.isArray(calls) || calls.length === 0) {
    throw new MockRejection(
      `Invalid 'messages[${index}].tool_calls': empty array.`,
      `messages[${index}].tool_calls`,
    );
  }
  const ids = new Set<string>();
  for (const [n, call] of calls.entries()) {
    const fn = isObject(call) ? call['function'] : undefined;
    const valid =
      isObject(call) &&
      typeof call['id'] === 'string' &&
      call['type'] === 'function' &&
      isObject(fn) &&
      typeof fn['name'] === 'string' &&
      typeof fn['arguments'] === 'string';
    if (!valid) {
      throw new MockRejection(
        `Invalid 'messages[${index}].tool_calls[${n}]'.`,
        `messages[${index}].tool_calls[${n}]`,
      );
    }
    ids.add(call['id'] as string);
  }
  return ids;
}

const HEAD = { object: 'chat.completion', created: 1754380800, model: 'gpt-4o-mini-2024-07-18' };

function callIds(reply: ScriptedReply): string[] {
  return (reply.toolCalls ?? []).map((call, index) => call.id ?? `call_mock${index}${'x'.repeat(8)}`);
}

/**
 * The script's usage (cached tokens counted inside `prompt_tokens`, reasoning inside
 * `completion_tokens`, as OpenAI does) or the rough one.
 */
function usageOf(reply: ScriptedReply): Record<string, unknown> {
  const out = (reply.text ?? '') + (reply.toolCalls ?? []).map(argumentsText).join('');
  const completion = reply.usage?.outputTokens ?? roughTokens(out);
  const prompt = reply.usage?.inputTokens ?? SCRIPTED_PROMPT_TOKENS;
  const usage: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
  if (reply.usage?.cacheReadTokens !== undefined)
    usage['prompt_tokens_details'] = { cached_tokens: reply.usage.cacheReadTokens };
  // A reasoning model's share of the completion, as OpenAI reports it.
  if (reply.usage?.reasoningTokens !== undefined)
    usage['completion_tokens_details'] = { reasoning_tokens: reply.usage.reasoningTokens };
  return usage;
}

/** A `chat.completion` answering with the script. */
export function scriptedCompletion(reply: ScriptedReply): Record<string, unknown> {
  const calls = reply.toolCalls ?? [];
  const ids = callIds(reply);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: reply.text ?? null,
    refusal: null,
    annotations: [],
  };
  if (calls.length > 0) {
    message['tool_calls'] = calls.map((call, index) => ({
      id: ids[index],
      type: 'function',
      function: { name: call.name, arguments: argumentsText(call) },
    }));
  }
  return {
    id: 'chatcmpl-scripted',
    ...HEAD,
    choices: [{ index: 0, message, logprobs: null, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }],
    usage: usageOf(reply),
  };
}

/**
 * The same answer as `chat.completion.chunk` events: the text in pieces, then each call's first
 * fragment (id, name, empty arguments) followed by its argument fragments, the fragments of
 * parallel calls interleaved round-robin, as OpenAI may send them.
 */
export function scriptedStream(reply: ScriptedReply, includeUsage: boolean): Buffer[] {
  const head = { id: 'chatcmpl-scripted', ...HEAD, object: 'chat.completion.chunk' };
  const chunk = (delta: object, finish: string | null = null) =>
    Buffer.from(
      `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`,
    );
  const events = [chunk({ role: 'assistant', content: reply.text === undefined ? null : '', refusal: null })];
  if (reply.text !== undefined && reply.text !== '') {
    for (const piece of fragmentsOf(reply.text, reply.fragmentSize)) events.push(chunk({ content: piece }));
  }
  const calls = reply.toolCalls ?? [];
  const ids = callIds(reply);
  const pieces = calls.map((call) => fragmentsOf(argumentsText(call), reply.fragmentSize));
  for (const [index, call] of calls.entries()) {
    events.push(
      chunk({
        tool_calls: [
          { index, id: ids[index], type: 'function', function: { name: call.name, arguments: '' } },
        ],
      }),
    );
  }
  for (let round = 0; pieces.some((list) => round < list.length); round++) {
    for (const [index, list] of pieces.entries()) {
      const piece = list[round];
      if (piece !== undefined && piece !== '')
        events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  }
  events.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'));
  if (includeUsage) {
    events.push(Buffer.from(`data: ${JSON.stringify({ ...head, choices: [], usage: usageOf(reply) })}\n\n`));
  }
  events.push(Buffer.from('data: [DONE]\n\n'));
  return events;
}
