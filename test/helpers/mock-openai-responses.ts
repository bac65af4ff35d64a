import {
  argumentsText,
  fragmentsOf,
  isObject,
  MockRejection,
  roughTokens,
  type ScriptedReply,
  type ScriptedToolCall,
} from './scripted-reply.ts';

// The Responses API half of the OpenAI mock (POST /v1/responses, see mock-openai-server.ts): what
// it refuses, and scripted answers as a Response object or as its event stream, in the shape the
// Open Responses specification gives them (docs/clients/open-responses-notes.md), with OpenAI's
// own extensions that Codex reads (custom_tool_call, reasoning with encrypted_content).

/** How a streamed response fails: `response.failed` with this error (Codex reads `code`). */
export interface ScriptedResponseFailure {
  code: string;
  message: string;
}

/**
 * Refuses, as the Responses API does: an `input` that is neither a string nor a list, a list
 * entry that is not an object with a `type` (or a `role`, the short message form), tools that are
 * not a list, and a tool output whose `call_id` answers no call earlier in `input` (without
 * `previous_response_id`, a stateless client must send the call back with its output).
 */
export function checkResponsesRequest(request: Record<string, unknown>): void {
  const input = request['input'];
  if (input !== undefined && typeof input !== 'string' && !Array.isArray(input)) {
    throw new MockRejection("Invalid type for 'input': expected a string or an array.", 'input');
  }
  const tools = request['tools'];
  if (tools !== undefined && !Array.isArray(tools)) {
    throw new MockRejection("Invalid type for 'tools': expected an array.", 'tools');
  }
  if (!Array.isArray(input)) return;
  const calls = new Set<string>();
  for (const [index, item] of input.entries()) {
    if (!isObject(item) || (typeof item['type'] !== 'string' && typeof item['role'] !== 'string')) {
      throw new MockRejection(`Invalid value for 'input[${index}]'.`, `input[${index}]`);
    }
    const type = item['type'];
    if (type === 'function_call' || type === 'custom_tool_call') calls.add(String(item['call_id']));
    if (type !== 'function_call_output' && type !== 'custom_tool_call_output') continue;
    if (request['previous_response_id'] === undefined && !calls.has(String(item['call_id']))) {
      throw new MockRejection(
        `No tool call found for function call output with call_id ${String(item['call_id'])}.`,
        'input',
      );
    }
  }
}

interface Ids {
  response: string;
  item(kind: string, index: number): string;
  call(call: ScriptedToolCall, index: number): string;
}

function idsFor(serial: number): Ids {
  return {
    response: `resp_mock${serial}`,
    item: (kind, index) => `${kind}_mock${serial}_${index}`,
    call: (call, index) => call.id ?? `call_mock${serial}_${index}`,
  };
}

/** The output items of the script: reasoning, the message, then one item per call. */
function outputItems(
  reply: ScriptedReply,
  request: Record<string, unknown>,
  ids: Ids,
): Record<string, any>[] {
  const include = Array.isArray(request['include']) ? request['include'] : [];
  const items: Record<string, any>[] = [];
  for (const part of reply.thinking ?? []) {
    items.push({
      type: 'reasoning',
      id: ids.item('rs', items.length),
      summary: [{ type: 'summary_text', text: part.text }],
      // Sent only when asked for, as OpenAI does (`include: ["reasoning.encrypted_content"]`).
      ...(include.includes('reasoning.encrypted_content') ? { encrypted_content: part.signature } : {}),
    });
  }
  if (reply.text !== undefined && reply.text !== '') {
    items.push({
      type: 'message',
      id: ids.item('msg', items.length),
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [], logprobs: [] }],
    });
  }
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const common = { call_id: ids.call(call, index), name: call.name, status: 'completed' };
    items.push(
      call.kind === 'custom'
        ? {
            type: 'custom_tool_call',
            id: ids.item('ctc', items.length),
            ...common,
            input: argumentsText(call),
          }
        : {
            type: 'function_call',
            id: ids.item('fc', items.length),
            ...common,
            arguments: argumentsText(call),
          },
    );
  }
  return items;
}

