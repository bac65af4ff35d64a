import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { GoogleGenAI } from '@google/genai';
import { listenForClients } from '../helpers/anthropic-door-client.ts';
import { APP, SECRET } from '../helpers/gateway-harness.ts';
import { onlyLedgerRow } from '../helpers/ledger-row.ts';
import { geminiJsonFixture, mockEmbedding } from '../helpers/mock-gemini-server.ts';
import { parsePrometheusText, sumOf } from '../helpers/prometheus-text.ts';
import { shareVendorSlots } from '../helpers/vendor-slots.ts';

/**
 * The Gemini door's other routes with @google/genai (CONTRACT 6.3): countTokens, embedContent and
 * batchEmbedContents, the models list and a model, `GET /v1/models` in Google's shape for a Google
 * key; the JSON-array stream; structured output on another vendor; and the door in the ledger,
 * `/v1/usage` and `/metrics`.
 */

const KEY = `${APP}:${SECRET}`;

describe('Gemini door: the other routes, and the door in the records', () => {
  const slots = shareVendorSlots();
  let ai: GoogleGenAI;
  let origin: string;
  before(async () => {
    origin = await listenForClients(slots.gw);
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: origin } });
  });

  it('countTokens on another kind counts with the gateway tokenizer, no upstream called', async () => {
    const before = slots.openai.requests.length;
    const counted = await ai.models.countTokens({
      model: 'provider-a/gpt-4o-mini',
      contents: 'The quick brown fox jumps over the lazy dog.',
    });
    assert.ok((counted.totalTokens ?? 0) > 5 && (counted.totalTokens ?? 0) < 40, String(counted.totalTokens));
    assert.equal(slots.openai.requests.length, before);
  });

  it("countTokens on a gemini slot is Google's count: the body goes there as its bytes, the answer comes back as Google wrote it", async () => {
    slots.gemini.reset();
    const text = 'The quick brown fox jumps over the lazy dog.';
    const counted = await ai.models.countTokens({ model: 'provider-b/gemini-2.5-flash', contents: text });
    // The mock counts a token per four characters, which the gateway's tokenizer does not.
    assert.equal(counted.totalTokens, Math.ceil(text.length / 4));
    const sent = slots.gemini.requests.at(-1);
    assert.equal(sent?.path, '/v1beta/models/gemini-2.5-flash:countTokens');
    assert.equal(sent?.headers['x-goog-api-key'], 'gemini-key');
    const body = '{"contents": [{"role": "user", "parts": [{"text": "h\\u00e9llo"}]}] }';
    const reply = await fetch(`${origin}/v1beta/models/provider-b/gemini-2.5-flash:countTokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
      body,
    });
    assert.equal(reply.status, 200);
    // Google's answer as it wrote it, the details the SDK does not read included.
    assert.deepEqual(await reply.json(), {
      totalTokens: 2,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 2 }],
    });
    assert.equal(slots.gemini.requests.at(-1)?.text, body, 'byte for byte');
  });

  it("countTokens on a gemini slot that refuses: Google's 400 and its message reach the client", async () => {
    slots.gemini.reset();
    const reply = await fetch(`${origin}/v1beta/models/provider-b/gemini-2.5-flash:countTokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
      body: JSON.stringify({
        generateContentRequest: { model: 'models/other', contents: [{ parts: [{ text: 'x' }] }] },
      }),
    });
    assert.equal(reply.status, 400);
    const error = ((await reply.json()) as any).error;
    assert.equal(error.status, 'INVALID_ARGUMENT');
    assert.match(error.message, /Model name mismatch/);
  });

  it('embedContent and batchEmbedContents answer the vectors in order, from the gemini slot', async () => {
    const one = await ai.models.embedContent({ model: 'provider-b/gemini-embedding-001', contents: 'alpha' });
    assert.deepEqual(one.embeddings?.[0]?.values, mockEmbedding('alpha'));
    const batch = await fetch(`${origin}/v1beta/models/provider-b/gemini-embedding-001:batchEmbedContents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
      body: JSON.stringify({
        requests: ['beta', 'gamma'].map((text) => ({
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text }] },
        })),
      }),
    });
    assert.equal(batch.status, 200);
    const body: any = await batch.json();
    assert.deepEqual(
      body.embeddings.map((embedding: { values: number[] }) => embedding.values),
      [mockEmbedding('beta'), mockEmbedding('gamma')],
    );
  });

  it("models.list and models.get in Google's shape; GET /v1/models by the key's form", async () => {
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(model.name ?? '');
    assert.ok(names.includes('models/provider-b/gemini-2.5-flash'), names.join(' '));
    const one = await ai.models.get({ model: 'provider-b/gemini-2.5-flash' });
    assert.ok(one.supportedActions?.includes('generateContent'));
    const google = await fetch(`${origin}/v1/models`, { headers: { 'x-goog-api-key': KEY } });
    assert.ok(Array.isArray(((await google.json()) as any).models));
    const openai = await fetch(`${origin}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    assert.equal(((await openai.json()) as any).object, 'list');
    const missing = await fetch(`${origin}/v1beta/models/nothing-here`, {
      headers: { 'x-goog-api-key': KEY },
    });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as any).error.status, 'NOT_FOUND');
  });

  it('a stream without alt=sse is one JSON array, written as produced', async () => {
    const reply = await fetch(`${origin}/v1beta/models/provider-a/gpt-4o-mini:streamGenerateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
    });
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers.get('content-type')), /^application\/json/);
    const chunks = JSON.parse(await reply.text());
    assert.ok(Array.isArray(chunks) && chunks.length > 1);
    const last = chunks.at(-1);
    assert.equal(last.candidates[0].finishReason, 'STOP');
    assert.ok(last.usageMetadata.costUsd > 0);
  });

  it('a JSON responseMimeType with a schema is structured output on another vendor', async () => {
    slots.anthropic.replyNext({ text: '{"city":"Paris"}' });
    const response = await ai.models.generateContent({
      model: 'provider-c/claude-sonnet-4-5',
      contents: 'Capital of France, as JSON',
      config: {
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    });
    assert.deepEqual(JSON.parse(response.text ?? ''), { city: 'Paris' });
  });

  it("is recorded as front door 'gemini' in the ledger, /v1/usage and /metrics", async () => {
    const reply = await fetch(`${origin}/v1beta/models/provider-b/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
    });
    assert.equal(reply.status, 200);
    const row = await onlyLedgerRow(slots.gw, String(reply.headers.get('x-request-id')));
    assert.equal(row.frontDoor, 'gemini');
    assert.equal(row.provider, 'provider-b');
    assert.equal(row.operation, 'chat');
    assert.equal(row.costUsd, Number(reply.headers.get('x-gateway-cost-usd')));
    // usageMetadata as Google wrote it: cached tokens are cache reads, thoughts are output.
    const reported = geminiJsonFixture('generate-content.json').usageMetadata;
    assert.equal(row.tokensIn, reported.promptTokenCount);
    assert.equal(row.cacheReadTokens, reported.cachedContentTokenCount);
    assert.equal(row.tokensOut, reported.candidatesTokenCount + reported.thoughtsTokenCount);
    const usage = await slots.gw.get('/v1/usage?groupBy=frontDoor');
    assert.ok(
      usage.body.rows.some(
        (r: { frontDoor: string; requests: number }) => r.frontDoor === 'gemini' && r.requests > 0,
      ),
    );
    const metrics = await slots.gw.get('/metrics', { auth: false });
    assert.equal(metrics.status, 200);
    assert.ok(
      sumOf(parsePrometheusText(metrics.text), 'gateway_requests_total', { front_door: 'gemini' }) > 0,
    );
  });
});

