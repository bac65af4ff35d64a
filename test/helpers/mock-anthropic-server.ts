import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser } from 'eventsource-parser';
import { checkAnthropicToolFields, scriptedEventStream, scriptedMessage } from './mock-anthropic-tools.ts';
import { MockRejection, type ScriptedReply } from './scripted-reply.ts';

export type { ScriptedReply, ScriptedToolCall } from './scripted-reply.ts';

/**
 * A local stand-in for the Anthropic Messages API (POST /v1/messages) that serves the recorded
 * fixtures of test/fixtures/anthropic/: a Message, or for `stream: true` its event stream, the
 * forced-tool variants when the request carries `tool_choice`. It records every request, checks
 * the headers the real API insists on, and can be told to answer the next calls otherwise.
 * The official SDK parses its answers (anthropic-sdk-fidelity.test.ts), which keeps it honest.
 *
 * Strict about tools, as the real API is (mock-anthropic-tools.ts): malformed `tools`, a
 * `tool_choice` without tools or naming none, a `tool_result` whose `tool_use_id` has no
 * `tool_use` in the assistant turn just before, tool_use blocks left unanswered, or results placed
 * after text in their turn get Anthropic's 400 `invalid_request_error`.
 *
 * Scripting, for tool loops:
 *
 *     const mock = await startMockAnthropic();
 *     mock.replyNext({ text: 'Checking.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
 *     mock.replyNext({ text: 'It is sunny.' });
 *     // the next two requests get these answers, as a Message or as its event stream (tool input
 *     // streamed as input_json_delta fragments of `fragmentSize` characters); then the fixtures
 *     // again. Ids default to toolu_mock0…, or give `id`.
 *     mock.replyNext({ thinking: [{ text: 'Hmm.', signature: 'sig' }], text: 'Done.', usage: { cacheReadTokens: 900 } });
 *     // thinking blocks with their signatures come first (streamed as thinking_delta, then one
 *     // signature_delta); usage in Anthropic's fields, cache_creation split 5m/1h.
 *
 * Each recorded request keeps its raw bytes (`raw`), for checks that a proxy changed nothing.
 */

const FIXTURES = new URL('../fixtures/anthropic/', import.meta.url);

