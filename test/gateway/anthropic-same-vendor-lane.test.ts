import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { calcPrice, extractUsage, findProvider } from '@pydantic/genai-prices';
import { roundCost } from '../../src/gateway/domain/pricing.ts';
import { postMessages } from '../helpers/anthropic-door-client.ts';
import { APP, type Harness, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { onlyLedgerRow } from '../helpers/ledger-row.ts';
import { clockAtMinuteStart } from '../helpers/minute-clock.ts';
import {
  type MockAnthropicServer,
  sseMessages,
  startMockAnthropic,
} from '../helpers/mock-anthropic-server.ts';
import { scriptedEventStream } from '../helpers/mock-anthropic-tools.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';

/**
 * The Anthropic door's same-vendor lane (CONTRACT 5.2): on an anthropic slot the recording mock
 * receives the bytes the client sent with only `model` changed, and the client receives the bytes
 * the upstream answered with only the cost added; the gateway still accounts the answer (one
 * ledger row, cache tokens priced as the price data prices them). A fallback to an OpenAI slot
 * takes the cross-vendor lane for that attempt.
 */

const UPSTREAM_KEY = 'sk-ant-upstream-key';
const BETAS = 'interleaved-thinking-2025-05-14,context-management-2025-06-27,some-future-beta-2031-01-01';
const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/**
 * What Claude Code and the SDKs send that a translation would lose, written with odd spacing and
 * number forms (`1.0`, an escaped character) that a parse-and-serialise would change.
 */
function clientBody(model: string, stream: boolean): string {
  return `{"model" : ${JSON.stringify(model)},"max_tokens":2048, "temperature":1.0,
 "stream":${stream},
 "system":[{"type":"text","text":"You are Claude Code.\\u0021"},{"type":"text","text":"Long prefix.","cache_control":{"type":"ephemeral","ttl":"1h"}}],
 "thinking":{"type":"enabled","budget_tokens":1024,"display":"omitted"},
 "cache_control":{"type":"ephemeral"},
 "metadata":{"user_id":"{\\"device_id\\":\\"d1\\",\\"session_id\\":\\"s1\\"}"},
 "context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},
 "output_config":{"effort":"medium"},
 "tools":[{"name":"Read","description":"Reads a file.","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}}},"cache_control":{"type":"ephemeral"},"defer_loading":true},
  {"type":"web_search_20250305","name":"web_search","max_uses":2}],
 "messages":[
  {"role":"user","content":[{"type":"text","text":"Look at this."},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"${TINY_PNG}"}},{"type":"document","source":{"type":"text","media_type":"text/plain","data":"Notes."},"citations":{"enabled":true}}]},
  {"role":"assistant","content":[{"type":"thinking","thinking":"I should read it.","signature":"c2lnbmF0dXJlLW9uZQ=="},{"type":"redacted_thinking","data":"RW5jcnlwdGVk"},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/tmp/a.png"}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"${TINY_PNG}"}}]},{"type":"mystery_block_2031","payload":[1,2.50,3]}]}]}`;
}

/** The client's body as the upstream must see it: only `model` replaced. */
function asUpstreamSees(body: string, from: string, to: string): string {
  return body.replace(`"model" : ${JSON.stringify(from)}`, `"model" : ${JSON.stringify(to)}`);
}

const MODEL = 'claude-sonnet-4-5-20250929';
/** A Claude Code turn's counts: a prefix mostly read back, some of it written for 5 minutes and 1 hour. */
const USAGE = {
  input_tokens: 42,
  cache_creation_input_tokens: 1500,
  cache_read_input_tokens: 24000,
  cache_creation: { ephemeral_5m_input_tokens: 1200, ephemeral_1h_input_tokens: 300 },
  output_tokens: 77,
};

/** The price data's own figure for USAGE (the package reads Anthropic's usage itself). */
function packagePrice(): number {
  const anthropic = findProvider({ providerId: 'anthropic' });
  assert.ok(anthropic !== undefined);
  const extracted = extractUsage(anthropic, { model: MODEL, usage: USAGE });
  const priced = calcPrice(extracted.usage, MODEL, { providerId: 'anthropic' });
  assert.ok(priced !== null);
  return roundCost(priced.total_price);
}

/** An answer as the upstream writes it, with spacing and field order no serialiser of ours would choose. */
const UPSTREAM_ANSWER = `{"id":"msg_upstream_01","type":"message","role":"assistant","model":"${MODEL}",
"content":[{"type":"thinking","thinking":"Red.","signature":"c2lnLWFuc3dlcg=="},{"type":"text","text":"A red square.","citations":null}],
"stop_reason":"end_turn","stop_sequence":null,"usage":${JSON.stringify(USAGE)},"container":null,"context_management":{"applied_edits":[]}}`;

const post = (gw: Harness, body: string, headers: Record<string, string> = {}) =>
  postMessages(gw, body, BETAS, headers);

describe('the same-vendor lane: an anthropic slot', () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: UPSTREAM_KEY },
  }));
  after(() => mock.close());

  it('sends the client’s bytes upstream with only the model changed, and relays the answer’s bytes with the cost', async () => {
    mock.failNext(1, { status: 200, body: UPSTREAM_ANSWER });
    const body = clientBody('provider-a/claude-sonnet-4-5', false);
    const reply = await post(gw, body);
    assert.equal(reply.statusCode, 200, reply.body);
    const received = mock.requests.at(-1);
    assert.ok(received !== undefined);
    assert.equal(
      received.raw.toString('utf8'),
      asUpstreamSees(body, 'provider-a/claude-sonnet-4-5', 'claude-sonnet-4-5'),
    );
    assert.equal(received.headers['anthropic-version'], '2023-06-01');
    assert.equal(received.headers['anthropic-beta'], BETAS);
    assert.equal(received.headers['x-api-key'], UPSTREAM_KEY);
    assert.equal(received.headers.authorization, undefined);
    assert.ok(!received.raw.toString('utf8').includes(SECRET));

    assert.equal(reply.body, UPSTREAM_ANSWER);
    const cost = packagePrice();
    assert.equal(Number(reply.headers['x-gateway-cost-usd']), cost);
    const row = await onlyLedgerRow(gw, String(reply.headers['x-request-id']));
    assert.deepEqual(
      [row.frontDoor, row.operation, row.status, row.provider, row.model],
      ['anthropic', 'chat', 200, 'provider-a', MODEL],
    );
    assert.deepEqual(
      [row.tokensIn, row.tokensOut, row.cacheReadTokens, row.cacheWrite5mTokens, row.cacheWrite1hTokens],
      [42 + 1500 + 24000, 77, 24000, 1200, 300],
    );
    assert.equal(row.costUsd, cost);
  });

  it('sends a megabyte body (read on the JSON thread) byte for byte too', async () => {
    mock.failNext(1, { status: 200, body: UPSTREAM_ANSWER });
    // Escapes and characters of several bytes, which a parse-and-serialise would write otherwise.
    const long = 'Read this: caf\\u00e9 “quoted” \\n 日本 '.repeat(40_000);
    const body = clientBody('provider-a/claude-sonnet-4-5', false).replace('Look at this.', long);
    assert.ok(body.length > 1024 * 1024);
    const reply = await post(gw, body);
    assert.equal(reply.statusCode, 200, reply.body.slice(0, 300));
    assert.equal(
      mock.requests.at(-1)?.raw.toString('utf8'),
      asUpstreamSees(body, 'provider-a/claude-sonnet-4-5', 'claude-sonnet-4-5'),
    );
  });

  it('streams: the same bytes upstream, every event relayed as sent, cost_usd added to message_delta', async () => {
    const script = {
      thinking: [{ text: 'Looking at the pixel.', signature: 'c2lnbmF0dXJlLXR3bw==' }],
      text: 'A red square.',
      usage: {
        inputTokens: 42,
        cacheReadTokens: 24000,
        cacheWrite5mTokens: 1200,
        cacheWrite1hTokens: 300,
        outputTokens: 77,
      },
    };
    // Canned, so that the mock's own checks of tools (it knows no server tools) stay out of it.
    const sent = scriptedEventStream(script);
    mock.failNext(1, { status: 200, headers: { 'content-type': 'text/event-stream' }, body: sent });
    const body = clientBody('claude-sonnet-4-5', true);
    const reply = await post(gw, body);
    assert.equal(reply.statusCode, 200, reply.body);
    assert.match(String(reply.headers['content-type']), /^text\/event-stream/);
    assert.equal(mock.requests.at(-1)?.raw.toString('utf8'), body);
    assert.equal(mock.requests.at(-1)?.headers['anthropic-beta'], BETAS);

    const costs = [...reply.body.matchAll(/,"cost_usd":([0-9.e-]+)/g)].map((match) => Number(match[1]));
    assert.equal(costs.length, 1);
    assert.equal(reply.body.replace(/,"cost_usd":[0-9.e-]+/, ''), sent);
    const delta = sseMessages(reply.body).find((event) => event.event === 'message_delta');
    assert.equal(JSON.parse(delta?.data ?? '{}').usage.cost_usd, costs[0]);

    const row = await onlyLedgerRow(gw, String(reply.headers['x-request-id']));
    assert.deepEqual(
      [row.operation, row.status, row.cacheReadTokens, row.cacheWrite1hTokens],
      ['chat_stream', 200, 24000, 300],
    );
    assert.equal(row.costUsd, costs[0]);
    assert.equal(row.costUsd, packagePrice());
  });

  it('with the response cache: `use` keeps the lane (the upstream’s own answer, kept); `bypass` keeps it and says so', async () => {
    const body = clientBody('claude-sonnet-4-5', false);
    mock.failNext(1, { status: 200, body: UPSTREAM_ANSWER });
    const cached = await post(gw, body, { 'x-gateway-cache': 'use' });
    assert.equal(cached.statusCode, 200, cached.body);
    assert.equal(cached.headers['x-gateway-cache'], 'miss');
    assert.equal(mock.requests.at(-1)?.raw.toString('utf8'), body, 'the client’s bytes, the cache on');
    assert.equal(cached.body, UPSTREAM_ANSWER, 'the upstream’s answer, which the cache keeps');
    mock.failNext(1, { status: 200, body: UPSTREAM_ANSWER });
    const bypassed = await post(gw, body, { 'x-gateway-cache': 'bypass' });
    assert.equal(bypassed.statusCode, 200, bypassed.body);
    assert.equal(bypassed.headers['x-gateway-cache'], 'bypass');
    assert.equal(mock.requests.at(-1)?.raw.toString('utf8'), body);
    assert.equal(bypassed.body, UPSTREAM_ANSWER);
  });

  it('passes an upstream 400 on with its status and message, in Anthropic’s shape', async () => {
    mock.failNext(1, {
      status: 400,
      body: {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'prompt is too long: 210000 tokens > 200000 maximum',
        },
      },
    });
    const reply = await post(gw, clientBody('claude-sonnet-4-5', false));
    assert.equal(reply.statusCode, 400, reply.body);
    const error = JSON.parse(reply.body);
    assert.equal(error.type, 'error');
    assert.equal(error.error.type, 'invalid_request_error');
    assert.match(error.error.message, /prompt is too long: 210000 tokens > 200000 maximum/);
  });

  it('still refuses what it needs: no max_tokens, messages not a list, a block that is not an object', async () => {
    for (const [body, field] of [
      ['{"model":"claude-sonnet-4-5","messages":[]}', 'max_tokens'],
      ['{"model":"claude-sonnet-4-5","max_tokens":5,"messages":{}}', 'messages'],
      [
        '{"model":"claude-sonnet-4-5","max_tokens":5,"messages":[{"role":"user","content":[7]}]}',
        'messages.0.content.0',
      ],
    ] as const) {
      const before = mock.requests.length;
      const reply = await post(gw, body);
      assert.equal(reply.statusCode, 400, reply.body);
      assert.match(JSON.parse(reply.body).error.message, new RegExp(`^${field.replaceAll('.', '\\.')}`));
      assert.equal(mock.requests.length, before);
    }
  });

  it('a POST with no body at all is the door’s 400, with no upstream call (found by the endpoint fuzzer)', async () => {
    const before = mock.requests.length;
    const reply = await gw.gateway.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-gateway-app': APP, 'x-gateway-secret': SECRET },
    });
    assert.equal(reply.statusCode, 400, reply.body);
    assert.equal(reply.json().error.type, 'invalid_request_error');
    assert.equal(mock.requests.length, before);
  });
});

