import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  checkGeminiToolFields,
  mockThoughtSignature,
  scriptedGenerateContent,
  scriptedGenerateContentEvents,
} from './mock-gemini-tools.ts';
import { MockRejection, type ScriptedReply } from './scripted-reply.ts';

export type { ScriptedReply, ScriptedToolCall } from './scripted-reply.ts';

const FIXTURES = new URL('../fixtures/gemini/', import.meta.url);

/** A fixture file of test/fixtures/gemini as text. */
export function geminiFixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

/** A JSON fixture of test/fixtures/gemini, parsed. */
export function geminiJsonFixture(name: string): any {
  return JSON.parse(geminiFixture(name));
}

/** The SSE events of a stream fixture, as the server writes them (CRLF-separated, like Google's). */
export function geminiStreamEvents(name = 'stream-generate-content.sse'): string[] {
  return geminiFixture(name)
    .split('\r\n\r\n')
    .filter((event) => event.trim() !== '')
    .map((event) => `${event}\r\n\r\n`);
}

/**
 * The vector the mock returns for a text: deterministic, 8 dimensions, different per text, so a
 * test can check that vectors come back in input order.
 */
export function mockEmbedding(text: string): number[] {
  let hash = 2166136261;
  for (const char of text) hash = Math.imul(hash ^ (char.codePointAt(0) as number), 16777619) >>> 0;
  return Array.from({ length: 8 }, (_, i) => Number((((hash >>> i) % 2000) / 1000 - 1).toFixed(6)));
}

export interface RecordedGeminiRequest {
  method: string;
  /** Path with the query string, exactly as received. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; the raw text when it was not JSON. */
  body: any;
  /** The body as it arrived, for the same-vendor lane's byte-for-byte checks. */
  text: string;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  /** Sent as is when a string, as JSON otherwise. */
  body?: unknown;
}

export interface MockGeminiOptions {
  /** The key the mock accepts; any other gets Google's 400 API_KEY_INVALID, none a 403. */
  apiKey?: string;
  /** Pause between two SSE events of a stream. */
  streamEventDelayMs?: number;
}

const METHOD_PATH =
  /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|batchEmbedContents|countTokens)$/;
const BATCH_LIMIT = 100;

/**
 * A local stand-in for generativelanguage.googleapis.com: serves the recorded fixtures for
 * generateContent, streamGenerateContent?alt=sse and batchEmbedContents, enforces what the real
 * API enforces and the adapter relies on (key header, `alt=sse`, at most 100 embed requests per
 * batch, matching model names), records every request, and answers scripted failures on demand.
 *
 * Strict about function calling, as the real API is (mock-gemini-tools.ts): malformed declarations,
 * a functionCallingConfig naming undeclared functions, a functionResponse turn that does not answer
 * the functionCall turn just before it (count, names, ids), and on gemini-3 models current-turn calls
 * without a thoughtSignature get Google's 400 INVALID_ARGUMENT. On gemini-3 models a scripted answer
 * with calls signs its first call (a fresh signature each time, listed in `issuedSignatures`), and
 * a signature sent back must be one issued here or one of Google's documented stand-ins.
 *
 * Scripting, for tool loops:
 *
 *     const mock = await MockGeminiServer.start();
 *     mock.replyNext({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
 *     mock.replyNext({ text: 'It is sunny.' });
 *     // the next two generateContent / streamGenerateContent requests get these answers (calls
 *     // arrive whole, one per stream chunk, with no id unless `id` is given, as Gemini may send
 *     // them); then the fixtures again.
 */
export class MockGeminiServer {
  readonly requests: RecordedGeminiRequest[] = [];
  /** The thought signatures put on scripted gemini-3 calls, in order. */
  readonly issuedSignatures: string[] = [];
  origin = '';
  streamEventDelayMs: number;
  /**
   * The text between a vector's brackets for an input, when a test wants the numbers spelled its
   * way (exponents, `-0`, more digits than a double keeps); the body is then laid out as Google
   * lays out its JSON (two-space indents, one value a line). Unset, `mockEmbedding` as JSON.
   */
  embeddingNumbers: ((text: string) => string) | undefined = undefined;
  readonly #server: Server;
  readonly #apiKey: string | undefined;
  readonly #script: ScriptedAnswer[] = [];
  readonly #replies: ScriptedReply[] = [];