export function fixtureText(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

export function fixtureJson<T = any>(name: string): T {
  return JSON.parse(fixtureText(name)) as T;
}

/** A recorded error answer: error-*.json holds `{status, headers, body}`. */
export interface CannedResponse {
  status: number;
  headers?: Record<string, string>;
  /** Sent as is when a string, else as JSON. */
  body: unknown;
}

export function errorFixture(name: string): CannedResponse {
  return fixtureJson<CannedResponse>(name);
}

/** Splits SSE text into `{event, data}` messages the way the adapter's parser does. */
export function sseMessages(text: string): { event?: string | undefined; data: string }[] {
  const messages: { event?: string | undefined; data: string }[] = [];
  const parser = createParser({
    onEvent: (event) => messages.push({ event: event.event, data: event.data }),
  });
  parser.feed(text);
  return messages;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: any;
  /** The body's bytes as they arrived, for checks that a proxy changed nothing. */
  raw: Buffer;
}

export interface MockAnthropicServer {
  /** Origin to use as the base URL, as for https://api.anthropic.com. */
  origin: string;
  requests: RecordedRequest[];
  /** The next `count` calls get this answer instead of a fixture (any status, 200 included). */
  failNext(count: number, response: CannedResponse): void;
  /** The next request (plain or streamed) answers with this; queued in order. */
  replyNext(reply: ScriptedReply): void;
  /** The next stream sends this many events, then stays open until the client goes away. */
  stallNextStream(afterEvents: number): void;
  /** Streams the client closed before they were complete. */
  readonly abandonedStreams: number;
  /** Resolves when the next abandoned stream is noticed. */
  nextAbandon(): Promise<void>;
  close(): Promise<void>;
}

export async function startMockAnthropic(
  options: { eventDelayMs?: number } = {},
): Promise<MockAnthropicServer> {
  const eventDelayMs = options.eventDelayMs ?? 1;
  const requests: RecordedRequest[] = [];
  const overrides: CannedResponse[] = [];
  const replies: ScriptedReply[] = [];
  let stallAfter: number | undefined;
  let abandoned = 0;
  let abandonWaiters: (() => void)[] = [];

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    let body: any;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      body = undefined;
    }
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, raw });

    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') {
      return sendError(res, 404, 'not_found_error', 'Not found');
    }
    // The adapter sends `x-api-key`; the official SDK (1.x) sends the key as a bearer token.
    if (typeof req.headers['x-api-key'] !== 'string' && !req.headers.authorization?.startsWith('Bearer ')) {
      return sendError(res, 401, 'authentication_error', 'x-api-key header is required');
    }
    if (typeof req.headers['anthropic-version'] !== 'string') {
      return sendError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
    }
    const override = overrides.shift();
    if (override !== undefined) return sendCanned(res, override);
    if (typeof body !== 'object' || body === null || typeof body.max_tokens !== 'number') {
      return sendError(res, 400, 'invalid_request_error', 'max_tokens: Field required');
    }
    try {
      const betas = String(req.headers['anthropic-beta'] ?? '');
      checkAnthropicToolFields(body, { systemMessages: betas.includes('per-turn-control-') });
    } catch (error) {
      if (!(error instanceof MockRejection)) throw error;
      return sendError(res, 400, 'invalid_request_error', error.message);
    }
    const reply = replies.shift();
    // The model calls the tool it was told to: fixtures name `city_facts`, the request may not.
    const toolName: string | undefined =
      body.tool_choice?.type === 'tool' ? body.tool_choice.name : undefined;
    const rename = (text: string) =>
      toolName === undefined
        ? text
        : text.replaceAll('"name":"city_facts"', JSON.stringify({ name: toolName }).slice(1, -1));

    if (body.stream === true) {
      const text =
        reply !== undefined
          ? scriptedEventStream(reply)
          : rename(fixtureText(toolName === undefined ? 'message-stream.txt' : 'tool-stream.txt'));
      const stall = stallAfter;
      stallAfter = undefined;
      res.on('close', () => {
        if (!res.writableFinished) {
          abandoned++;
          for (const wake of abandonWaiters) wake();
          abandonWaiters = [];
        }
      });
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'request-id': `req_mock_${requests.length}`,
      });
      const events = text.split(/\n\n/).filter((event) => event.trim() !== '');
      for (const [index, event] of events.entries()) {
        if (stall !== undefined && index >= stall) return; // left open: the client must abort
        if (res.destroyed) return;
        res.write(`${event}\n\n`);
        await new Promise((resolve) => setTimeout(resolve, eventDelayMs));
      }
      res.end();
      return;
    }
    const message =
      reply !== undefined
        ? JSON.stringify(scriptedMessage(reply))
        : rename(JSON.stringify(fixtureJson(toolName === undefined ? 'message.json' : 'tool-message.json')));
    res
      .writeHead(200, { 'content-type': 'application/json', 'request-id': `req_mock_${requests.length}` })
      .end(message);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    failNext(count, response) {
      for (let i = 0; i < count; i++) overrides.push(response);
    },
    replyNext(reply) {
      replies.push(reply);
    },
    stallNextStream(afterEvents) {
      stallAfter = afterEvents;
    },
    get abandonedStreams() {
      return abandoned;
    },
    nextAbandon() {
      return new Promise((resolve) => abandonWaiters.push(resolve));
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function sendCanned(res: ServerResponse, canned: CannedResponse): void {
  const text = typeof canned.body === 'string' ? canned.body : JSON.stringify(canned.body);
  res.writeHead(canned.status, { 'content-type': 'application/json', ...canned.headers }).end(text);
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  sendCanned(res, {
    status,
    headers: { 'request-id': 'req_mock_error' },
    body: { type: 'error', error: { type, message }, request_id: 'req_mock_error' },
  });
}
