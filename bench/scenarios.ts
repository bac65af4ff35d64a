/**
 * The requests of each workload, as each target is asked: the gateway in its own API, the mock
 * and the forwarder in the OpenAI request the gateway itself sends upstream for it, so (a), (b)
 * and (c) move the same answer. The `messages-relay` workloads speak Anthropic's Messages API to
 * all three: the gateway's Anthropic door on a slot of kind `anthropic` sends the client's bytes
 * upstream as they are (its same-vendor lane), so the mock and the forwarder get that very body.
 */

export type Workload =
  | 'chat'
  | 'stream'
  | 'stream-burst'
  | 'embed'
  | 'embed-json'
  | 'json'
  | 'openai-chat'
  | 'cached-chat'
  | 'messages-relay'
  | 'messages-relay-stream';

export const STREAM_WORKLOADS: readonly Workload[] = ['stream', 'stream-burst', 'messages-relay-stream'];

/**
 * A prompt holding this asks the mock for the whole stream in one write (`stream-burst`): the
 * time to first byte then shows the proxies' own work, where spaced chunks let the machine idle
 * between them and every process hop pays a wake-up (tenths of a millisecond on this VM).
 */
export const BURST_MARKER = '[burst]';
export type Target = 'direct' | 'forwarder' | 'gateway';

export interface HttpRequestSpec {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export const BENCH_APP = 'bench';
export const BENCH_SECRET = 'gws_bench-secret-not-for-production-0123456789';
export const MOCK_API_KEY = 'sk-bench-mock';
/**
 * A Claude model: a family name the gateway routes to its first slot of kind `anthropic` (slot B
 * in the bench's gateway, gateway-env.ts), and that slot's own model, so the body goes upstream
 * byte for byte (only `model` is ever replaced, here by the same name).
 */
export const RELAY_MODEL = 'claude-haiku-4-5';
const ANTHROPIC_VERSION = '2023-06-01';

const PROMPT = [{ role: 'user', content: 'What is the capital of France? Answer in one sentence.' }];
const BURST_PROMPT = [{ role: 'user', content: `What is the capital of France? ${BURST_MARKER}` }];
const PERSON_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
  required: ['name', 'age'],
  additionalProperties: false,
};
/** What Claude Code sends, in small: `max_tokens` is required by the Messages API. */
const MESSAGES = { model: RELAY_MODEL, max_tokens: 1024, messages: PROMPT };
const MESSAGES_PATH = '/v1/messages';
const EMBED_TEXT = 'The quick brown fox jumps over the lazy dog';
/**
 * Asked for this model, the mock answers JSON number arrays whatever `encoding_format` says, as
 * many OpenAI-compatible servers (and OpenAI itself for `float`) do: `embed-json`.
 */
export const JSON_EMBED_MODEL = 'text-embedding-json-numbers';

const GATEWAY_BODIES: Record<Workload, { path: string; body: unknown }> = {
  chat: { path: '/v1/chat', body: { messages: PROMPT } },
  stream: { path: '/v1/chat', body: { messages: PROMPT, stream: true } },
  'stream-burst': { path: '/v1/chat', body: { messages: BURST_PROMPT, stream: true } },
  embed: { path: '/v1/embed', body: { input: EMBED_TEXT } },
  'embed-json': { path: '/v1/embed', body: { input: EMBED_TEXT, model: JSON_EMBED_MODEL } },
  json: { path: '/v1/json', body: { messages: PROMPT, schemaName: 'person', schema: PERSON_SCHEMA } },
  // The OpenAI-compatible door, asked what an OpenAI client asks: the same chat as `chat`.
  'openai-chat': { path: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: PROMPT } },
  // The same chat with `x-gateway-cache: use`: after the first, every answer is a response-cache hit.
  'cached-chat': { path: '/v1/chat', body: { messages: PROMPT } },
  // The Anthropic door, on the anthropic slot: the same-vendor lane (decision 0019).
  'messages-relay': { path: MESSAGES_PATH, body: MESSAGES },
  'messages-relay-stream': { path: MESSAGES_PATH, body: { ...MESSAGES, stream: true } },
};