  private constructor(options: MockGeminiOptions) {
    this.#apiKey = options.apiKey;
    this.streamEventDelayMs = options.streamEventDelayMs ?? 5;
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    });
  }

  static async start(options: MockGeminiOptions = {}): Promise<MockGeminiServer> {
    const mock = new MockGeminiServer(options);
    mock.#server.listen(0, '127.0.0.1');
    await once(mock.#server, 'listening');
    mock.origin = `http://127.0.0.1:${(mock.#server.address() as AddressInfo).port}`;
    return mock;
  }

  /** The next `count` requests (of any kind) get this answer instead of the normal one. */
  failNext(count: number, answer: ScriptedAnswer): void {
    for (let i = 0; i < count; i++) this.#script.push(answer);
  }

  /** The next chat request (plain or streamed) answers with this; queued in order. */
  replyNext(reply: ScriptedReply): void {
    this.#replies.push(reply);
  }

  reset(): void {
    this.requests.length = 0;
    this.issuedSignatures.length = 0;
    this.#script.length = 0;
    this.#replies.length = 0;
    this.embeddingNumbers = undefined;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    this.#server.close();
    await once(this.#server, 'close');
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {}
    const path = req.url ?? '/';
    this.requests.push({ method: req.method ?? '', path, headers: req.headers, body, text });

    const scripted = this.#script.shift();
    if (scripted !== undefined) return send(res, scripted);

    const url = new URL(path, 'http://mock');
    const match = METHOD_PATH.exec(url.pathname);
    if (req.method !== 'POST' || match === null) {
      return send(res, googleError(404, 'NOT_FOUND', `The requested URL ${url.pathname} was not found.`));
    }
    const key = req.headers['x-goog-api-key'] ?? url.searchParams.get('key') ?? undefined;
    if (this.#apiKey !== undefined && key === undefined) {
      return send(res, googleError(403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers."));
    }
    if (this.#apiKey !== undefined && key !== this.#apiKey) {
      return send(res, { status: 400, body: geminiFixture('error-400-api-key-invalid.json') });
    }
    if (typeof body !== 'object' || body === null) {
      return send(res, googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'));
    }
    const model = decodeURIComponent(match[1] as string);
    let reply: ScriptedReply | undefined;
    if (match[2] === 'countTokens')
      return send(res, countTokensAnswer(model, body as Record<string, unknown>));
    if (match[2] !== 'batchEmbedContents') {
      try {
        checkGeminiToolFields(body as Record<string, unknown>, model, new Set(this.issuedSignatures));
      } catch (error) {
        if (!(error instanceof MockRejection)) throw error;
        return send(res, googleError(400, 'INVALID_ARGUMENT', error.message));
      }
      reply = this.#replies.shift();
    }
    let signature: string | undefined;
    if (reply?.toolCalls !== undefined && reply.toolCalls.length > 0 && model.startsWith('gemini-3')) {
      signature = mockThoughtSignature(`${model}#${this.issuedSignatures.length}`);
      this.issuedSignatures.push(signature);
    }
    switch (match[2]) {
      case 'generateContent':
        if (reply !== undefined) {
          return send(res, { status: 200, body: scriptedGenerateContent(reply, signature) });
        }
        return send(res, { status: 200, body: geminiFixture('generate-content.json') });
      case 'streamGenerateContent':
        if (url.searchParams.get('alt') !== 'sse') {
          return send(res, googleError(400, 'INVALID_ARGUMENT', 'This mock serves streams as alt=sse only.'));
        }
        return this.#stream(
          res,
          reply === undefined ? geminiStreamEvents() : scriptedGenerateContentEvents(reply, signature),
        );
      default:
        return send(res, embedAnswer(model, body as { requests?: unknown }, this.embeddingNumbers));
    }
  }

  async #stream(res: ServerResponse, events: string[]): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'content-disposition': 'attachment' });
    for (const [index, event] of events.entries()) {
      if (index > 0) await sleep(this.streamEventDelayMs);
      if (res.destroyed) return;
      res.write(event);
    }
    res.end();
  }
}

function embedAnswer(
  model: string,
  body: { requests?: unknown },
  spelled: ((text: string) => string) | undefined,
): ScriptedAnswer {
  const requests = body.requests;
  if (!Array.isArray(requests) || requests.length === 0) {
    return googleError(400, 'INVALID_ARGUMENT', '* BatchEmbedContentsRequest.requests: must not be empty\n');
  }
  if (requests.length > BATCH_LIMIT) {
    return googleError(
      400,
      'INVALID_ARGUMENT',
      '* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch\n',
    );
  }
  const embeddings: { values: number[] }[] = [];
  const texts: string[] = [];
  for (const [index, request] of requests.entries()) {
    if (request?.model !== `models/${model}`) {
      return googleError(
        400,
        'INVALID_ARGUMENT',
        `* BatchEmbedContentsRequest.model: Model name mismatch at requests[${index}].\n`,
      );
    }
    const text = request?.content?.parts?.[0]?.text;
    if (typeof text !== 'string') {
      return googleError(400, 'INVALID_ARGUMENT', `* requests[${index}].content: must have a text part\n`);
    }
    embeddings.push({ values: mockEmbedding(text) });
    texts.push(text);
  }
  if (spelled === undefined) return { status: 200, body: { embeddings } };
  const items = texts.map((text) => `    {\n      "values": [\n        ${spelled(text)}\n      ]\n    }`);
  return { status: 200, body: `{\n  "embeddings": [\n${items.join(',\n')}\n  ]\n}\n` };
}

/**
 * countTokens as Google answers it: `{totalTokens, promptTokensDetails}` for `contents` or a whole
 * `generateContentRequest` (whose `model` must be the path's). The mock's count is one token per
 * four characters of text, so a test tells it from the gateway's tokenizer.
 */
function countTokensAnswer(model: string, body: Record<string, unknown>): ScriptedAnswer {
  const inner = body['generateContentRequest'] as Record<string, unknown> | undefined;
  if (inner !== undefined && inner['model'] !== `models/${model}`)
    return googleError(
      400,
      'INVALID_ARGUMENT',
      '* CountTokensRequest.generateContentRequest.model: Model name mismatch.\n',
    );
  const contents = (inner ?? body)['contents'];
  if (!Array.isArray(contents) || contents.length === 0)
    return googleError(400, 'INVALID_ARGUMENT', '* CountTokensRequest.contents: contents is not specified\n');
  let characters = 0;
  for (const content of contents)
    for (const part of content?.parts ?? [])
      if (typeof part?.text === 'string') characters += part.text.length;
  const totalTokens = Math.ceil(characters / 4);
  return {
    status: 200,
    body: { totalTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: totalTokens }] },
  };
}

function googleError(code: number, status: string, message: string): ScriptedAnswer {
  return { status: code, body: { error: { code, message, status } } };
}

function send(res: ServerResponse, answer: ScriptedAnswer): void {
  const text =
    answer.body === undefined
      ? ''
      : typeof answer.body === 'string'
        ? answer.body
        : JSON.stringify(answer.body);
  res
    .writeHead(answer.status, { 'content-type': 'application/json; charset=UTF-8', ...answer.headers })
    .end(text);
}