/** OpenAI counts cached tokens inside `input_tokens`. */
function responseUsage(reply: ScriptedReply): Record<string, unknown> {
  const usage = reply.usage ?? {};
  const input = usage.inputTokens ?? 20;
  const output =
    usage.outputTokens ??
    roughTokens((reply.text ?? '') + (reply.toolCalls ?? []).map(argumentsText).join(''));
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: input + output,
  };
}

/** Every field the specification's ResponseResource requires, the request's settings echoed. */
function responseResource(
  request: Record<string, unknown>,
  id: string,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  const text = isObject(request['text']) ? request['text'] : {};
  const reasoning = isObject(request['reasoning']) ? request['reasoning'] : {};
  return {
    id,
    object: 'response',
    created_at: 1764000000,
    completed_at: null,
    status: 'in_progress',
    incomplete_details: null,
    model: typeof request['model'] === 'string' ? request['model'] : 'gpt-5.5',
    previous_response_id: request['previous_response_id'] ?? null,
    instructions: typeof request['instructions'] === 'string' ? request['instructions'] : null,
    output: [],
    error: null,
    tools: Array.isArray(request['tools']) ? request['tools'].map(echoTool) : [],
    tool_choice: request['tool_choice'] ?? 'auto',
    truncation: request['truncation'] ?? 'disabled',
    parallel_tool_calls: request['parallel_tool_calls'] ?? true,
    text: { format: text['format'] ?? { type: 'text' }, verbosity: text['verbosity'] ?? 'medium' },
    top_p: request['top_p'] ?? 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    temperature: request['temperature'] ?? 1,
    reasoning: { effort: reasoning['effort'] ?? null, summary: reasoning['summary'] ?? null },
    user: null,
    usage: null,
    max_output_tokens: request['max_output_tokens'] ?? null,
    max_tool_calls: null,
    store: request['store'] ?? true,
    background: false,
    service_tier: 'default',
    metadata: request['metadata'] ?? {},
    safety_identifier: null,
    prompt_cache_key: request['prompt_cache_key'] ?? null,
    ...fields,
  };
}

/** A function tool as a response lists it (every field present, as OpenAI does); others as sent. */
function echoTool(tool: unknown): unknown {
  if (!isObject(tool) || tool['type'] !== 'function') return tool;
  return {
    type: 'function',
    name: tool['name'],
    description: tool['description'] ?? null,
    parameters: tool['parameters'] ?? null,
    strict: tool['strict'] ?? true,
  };
}

/** The Response object answering the script (the answer to a request without `stream`). */
export function scriptedResponse(
  reply: ScriptedReply,
  request: Record<string, unknown>,
  serial: number,
): Record<string, unknown> {
  const ids = idsFor(serial);
  return responseResource(request, ids.response, {
    status: 'completed',
    completed_at: 1764000001,
    output: outputItems(reply, request, ids),
    usage: responseUsage(reply),
  });
}

class EventWriter {
  readonly events: string[] = [];
  private sequence = 0;
  emit(type: string, data: Record<string, unknown>): void {
    const event = { type, sequence_number: this.sequence++, ...data };
    this.events.push(`event: ${type}\ndata: ${JSON.stringify(event)}\n\n`);
  }
}

/**
 * The same answer as the API streams it: created and in_progress with the response so far, each
 * item added, its parts and deltas (text and function arguments in fragments of the script's
 * `fragmentSize`; a custom call's input as custom_tool_call_input deltas), each item done, then
 * `response.completed` with the whole response. Every event has its `sequence_number`.
 */
export function scriptedResponseEvents(
  reply: ScriptedReply,
  request: Record<string, unknown>,
  serial: number,
): string[] {
  const writer = new EventWriter();
  const snapshot = responseResource(request, idsFor(serial).response, {});
  writer.emit('response.created', { response: snapshot });
  writer.emit('response.in_progress', { response: snapshot });
  const final = scriptedResponse(reply, request, serial);
  for (const [output_index, item] of (final['output'] as Record<string, any>[]).entries()) {
    emitItem(writer, item, output_index, reply.fragmentSize);
  }
  writer.emit('response.completed', { response: final });
  return writer.events;
}