describe('Gemini door: the response cache', () => {
  const slots = shareVendorSlots();

  it("a gemini-slot request with the cache on: the second is served from the cache, Google's answer as it wrote it, cost 0", async () => {
    slots.gemini.reset();
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Cache me' }] }] });
    const headers = { 'content-type': 'application/json', 'x-goog-api-key': KEY, 'x-gateway-cache': 'use' };
    const url = '/v1beta/models/provider-b/gemini-2.5-flash:generateContent';
    const first = await slots.gw.gateway.inject({ method: 'POST', url, headers, payload: body });
    const second = await slots.gw.gateway.inject({ method: 'POST', url, headers, payload: body });
    assert.deepEqual([first.statusCode, second.statusCode], [200, 200]);
    assert.deepEqual([first.headers['x-gateway-cache'], second.headers['x-gateway-cache']], ['miss', 'hit']);
    assert.equal(slots.gemini.requests.length, 1, 'the hit called no upstream');
    assert.equal(slots.gemini.requests[0]?.text, body, 'the miss went by the lane, the bytes untouched');
    assert.equal(second.body, first.body, "Google's answer as it wrote it");
    assert.ok(Number(first.headers['x-gateway-cost-usd']) > 0);
    assert.equal(second.headers['x-gateway-cost-usd'], '0');
    assert.equal(second.headers['x-gateway-cache-saved-usd'], first.headers['x-gateway-cost-usd']);
    // Streamed, the same request is the kept answer replayed as one chunk, its cost 0.
    const streamed = await slots.gw.gateway.inject({
      method: 'POST',
      url: '/v1beta/models/provider-b/gemini-2.5-flash:streamGenerateContent?alt=sse',
      headers,
      payload: body,
    });
    assert.equal(streamed.headers['x-gateway-cache'], 'hit');
    const frames = streamed.body.split('\r\n\r\n').filter((frame) => frame.startsWith('data: '));
    assert.equal(frames.length, 1);
    const replayed = JSON.parse((frames[0] as string).slice('data: '.length));
    assert.equal(replayed.usageMetadata.costUsd, 0);
    assert.deepEqual(replayed.candidates, first.json().candidates);
    assert.equal(slots.gemini.requests.length, 1);
  });

  it('a gemini-slot stream with the cache on is kept whole: the same request then hits, whole or streamed', async () => {
    slots.gemini.reset();
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Cache my stream' }] }] });
    const headers = { 'content-type': 'application/json', 'x-goog-api-key': KEY, 'x-gateway-cache': 'use' };
    const streamUrl = '/v1beta/models/provider-b/gemini-2.5-flash:streamGenerateContent?alt=sse';
    const first = await slots.gw.gateway.inject({ method: 'POST', url: streamUrl, headers, payload: body });
    assert.equal(first.headers['x-gateway-cache'], 'miss');
    const chunks = first.body
      .split('\r\n\r\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice('data: '.length)));
    assert.ok(chunks.length > 1);
    const whole = await slots.gw.gateway.inject({
      method: 'POST',
      url: '/v1beta/models/provider-b/gemini-2.5-flash:generateContent',
      headers,
      payload: body,
    });
    assert.equal(whole.headers['x-gateway-cache'], 'hit');
    assert.equal(slots.gemini.requests.length, 1);
    const answer = whole.json();
    assert.equal(
      answer.candidates[0].content.parts.map((part: any) => part.text).join(''),
      chunks.map((chunk) => chunk.candidates[0].content.parts[0].text).join(''),
    );
    assert.equal(answer.candidates[0].finishReason, 'STOP');
    assert.deepEqual(
      answer.usageMetadata,
      (({ costUsd: _, ...usage }) => usage)(chunks.at(-1).usageMetadata),
    );
  });

  it('a translated request with the cache on is a hit the second time, cost 0', async () => {
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Cache me too' }] }] });
    const headers = { 'content-type': 'application/json', 'x-goog-api-key': KEY, 'x-gateway-cache': 'use' };
    const url = '/v1beta/models/provider-a/gpt-4o-mini:generateContent';
    const before = slots.openai.requests.length;
    const first = await slots.gw.gateway.inject({ method: 'POST', url, headers, payload: body });
    const second = await slots.gw.gateway.inject({ method: 'POST', url, headers, payload: body });
    assert.deepEqual([first.headers['x-gateway-cache'], second.headers['x-gateway-cache']], ['miss', 'hit']);
    assert.equal(
      second.json().candidates[0].content.parts[0].text,
      first.json().candidates[0].content.parts[0].text,
    );
    assert.equal(second.headers['x-gateway-cost-usd'], '0');
    assert.equal(slots.openai.requests.length, before + 1);
  });
});
