import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { AUTH, shareGateway } from '../helpers/gateway-harness.ts';
import {
  type MockOpenAIServer,
  openAIErrorFixture,
  openAIFixtureJson,
  startMockOpenAI,
} from '../helpers/mock-openai-server.ts';
import { parseSse } from '../helpers/parse-sse.ts';
import { significantDigits } from '../helpers/significant-digits.ts';

const messages = [{ role: 'user', content: 'through a real adapter' }];

describe('the gateway with real adapters bound to mock upstreams', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'mock-key', streamChunks: 20, chunkDelayMs: 5 });
  });
  const gw = shareGateway(() => ({
    env: {
      PROVIDER_A_KIND: 'openai',
      PROVIDER_A_BASE_URL: mock.baseUrl,
      PROVIDER_A_API_KEY: 'mock-key',
      PROVIDER_B_KIND: 'anthropic',
      PROVIDER_B_API_KEY: 'unused',
      PROVIDER_B_BASE_URL: 'http://127.0.0.1:9',
    },
  }));
  // Declared after the gateway's own after hook, so the upstream outlives the gateway that calls it.
  after(() => mock.close());

  it('answers chat with the upstream-reported model and usage, priced from the price table', async () => {
    const res = await gw.chat({ messages, provider: 'provider-a' });
    assert.equal(res.status, 200, res.text);
    const body = res.body;
    assert.equal(body.model, 'gpt-4o-mini-2024-07-18');
    assert.equal(body.usage.estimated, false);
    assert.ok(body.usage.tokensIn > 0);
    // gpt-4o-mini in @pydantic/genai-prices: $0.15 in, $0.60 out per million; cached input at $0.075.
    assert.ok(body.usage.estimatedCost > 0);
    const sent = mock.requests.at(-1);
    assert.equal(sent?.path, '/v1/chat/completions');
    assert.equal(sent?.headers.authorization, 'Bearer mock-key');
    const sentBody: any = sent?.body;
    assert.equal(sentBody.model, 'gpt-4o-mini');
  });

  it('streams upstream chunks through as deltas and ends with the upstream usage', async () => {
    const { events } = await gw.stream({ messages });
    assert.equal(events[0]?.event, 'start');
    assert.ok(events.filter((e) => e.event === 'delta').length >= 5);
    const done = events.at(-1)?.data as any;
    assert.equal(events.at(-1)?.event, 'done');
    assert.equal(done.usage.estimated, false);
    const streamed: any = mock.requests.at(-1)?.body;
    assert.equal(streamed.stream_options.include_usage, true);
  });

  it('refuses embeddings on the Anthropic slot with 400 unsupported_capability, and routes them elsewhere by default', async () => {
    const explicit = await gw.embed({ input: 'x', provider: 'provider-b' });
    assert.equal(explicit.status, 400);
    assert.equal(explicit.body.error.code, 'unsupported_capability');
    const routed = await gw.embed({ input: ['a', 'b'] });
    assert.equal(routed.status, 200);
    assert.equal(routed.body.provider, 'provider-a');
    assert.equal(routed.body.embeddings.length, 2);
  });

  it('answers base64 float32 embeddings with the upstream float32 values exactly, in at most nine significant digits', async () => {
    const res = await gw.embed({ input: ['a', 'b'], provider: 'provider-a' });
    assert.equal(res.status, 200, res.text);
    const sent: any = mock.requests.at(-1)?.body;
    assert.equal(sent?.encoding_format, 'base64');
    const recorded = openAIFixtureJson('embeddings-float.json') as { data: { embedding: number[] }[] };
    const vectors = res.body.embeddings as number[][];
    assert.equal(vectors.length, 2);
    vectors.forEach((vector, i) => {
      const upstream = recorded.data[i]?.embedding ?? [];
      assert.deepEqual(
        vector.map((value) => Math.fround(value)),
        upstream,
      );
    });
    // The numbers as written: at most nine significant digits each.
    const text = /"embeddings":\[(.*?)\]\]/.exec(res.text)?.[1] ?? '';
    for (const number of text.replace(/[[\]]/g, '').split(','))
      assert.ok(significantDigits(number) <= 9, number);
  });

  it('maps an upstream key rejection to 502 upstream_error without the upstream text, and does not retry it', async () => {
    const before = mock.requests.length;
    mock.failNext(1, openAIErrorFixture('error-401-invalid-api-key.json'));
    const res = await gw.chat({ messages });
    assert.equal(res.status, 502);
    const { error } = res.body;
    assert.equal(error.code, 'upstream_error');
    assert.match(error.message, /provider-a rejected the request \(HTTP 401\)/);
    assert.doesNotMatch(res.text, /Incorrect API key|mock-key|sk-/);
    assert.equal(mock.requests.length - before, 1);
  });

  it('a client that disconnects mid-stream aborts the upstream request', async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    const address = gw.gateway.server.address() as { port: number };
    const agent = new Agent();
    const res = await request(`http://127.0.0.1:${address.port}/v1/chat`, {
      method: 'POST',
      dispatcher: agent,
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ messages, stream: true, provider: 'provider-a' }),
    });
    for await (const _chunk of res.body) break; // read the first bytes, then hang up
    res.body.destroy();
    await agent.destroy();
    const upstream = mock.requests.at(-1);
    const ending = await Promise.race([
      upstream?.ended,
      new Promise((resolve) => setTimeout(() => resolve('still open'), 2_000)),
    ]);
    assert.equal(ending, 'closed');
  });
});

describe('a stream whose events arrive in one upstream read, over a real socket', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    // chunkDelayMs 0: the mock writes its whole stream at once, so the gateway gets a burst of
    // events in one turn of the event loop and writes them, headers to terminator, in one write.
    mock = await startMockOpenAI({ streamChunks: 10, chunkDelayMs: 0 });
  });
  const gw = shareGateway(() => ({ env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl } }));
  before(() => gw.gateway.listen({ port: 0, host: '127.0.0.1' }));
  after(() => mock.close());

  it('reaches the client whole: every delta, then done', async () => {
    const address = gw.gateway.server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${address.port}/v1/chat`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ messages, stream: true, provider: 'provider-a' }),
      signal: AbortSignal.timeout(5_000),
    });
    const events = parseSse(await res.text());
    assert.equal(events[0]?.event, 'start');
    assert.equal(events.filter((e) => e.event === 'delta').length, 10);
    assert.equal(events.at(-1)?.event, 'done');
  });
});