const UPSTREAM_CHAT = { path: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: PROMPT } };

/**
 * What the gateway's OpenAI adapter sends for each of the bodies above. For `openai-chat` that is
 * the very request the client sent: the forwarder moves the same wire format the door speaks.
 */
const UPSTREAM_BODIES: Record<Workload, { path: string; body: unknown }> = {
  chat: UPSTREAM_CHAT,
  'openai-chat': UPSTREAM_CHAT,
  // The forwarder's answer time is what a hit is compared with.
  'cached-chat': UPSTREAM_CHAT,
  // The relay sends the client's body as it came: the same request.
  'messages-relay': { path: MESSAGES_PATH, body: MESSAGES },
  'messages-relay-stream': { path: MESSAGES_PATH, body: { ...MESSAGES, stream: true } },
  stream: {
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o-mini', messages: PROMPT, stream: true, stream_options: { include_usage: true } },
  },
  'stream-burst': {
    path: '/v1/chat/completions',
    body: {
      model: 'gpt-4o-mini',
      messages: BURST_PROMPT,
      stream: true,
      stream_options: { include_usage: true },
    },
  },
  embed: {
    path: '/v1/embeddings',
    body: { model: 'text-embedding-3-small', input: [EMBED_TEXT], encoding_format: 'base64' },
  },
  'embed-json': {
    path: '/v1/embeddings',
    body: { model: JSON_EMBED_MODEL, input: [EMBED_TEXT], encoding_format: 'base64' },
  },
  json: {
    path: '/v1/chat/completions',
    body: {
      model: 'gpt-4o-mini',
      messages: PROMPT,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'person', schema: PERSON_SCHEMA, strict: false },
      },
    },
  },
};

const isMessages = (workload: Workload) => workload.startsWith('messages-');
const JSON_TYPE = { 'content-type': 'application/json' };

/** Each client's key as it sends it: the gateway's app and secret, or the mock's key. */
function authHeaders(target: Target, workload: Workload): Record<string, string> {
  const gateway = target === 'gateway';
  // An Anthropic client: the key in `x-api-key`, with the version every Anthropic SDK names.
  if (isMessages(workload))
    return {
      'x-api-key': gateway ? `${BENCH_APP}:${BENCH_SECRET}` : MOCK_API_KEY,
      'anthropic-version': ANTHROPIC_VERSION,
    };
  if (!gateway) return { authorization: `Bearer ${MOCK_API_KEY}` };
  // The key as an OpenAI client sends it.
  if (workload === 'openai-chat') return { authorization: `Bearer ${BENCH_APP}:${BENCH_SECRET}` };
  return { 'x-gateway-app': BENCH_APP, 'x-gateway-secret': BENCH_SECRET };
}

export function requestFor(target: Target, workload: Workload): HttpRequestSpec {
  const gateway = target === 'gateway';
  const { path, body } = (gateway ? GATEWAY_BODIES : UPSTREAM_BODIES)[workload];
  const headers: Record<string, string> = { ...JSON_TYPE, ...authHeaders(target, workload) };
  if (STREAM_WORKLOADS.includes(workload)) headers['accept'] = 'text/event-stream';
  if (gateway && workload === 'cached-chat') headers['x-gateway-cache'] = 'use';
  return { path, headers, body: JSON.stringify(body) };
}

/**
 * The text the last part of a complete stream holds: Anthropic's `message_stop` wherever the
 * Messages API is spoken (the relay passes the upstream's events on), else `[DONE]` upstream and
 * the native door's `event: done`.
 */
export function streamEndMarker(target: Target, workload: Workload): string {
  if (isMessages(workload)) return 'message_stop';
  return target === 'gateway' ? 'event: done' : '[DONE]';
}
