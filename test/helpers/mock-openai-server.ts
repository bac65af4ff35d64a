import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { answerResponses, type ScriptedResponseFailure } from './mock-openai-responses.ts';
import { checkOpenAIToolFields, scriptedCompletion, scriptedStream } from './mock-openai-tools.ts';
import { MockRejection, type ScriptedReply } from './scripted-reply.ts';

export type { ScriptedResponseFailure } from './mock-openai-responses.ts';
export type { ScriptedReply, ScriptedToolCall } from './scripted-reply.ts';

/**
 * A local stand-in for the OpenAI API (Chat Completions, streaming, Embeddings) that answers with
 * recorded responses from test/fixtures/openai, and the Responses API (POST /v1/responses, JSON and
 * event stream, mock-openai-responses.ts) that answers scripts only: a scripted reply, or a
 * plain text answer when none is queued. Tests point both the gateway's adapter and the
 * official SDK at it; benchmarks reuse it, so every answer is built once and only written per
 * request.
 *
 * Strict about tools, as the real API is (mock-openai-tools.ts): malformed `tools`, a
 * `tool_choice` without tools or naming none of them, a `role: "tool"` message whose
 * `tool_call_id` answers no `tool_calls` of the assistant message before it, or calls left
 * unanswered, get OpenAI's 400 `invalid_request_error`.
 *
 * Scripting, for tool loops:
 *
 *     const mock = await startMockOpenAI();
 *     mock.replyNext({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
 *     mock.replyNext({ text: 'It is sunny.' });
 *     // the next two chat requests get these answers, whole or streamed (then the fixture again);
 *     // streamed calls come as `delta.tool_calls` fragments of `fragmentSize` characters,
 *     // parallel calls interleaved; ids default to call_mock0…, or give `id`.
 *     mock.requests.at(-1)?.body   // what the adapter sent
 */

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'openai');

export function readOpenAIFixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

export function openAIFixtureJson(name: string): unknown {
  return JSON.parse(readOpenAIFixture(name));
}

export interface MockResponse {
  status: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as it is. */
  body: unknown;
}

/** A recorded error response (`error-*.json`: status, headers, body), ready for `failNext`. */
export function openAIErrorFixture(name: string): MockResponse {
  return openAIFixtureJson(name) as MockResponse;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when there was none or it was not JSON. */
  body: unknown;
  /** The body's bytes as they arrived. */
  raw: Buffer;
  /** When it arrived (Date.now()), for the pauses between a client's retries. */
  receivedAt: number;
  /** `finished` when the whole response was written, `closed` when the client left first. */
  ended: Promise<'finished' | 'closed'>;
}

export interface MockOpenAIOptions {
  /** When set, any other bearer token (or none) gets the recorded 401 invalid_api_key. */
  apiKey?: string | undefined;
  /** Streams carry this many content chunks instead of the recorded stream. */
  streamChunks?: number | undefined;
  /** Pause between streamed events, in ms; 0 writes the whole stream at once. */
  chunkDelayMs?: number;
  /** Keep each request in `requests` (benchmarks turn this off). Default true. */
  record?: boolean;
  /** Served instead of the recorded chat completion. */
  completion?: unknown;
  /** Wait this long (ms) before answering a chat, responses or embeddings request, headers included. */
  answerDelayMs?: number;
}

export interface MockOpenAIServer {
  /** Includes `/v1`, as an OpenAI base URL does. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** The next `count` requests (any path) get this response instead of their answer. */
  failNext(count: number, response: MockResponse): void;
  configure(options: MockOpenAIOptions): void;
  /** The next chat or responses request (plain or streamed) answers with this; queued in order. */
  replyNext(reply: ScriptedReply): void;
  /**
   * The next streamed /v1/responses request starts and then fails with `response.failed` carrying
   * this error (a plain one gets it as a 429 or 400 error body); queued in order, before replies.
   */
  failNextResponse(failure: ScriptedResponseFailure): void;
  /**
   * Chat, responses and embeddings requests wait, unanswered, until the function returned is
   * called (they are recorded as they arrive): for tests of calls in flight.
   */
  hold(): () => void;
  /** Forgets recorded requests, pending failures and scripted replies. */
  reset(): void;
  close(): Promise<void>;
}

const JSON_HEADERS = { 'content-type': 'application/json', 'x-request-id': 'req_mock' };
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'x-request-id': 'req_mock',
};

/**
 * Writes stream events `delayMs` apart and then ends the response; stops when the client has
 * left. Shared with the benchmark's mock upstream.
 */