describe('the same-vendor lane falls over to an OpenAI slot through the cross-vendor lane', () => {
  let anthropic: MockAnthropicServer;
  let openai: MockOpenAIServer;
  before(async () => {
    anthropic = await startMockAnthropic({ eventDelayMs: 0 });
    openai = await startMockOpenAI({ apiKey: 'sk-openai' });
  });
  const gw = shareGateway(() => ({
    env: {
      PROVIDER_A_KIND: 'anthropic',
      PROVIDER_A_BASE_URL: anthropic.origin,
      PROVIDER_A_API_KEY: UPSTREAM_KEY,
      PROVIDER_B_KIND: 'openai',
      PROVIDER_B_BASE_URL: openai.baseUrl,
      PROVIDER_B_API_KEY: 'sk-openai',
    },
    file: {
      retry: { maxRetries: 0 },
      routing: {
        tasks: {
          coder: [
            { provider: 'provider-a', model: 'claude-sonnet-4-5' },
            { provider: 'provider-b', model: 'gpt-4o-mini' },
          ],
        },
      },
    },
  }));
  after(async () => {
    await anthropic.close();
    await openai.close();
  });

  const overloaded = {
    status: 529,
    body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
  };
  const plain = (stream: boolean) =>
    JSON.stringify({
      model: 'coder',
      max_tokens: 64,
      stream,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hi.' }] }],
    });

  it('a 529 on the anthropic slot: the OpenAI slot answers, translated, in Anthropic’s shape', async () => {
    anthropic.failNext(1, overloaded);
    openai.replyNext({ text: 'Hi from OpenAI.' });
    const reply = await post(gw, plain(false));
    assert.equal(reply.statusCode, 200, reply.body);
    const message = JSON.parse(reply.body);
    assert.equal(message.type, 'message');
    assert.deepEqual(message.content, [{ type: 'text', text: 'Hi from OpenAI.', citations: null }]);
    assert.equal((openai.requests.at(-1)?.body as { model?: string } | undefined)?.model, 'gpt-4o-mini');
    const row = await onlyLedgerRow(gw, String(reply.headers['x-request-id']));
    assert.deepEqual([row.provider, row.status, row.attempts.length], ['provider-b', 200, 2]);
    assert.equal(row.attempts[0]?.upstreamStatus, 529);
  });

  it('streamed, the same', async () => {
    anthropic.failNext(1, overloaded);
    openai.replyNext({ text: 'Hi again.' });
    const reply = await post(gw, plain(true));
    assert.equal(reply.statusCode, 200, reply.body);
    const text = sseMessages(reply.body)
      .filter((event) => event.event === 'content_block_delta')
      .map((event) => JSON.parse(event.data).delta.text)
      .join('');
    assert.equal(text, 'Hi again.');
  });

  it('a megabyte body (never parsed on the lane) that falls over is read whole for the OpenAI slot', async () => {
    anthropic.failNext(1, overloaded);
    openai.replyNext({ text: 'Read it all.' });
    const long = 'caf\u00e9 “quoted” 日本 '.repeat(80_000);
    const body = JSON.stringify({
      model: 'coder',
      max_tokens: 64,
      messages: [{ role: 'user', content: [{ type: 'text', text: long }] }],
    });
    assert.ok(body.length > 1024 * 1024);
    const reply = await post(gw, body);
    assert.equal(reply.statusCode, 200, reply.body.slice(0, 300));
    assert.equal(JSON.parse(reply.body).content[0].text, 'Read it all.');
    const sent = openai.requests.at(-1)?.body as { messages: { content: unknown }[] };
    assert.equal(JSON.stringify(sent.messages.at(-1)?.content).includes(long.slice(0, 200)), true);
  });

  it('content another vendor cannot take fails that attempt with the door’s 400', async () => {
    anthropic.failNext(1, overloaded);
    const before = openai.requests.length;
    const body = JSON.stringify({
      model: 'coder',
      max_tokens: 64,
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      messages: [{ role: 'user', content: 'Search.' }],
    });
    const reply = await post(gw, body);
    assert.equal(reply.statusCode, 400, reply.body);
    assert.equal(JSON.parse(reply.body).error.type, 'invalid_request_error');
    assert.equal(openai.requests.length, before);
  });
});