function emitItem(writer: EventWriter, item: Record<string, any>, output_index: number, size?: number): void {
  const item_id = item['id'];
  if (item['type'] === 'message') {
    const text: string = item['content'][0].text;
    writer.emit('response.output_item.added', {
      output_index,
      item: { ...item, status: 'in_progress', content: [] },
    });
    const at = { item_id, output_index, content_index: 0 };
    writer.emit('response.content_part.added', {
      ...at,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    for (const delta of fragmentsOf(text, size)) writer.emit('response.output_text.delta', { ...at, delta });
    writer.emit('response.output_text.done', { ...at, text });
    writer.emit('response.content_part.done', { ...at, part: item['content'][0] });
  } else if (item['type'] === 'reasoning') {
    const text: string = item['summary'][0].text;
    writer.emit('response.output_item.added', { output_index, item: { ...item, summary: [] } });
    const at = { item_id, output_index, summary_index: 0 };
    writer.emit('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
    for (const delta of fragmentsOf(text, size)) {
      writer.emit('response.reasoning_summary_text.delta', { ...at, delta });
    }
    writer.emit('response.reasoning_summary_text.done', { ...at, text });
    writer.emit('response.reasoning_summary_part.done', { ...at, part: item['summary'][0] });
  } else {
    const custom = item['type'] === 'custom_tool_call';
    const field = custom ? 'input' : 'arguments';
    const name = custom ? 'response.custom_tool_call_input' : 'response.function_call_arguments';
    writer.emit('response.output_item.added', {
      output_index,
      item: { ...item, [field]: '', status: 'in_progress' },
    });
    for (const delta of fragmentsOf(item[field], size))
      writer.emit(`${name}.delta`, { item_id, output_index, delta });
    writer.emit(`${name}.done`, { item_id, output_index, [field]: item[field] });
  }
  writer.emit('response.output_item.done', { output_index, item });
}

/** A stream that starts and then fails: created, in_progress, `response.failed` with the error. */
export function failedResponseEvents(
  failure: ScriptedResponseFailure,
  request: Record<string, unknown>,
  serial: number,
): string[] {
  const writer = new EventWriter();
  const snapshot = responseResource(request, idsFor(serial).response, {});
  writer.emit('response.created', { response: snapshot });
  writer.emit('response.in_progress', { response: snapshot });
  writer.emit('response.failed', {
    response: { ...snapshot, status: 'failed', error: { code: failure.code, message: failure.message } },
  });
  return writer.events;
}

/** What the mock writes for one /v1/responses request. */
export interface ResponsesAnswer {
  status: number;
  /** An event stream (else JSON). */
  streamed: boolean;
  body: string;
}

/**
 * The answer to a /v1/responses request: the failure queued for it (a plain request gets it as
 * OpenAI's error body, 429 for `rate_limit_exceeded`, else 400), the reply queued for it, or a
 * short text answer. Throws MockRejection for a request the API refuses.
 */
export function answerResponses(
  request: Record<string, unknown>,
  next: { failure: ScriptedResponseFailure | undefined; reply: ScriptedReply | undefined },
  serial: number,
): ResponsesAnswer {
  checkResponsesRequest(request);
  const streamed = request['stream'] === true;
  if (next.failure !== undefined && !streamed) {
    const { code, message } = next.failure;
    const error = { message, type: 'invalid_request_error', param: null, code };
    return { status: code === 'rate_limit_exceeded' ? 429 : 400, streamed, body: JSON.stringify({ error }) };
  }
  const reply = next.reply ?? { text: 'Hello from the mock.' };
  if (!streamed)
    return { status: 200, streamed, body: JSON.stringify(scriptedResponse(reply, request, serial)) };
  const events =
    next.failure !== undefined
      ? failedResponseEvents(next.failure, request, serial)
      : scriptedResponseEvents(reply, request, serial);
  return { status: 200, streamed, body: events.join('') };
}