export function writeEventsPaced(res: ServerResponse, events: readonly Buffer[], delayMs: number): void {
  let next = 0;
  const writeNext = () => {
    if (res.destroyed) return;
    const event = events[next++];
    if (event === undefined) {
      res.end();
      return;
    }
    res.write(event);
    setTimeout(writeNext, delayMs);
  };
  writeNext();
}

function openAIError(message: string): string {
  return JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: null } });
}

/** The recorded stream, split into events, with and without its usage chunk. */
function recordedStream(): { withUsage: Buffer[]; withoutUsage: Buffer[] } {
  const events = readOpenAIFixture('chat-stream.txt')
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length));
  const withUsage = events.map((data) => Buffer.from(`data: ${data}\n\n`));
  // Without `include_usage`, OpenAI sends no usage chunk and no `usage` key on the others.
  const withoutUsage = events.flatMap((data) => {
    if (data === '[DONE]') return [Buffer.from('data: [DONE]\n\n')];
    const chunk = JSON.parse(data) as { choices: unknown[]; usage?: unknown };
    if (chunk.choices.length === 0) return [];
    delete chunk.usage;
    return [Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`)];
  });
  return { withUsage, withoutUsage };
}

/**
 * A stream shaped like the recorded one with `count` content chunks ("w0 w1 …"). Also the
 * benchmark's mock upstream's stream.
 */
export function syntheticStream(count: number, includeUsage: boolean): Buffer[] {
  const head = {
    id: 'chatcmpl-mock',
    object: 'chat.completion.chunk',
    created: 1754380980,
    model: 'gpt-4o-mini-2024-07-18',
    service_tier: 'default',
    system_fingerprint: 'fp_560af6e559',
  };
  const usageField = includeUsage ? { usage: null } : {};
  const event = (choices: unknown[], extra: object) =>
    Buffer.from(`data: ${JSON.stringify({ ...head, choices, ...extra })}\n\n`);
  const choice = (delta: object, finish: string | null) => [
    { index: 0, delta, logprobs: null, finish_reason: finish },
  ];
  const events = [event(choice({ role: 'assistant', content: '', refusal: null }, null), usageField)];
  for (let i = 0; i < count; i++) events.push(event(choice({ content: `w${i} ` }, null), usageField));
  events.push(event(choice({}, 'stop'), usageField));
  if (includeUsage) {
    const usage = { prompt_tokens: 12, completion_tokens: count * 2, total_tokens: 12 + count * 2 };
    events.push(event([], { usage }));
  }
  events.push(Buffer.from('data: [DONE]\n\n'));
  return events;
}

interface EmbeddingTemplates {
  base64: string[];
  float: string[];
  model: string;
}

function embeddingTemplates(): EmbeddingTemplates {
  type List = { model: string; data: { embedding: unknown }[] };
  const base64 = openAIFixtureJson('embeddings-base64.json') as List;
  const float = openAIFixtureJson('embeddings-float.json') as List;
  return {
    base64: base64.data.map((item) => JSON.stringify(item.embedding)),
    float: float.data.map((item) => JSON.stringify(item.embedding)),
    model: base64.model,
  };
}

/** The recorded vectors, cycled to as many inputs as were sent; ~4 characters a token. */
function embeddingsBody(templates: EmbeddingTemplates, request: Record<string, unknown>): string {
  const input = request['input'];
  const inputs = Array.isArray(input) ? input : [input];
  const vectors = request['encoding_format'] === 'base64' ? templates.base64 : templates.float;
  const data = inputs.map(
    (_, index) => `{"object":"embedding","index":${index},"embedding":${vectors[index % vectors.length]}}`,
  );
  const tokens = inputs.reduce<number>(
    (sum, text) => sum + (typeof text === 'string' ? Math.max(1, Math.ceil(text.length / 4)) : 1),
    0,
  );
  const model = typeof request['model'] === 'string' ? request['model'] : templates.model;
  return `{"object":"list","data":[${data.join(',')}],"model":${JSON.stringify(model)},"usage":{"prompt_tokens":${tokens},"total_tokens":${tokens}}}`;
}

function send(res: ServerResponse, response: MockResponse): void {
  const body = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
  res.writeHead(response.status, { 'content-type': 'application/json', ...response.headers }).end(body);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startMockOpenAI(initial: MockOpenAIOptions = {}): Promise<MockOpenAIServer> {
  let options: MockOpenAIOptions = { chunkDelayMs: 0, record: true, ...initial };
  const requests: RecordedRequest[] = [];
  const failures: { remaining: number; response: MockResponse }[] = [];
  const replies: ScriptedReply[] = [];
  const responseFailures: ScriptedResponseFailure[] = [];
  let responsesServed = 0;
  const recorded = recordedStream();
  const synthetic = new Map<string, Buffer[]>();
  // Each stream's events as one buffer, for the common no-delay case.
  const joined = new WeakMap<Buffer[], Buffer>();
  const embeddings = embeddingTemplates();
  const unauthorized = openAIErrorFixture('error-401-invalid-api-key.json');
  let completion = Buffer.from(readOpenAIFixture('chat-completion.json'));
  let gate: Promise<void> | undefined;

  function streamEvents(includeUsage: boolean): Buffer[] {
    const count = options.streamChunks;
    if (count === undefined) return includeUsage ? recorded.withUsage : recorded.withoutUsage;
    const key = `${count}:${includeUsage}`;
    let events = synthetic.get(key);
    if (events === undefined) {
      events = syntheticStream(count, includeUsage);
      synthetic.set(key, events);
    }
    return events;
  }

  function writeStream(res: ServerResponse, events: Buffer[]): void {
    res.writeHead(200, SSE_HEADERS);
    const delay = options.chunkDelayMs ?? 0;
    if (delay <= 0) {
      let whole = joined.get(events);
      if (whole === undefined) {
        whole = Buffer.concat(events);
        joined.set(events, whole);
      }
      res.end(whole);
      return;
    }
    writeEventsPaced(res, events, delay);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const text = raw.toString('utf8');
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (options.record !== false) {
      const ended = new Promise<'finished' | 'closed'>((resolve) => {
        res.once('close', () => resolve(res.writableFinished ? 'finished' : 'closed'));
      });
      requests.push({
        method: req.method ?? 'GET',
        path,
        headers: { ...req.headers },
        body,
        raw,
        receivedAt: Date.now(),
        ended,
      });
    }
    const failure = failures[0];
    if (failure !== undefined) {
      if (--failure.remaining <= 0) failures.shift();
      send(res, failure.response);
      return;
    }
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      send(res, unauthorized);
      return;
    }
    const known = ['/v1/chat/completions', '/v1/embeddings', '/v1/responses'];
    if (req.method !== 'POST' || !known.includes(path)) {
      send(res, { status: 404, body: openAIError(`Invalid URL (${req.method} ${path})`) });
      return;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      send(res, { status: 400, body: openAIError('We could not parse the JSON body of your request.') });
      return;
    }
    const request = body as Record<string, unknown>;
    if (gate !== undefined) await gate;
    const delay = options.answerDelayMs ?? 0;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    if (res.destroyed) return;
    if (path === '/v1/embeddings') {
      res.writeHead(200, JSON_HEADERS).end(embeddingsBody(embeddings, request));
      return;
    }
    try {
      if (path === '/v1/responses') {
        const next = { failure: responseFailures.shift(), reply: undefined as ScriptedReply | undefined };
        if (next.failure === undefined) next.reply = replies.shift();
        const answer = answerResponses(request, next, ++responsesServed);
        const headers = answer.streamed ? SSE_HEADERS : JSON_HEADERS;
        res.writeHead(answer.status, headers).end(answer.body);
        return;
      }
      checkOpenAIToolFields(request);
    } catch (error) {
      if (!(error instanceof MockRejection)) throw error;
      const rejection = {
        error: { message: error.message, type: 'invalid_request_error', param: error.param, code: null },
      };
      send(res, { status: 400, body: rejection });
      return;
    }
    const reply = replies.shift();
    const streamOptions = request['stream_options'] as { include_usage?: unknown } | undefined;
    if (request['stream'] === true) {
      const includeUsage = streamOptions?.include_usage === true;
      writeStream(
        res,
        reply === undefined ? streamEvents(includeUsage) : scriptedStream(reply, includeUsage),
      );
      return;
    }
    if (reply !== undefined) {
      res.writeHead(200, JSON_HEADERS).end(JSON.stringify(scriptedCompletion(reply)));
      return;
    }
    res.writeHead(200, JSON_HEADERS).end(completion);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const apply = (next: MockOpenAIOptions) => {
    options = { ...options, ...next };
    if (next.completion !== undefined) completion = Buffer.from(JSON.stringify(next.completion));
  };
  apply(initial);

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext(count, response) {
      failures.push({ remaining: count, response });
    },
    configure: apply,
    replyNext(reply) {
      replies.push(reply);
    },
    failNextResponse(failure) {
      responseFailures.push(failure);
    },
    hold() {
      let open = () => {};
      gate = new Promise((resolve) => {
        open = () => {
          gate = undefined;
          resolve();
        };
      });
      return open;
    },
    reset() {
      requests.length = 0;
      failures.length = 0;
      replies.length = 0;
      responseFailures.length = 0;
    },
    async close() {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