describe('the same-vendor lane under the app’s limits (contract 5.8)', () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    clock: clockAtMinuteStart(),
    env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: UPSTREAM_KEY },
    file: { limits: { apps: { [APP]: { requestsPerMinute: 2, tokensPerMinute: 1_000_000 } } } },
  }));
  after(() => mock.close());

  it('says the limits in anthropic-ratelimit-* on a relayed answer and stream, and refuses past them', async () => {
    const body = (stream: boolean) =>
      JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 16,
        stream,
        messages: [{ role: 'user', content: 'hi' }],
      });
    const plain = await post(gw, body(false));
    const streamed = await post(gw, body(true));
    for (const reply of [plain, streamed]) {
      assert.equal(reply.statusCode, 200, reply.body);
      assert.equal(reply.headers['anthropic-ratelimit-requests-limit'], '2');
      assert.equal(reply.headers['anthropic-ratelimit-tokens-limit'], '1000000');
    }
    assert.equal(plain.headers['anthropic-ratelimit-requests-remaining'], '1');
    assert.equal(streamed.headers['anthropic-ratelimit-requests-remaining'], '0');
    const before = mock.requests.length;
    const refused = await post(gw, body(false));
    assert.equal(refused.statusCode, 429, refused.body);
    assert.equal(JSON.parse(refused.body).error.type, 'rate_limit_error');
    assert.equal(mock.requests.length, before);
  });
});
