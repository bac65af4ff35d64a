import { BENCH_APP, BENCH_SECRET, type HttpRequestSpec, MOCK_API_KEY, RELAY_MODEL } from './scenarios.ts';

/**
 * The requests of the agent-shaped workloads (issue 33): what coding agents send and read today.
 * Each door of the gateway is asked for the same upstream answer, and the forwarder is asked the
 * OpenAI request the gateway's adapter sends upstream for it, so the two move the same stream.
 */

/** A prompt holding this asks the mock for a paced stream. */
export const PACED_MARKER = '[paced]';

/**
 * The paced stream: a model's think time before the first token, then one token every few
 * milliseconds (what an agent's answer looks like on the wire, where the fixed 2 ms chunks of
 * `stream` do not separate time to first token from the rest).
 */
export const PACED_STREAM = { firstTokenMs: 40, gapMs: 5, tokens: 40 };

/** The text every token of the mock's streams carries (`w0 `, `w1 `…), whatever the door writes around it. */
export const TOKEN_PATTERN = /"w\d+ "/;

/**
 * `anthropic` is the Anthropic door on the OpenAI slot (the cross-vendor lane: the door reads the
 * body and writes its own events); `anthropic-relay` the same door on the anthropic slot (the
 * same-vendor lane: the upstream's events passed on, the cost added to `message_delta`).
 */
export type AgentDoor = 'native' | 'openai' | 'anthropic' | 'anthropic-relay' | 'responses';
export const AGENT_DOORS: readonly AgentDoor[] = [
  'native',
  'openai',
  'anthropic',
  'anthropic-relay',
  'responses',
];

/** Which wire format a paced stream moves: the forwarder moves each, as the doors' floor. */
export type PacedWire = 'openai' | 'messages';
/** The Anthropic events come from the mock's Messages API only on the same-vendor lane. */
export const wireOf = (door: AgentDoor): PacedWire => (door === 'anthropic-relay' ? 'messages' : 'openai');

const PACED_PROMPT = `Explain the stack trace in two paragraphs. ${PACED_MARKER}`;

const GATEWAY_AUTH = { 'x-gateway-app': BENCH_APP, 'x-gateway-secret': BENCH_SECRET };
const BEARER = { authorization: `Bearer ${BENCH_APP}:${BENCH_SECRET}` };
const JSON_HEADERS = { 'content-type': 'application/json' };

const ANTHROPIC_HEADERS = { ...JSON_HEADERS, 'anthropic-version': '2023-06-01' };

/** A streamed Messages request for `model`, with the door's key or the upstream's. */
function messagesStream(model: string, key: string): HttpRequestSpec & { endMarker: string } {
  const messages = [{ role: 'user', content: PACED_PROMPT }];
  return {
    path: '/v1/messages',
    headers: { ...ANTHROPIC_HEADERS, 'x-api-key': key },
    body: JSON.stringify({ model, max_tokens: 1024, messages, stream: true }),
    endMarker: 'message_stop',
  };
}

/** A streamed request through a door of the gateway, and the text that ends its stream. */
export function pacedStreamRequest(door: AgentDoor): HttpRequestSpec & { endMarker: string } {
  const messages = [{ role: 'user', content: PACED_PROMPT }];
  switch (door) {
    case 'native':
      return {
        path: '/v1/chat',
        headers: { ...JSON_HEADERS, ...GATEWAY_AUTH, accept: 'text/event-stream' },
        body: JSON.stringify({ messages, stream: true }),
        endMarker: 'event: done',
      };
    case 'openai':
      return {
        path: '/v1/chat/completions',
        headers: { ...JSON_HEADERS, ...BEARER },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages, stream: true }),
        endMarker: '[DONE]',
      };
    case 'anthropic':
      return messagesStream('gpt-4o-mini', `${BENCH_APP}:${BENCH_SECRET}`);
    case 'anthropic-relay':
      return messagesStream(RELAY_MODEL, `${BENCH_APP}:${BENCH_SECRET}`);
    case 'responses':
      return {
        path: '/v1/responses',
        headers: { ...JSON_HEADERS, ...BEARER },
        body: JSON.stringify({ model: 'gpt-4o-mini', input: PACED_PROMPT, stream: true, store: false }),
        endMarker: 'response.completed',
      };
  }
}

/**
 * The same stream asked of the upstream directly (the forwarder passes it on as it is): the
 * OpenAI request the gateway's adapter sends, or the Messages request the relay sends (the
 * client's own).
 */
export function pacedUpstreamRequest(wire: PacedWire): HttpRequestSpec & { endMarker: string } {
  if (wire === 'messages') return messagesStream(RELAY_MODEL, MOCK_API_KEY);
  return {
    path: '/v1/chat/completions',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${MOCK_API_KEY}` },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: PACED_PROMPT }],
      stream: true,
      stream_options: { include_usage: true },
    }),
    endMarker: '[DONE]',
  };
}

/** A small chat on the OpenAI door, on a given slot (`provider-a/gpt-4o-mini`, `provider-c/simulated-chat`). */
export function smallChat(model: string): HttpRequestSpec {
  return {
    path: '/v1/chat/completions',
    headers: { ...JSON_HEADERS, ...BEARER },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 16 }),
  };
}

/** A chat whose prompt is about `bytes` long (the head-of-line case's 1 MiB prompts). */
export function hugeChat(model: string, bytes: number): HttpRequestSpec {
  return {
    path: '/v1/chat/completions',
    headers: { ...JSON_HEADERS, ...BEARER },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: prose(bytes) }], max_tokens: 16 }),
  };
}

/**
 * A Messages request of the same-vendor lane (claude-haiku-4-5, the bench gateway's anthropic
 * slot), with `key` (the app's for the gateway, the mock's for the forwarder); its prompt about
 * `bytes` long, or a short one.
 */
export function relayMessages(key: string, bytes?: number): HttpRequestSpec {
  const content = bytes === undefined ? 'Say hi.' : prose(bytes);
  return {
    path: '/v1/messages',
    headers: { ...ANTHROPIC_HEADERS, 'x-api-key': key },
    body: JSON.stringify({ model: RELAY_MODEL, max_tokens: 16, messages: [{ role: 'user', content }] }),
  };
}

/** Words of varied length, as prose, about `bytes` long: a tokenizer's cost depends on what it reads. */
function prose(bytes: number): string {
  const words = ['the', 'gateway', 'counts', 'every', 'token', 'of', 'a', 'prompt', 'before', 'sending'];
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const word = `${words[i % words.length]}${i % 7 === 0 ? ',' : ''}`;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ');
}

/** What a long agent conversation sends: `turns` requests, each the whole history so far. */
export interface Conversation {
  turns: number;
  /** The last request's history, in characters (about four to a token). */
  lastChars: number;
  /** The body of turn `n` (0-based), built on demand so the run holds one at a time. */
  body(n: number): string;
}

const TOOLS = [
  'read_file',
  'write_file',
  'run_tests',
  'grep',
  'list_dir',
  'git_diff',
  'apply_patch',
  'search',
].map((name) => ({
  type: 'function',
  function: {
    name,
    description: `The ${name.replace('_', ' ')} tool of a coding agent, with a description of realistic length.`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, pattern: { type: 'string' }, limit: { type: 'integer' } },
      required: ['path'],
    },
  },
}));

/**
 * A coding agent's session on the OpenAI door: a system prompt of about 2k tokens and eight tools,
 * then per turn a user line, the assistant's tool call and a tool result, growing to about
 * `finalTokens` tokens at the last turn.
 */
export function agentConversation(turns: number, finalTokens: number): Conversation {
  const system = 'You are a careful coding agent. '.repeat(256); // ~8 k characters, ~2 k tokens
  const perTurnChars = Math.max(0, Math.floor((finalTokens * 4 - system.length) / turns));
  const filler = (n: number, chars: number) =>
    `line ${n}: const value${n} = compute(${n}); // result of the tool\n`
      .repeat(Math.ceil(chars / 56))
      .slice(0, chars);
  const history: unknown[] = [{ role: 'system', content: system }];
  const turnMessages = (n: number) => [
    { role: 'user', content: `Step ${n}: look at src/module-${n}.ts and fix what the tests say.` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${n}`,
          type: 'function',
          function: { name: 'read_file', arguments: JSON.stringify({ path: `src/module-${n}.ts` }) },
        },
      ],
    },
    { role: 'tool', tool_call_id: `call_${n}`, content: filler(n, perTurnChars) },
  ];
  let built = 0;
  return {
    turns,
    get lastChars() {
      return system.length + perTurnChars * turns;
    },
    body(n: number): string {
      // Turns are asked in order; the history grows by one turn each time.
      while (built <= n) {
        history.push(...turnMessages(built));
        built++;
      }
      return JSON.stringify({ model: 'gpt-4o-mini', messages: history, tools: TOOLS });
    },
  };
}

/** A conversation's turn as the gateway's OpenAI door and as the forwarder are asked it. */
export function conversationTurn(body: string, target: 'gateway' | 'upstream'): HttpRequestSpec {
  const auth = target === 'gateway' ? BEARER : { authorization: `Bearer ${MOCK_API_KEY}` };
  return { path: '/v1/chat/completions', headers: { ...JSON_HEADERS, ...auth }, body };
}
