import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createGateway, type Harness, shareGateway, startGateway } from '../helpers/gateway-harness.ts';
import type { Reply } from '../helpers/inject-reply.ts';
import { parseSse } from '../helpers/parse-sse.ts';

/**
 * The response cache serves structured output (CONTRACT 5.5, decision 0021 amended): `/v1/json`
 * and a door's `response_format` are a second kind of entry, keyed on the whole JSON input (the
 * schema and its name included) apart from chats; a hit is the same validated data at cost 0,
 * a ledger row with the cost the original saved (over every re-ask), whole or streamed; an answer
 * that never validated is not kept.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer', minimum: 0 } },
  required: ['city', 'population'],
  additionalProperties: false,
};
const ask = (content: string, extra: Record<string, unknown> = {}) => ({
  messages: [{ role: 'user', content }],
  schema,
  ...extra,
});
const completion = (content: string, stream: boolean, name = 'city') => ({
  model: 'simulated-chat',
  messages: [{ role: 'user', content }],
  response_format: { type: 'json_schema', json_schema: { name, schema, strict: true } },
  stream,
  ...(stream ? { stream_options: { include_usage: true } } : {}),
});
const cacheOf = (reply: Reply) => reply.headers['x-gateway-cache'];

/** An OpenAI completion's text and usage, whole or streamed (its chunks joined). */
function readCompletion(reply: Reply, stream: boolean): { text: string; usage: Record<string, unknown> } {
  if (!stream) return { text: reply.body.choices[0].message.content, usage: reply.body.usage };
  const chunks = reply.text
    .split('\n\n')
    .filter((block) => block.startsWith('data: ') && block !== 'data: [DONE]')
    .map((block) => JSON.parse(block.slice(6)));
  const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  return { text, usage: chunks.at(-1).usage };
}

describe('response cache: POST /v1/json', () => {
  const gw = shareGateway({ file: { responseCache: { enabled: true } } });

  it('a miss then a hit: one upstream call, the same data at cost 0, a hit row with the cost of every re-ask saved', async () => {
    const body = ask('A city, asked twice.');
    const calls = gw.calls.length;
    // The first answer takes a re-ask: its cost is two calls'. Metadata is not part of the key.
    const miss = await gw.json({
      ...body,
      metadata: { simulated: { fault: 'invalid_json', faultAttempts: 1 } },
    });
    assert.equal(miss.status, 200, miss.text);
    assert.equal(cacheOf(miss), 'miss');
    assert.equal(gw.calls.length, calls + 2, 'one call, one re-ask');
    const hit = await gw.json(body);
    assert.equal(hit.status, 200, hit.text);
    assert.equal(cacheOf(hit), 'hit');
    assert.equal(gw.calls.length, calls + 2, 'no upstream call for the hit');
    assert.deepEqual(hit.body.data, miss.body.data);
    assert.deepEqual(hit.body.raw, miss.body.raw);
    assert.equal(hit.body.provider, miss.body.provider);
    assert.equal(hit.body.model, miss.body.model);
    assert.notEqual(hit.body.id, miss.body.id);
    assert.match(hit.body.id, /^json_/);
    assert.ok(miss.body.usage.estimatedCost > 0);
    assert.equal(hit.body.usage.estimatedCost, 0);
    assert.deepEqual({ ...hit.body.usage, estimatedCost: 0 }, { ...miss.body.usage, estimatedCost: 0 });
    assert.equal(Number(hit.headers['x-gateway-cache-saved-usd']), miss.body.usage.estimatedCost);

    await gw.app.recorder.flush();
    const rows = await gw.app.storage.usage.readRecords({ limit: 1000 });
    const missRow = rows.find((r) => r.id === miss.body.id);
    const hitRow = rows.find((r) => r.id === hit.body.id);
    assert.ok(missRow !== undefined && hitRow !== undefined);
    assert.equal(missRow.cacheHit, false);
    assert.equal(missRow.attempts.length, 2);
    assert.equal(hitRow.operation, 'json');
    assert.equal(hitRow.cacheHit, true);
    assert.equal(hitRow.status, 200);
    assert.equal(hitRow.costUsd, 0);
    assert.equal(hitRow.costSavedUsd, missRow.costUsd);
    assert.ok(Math.abs(missRow.costUsd - miss.body.usage.estimatedCost) < 1e-9);
    assert.deepEqual(hitRow.attempts, []);
    assert.equal(hitRow.tokensIn + hitRow.tokensOut, 0);
    assert.equal(hitRow.provider, missRow.provider);
  });

  it('what changes the answer changes the key: the schema, its name, the temperature; metadata does not', async () => {
    const body = ask('Which fields key a structured answer?');
    const calls = gw.calls.length;
    assert.equal(cacheOf(await gw.json(body)), 'miss');
    assert.equal(cacheOf(await gw.json({ ...body, metadata: { run: 3 } })), 'hit');
    const other = { ...schema, properties: { ...schema.properties, country: { type: 'string' } } };
    assert.equal(cacheOf(await gw.json({ ...body, schema: other })), 'miss');
    assert.equal(cacheOf(await gw.json({ ...body, schemaName: 'town' })), 'miss');
    assert.equal(cacheOf(await gw.json({ ...body, schemaName: 'town' })), 'hit');
    assert.equal(cacheOf(await gw.json({ ...body, temperature: 0.2 })), 'miss');
    assert.equal(gw.calls.length, calls + 4);
  });

  it('a chat and a structured request with the same messages never share an entry', async () => {
    const messages = [{ role: 'user', content: 'The same words, chat and JSON.' }];
    const calls = gw.calls.length;
    assert.equal(cacheOf(await gw.chat({ messages })), 'miss');
    const json = await gw.json({ messages, schema });
    assert.equal(json.status, 200, json.text);
    assert.equal(cacheOf(json), 'miss');
    assert.equal(gw.calls.length, calls + 2);
    assert.equal(cacheOf(await gw.chat({ messages })), 'hit');
    const again = await gw.json({ messages, schema });
    assert.equal(cacheOf(again), 'hit');
    assert.deepEqual(again.body.data, json.body.data);
    assert.equal(gw.calls.length, calls + 2);
  });

  it('an answer that never validated is not kept', async () => {
    const body = ask('Fail the schema every time.');
    const calls = gw.calls.length;
    const failed = await gw.json({ ...body, metadata: { simulated: { fault: 'invalid_json' } } });
    assert.equal(failed.status, 502);
    assert.equal(failed.body.error.code, 'json_validation_failed');
    assert.equal(cacheOf(failed), 'miss');
    assert.equal(gw.calls.length, calls + 3);
    const next = await gw.json(body);
    assert.equal(next.status, 200, next.text);
    assert.equal(cacheOf(next), 'miss', 'nothing was kept from the failure');
    assert.equal(gw.calls.length, calls + 4);
    assert.equal(cacheOf(await gw.json(body)), 'hit');
  });

  it('x-gateway-cache: bypass neither reads nor writes; refresh writes without reading; another value is a 400', async () => {
    const body = ask('Bypass and refresh a structured answer.');
    const calls = gw.calls.length;
    const bypass = await gw.json(body, { headers: { 'x-gateway-cache': 'bypass' } });
    assert.equal(cacheOf(bypass), 'bypass');
    assert.equal(cacheOf(await gw.json(body)), 'miss', 'bypass wrote nothing');
    assert.equal(cacheOf(await gw.json(body, { headers: { 'x-gateway-cache': 'refresh' } })), 'miss');
    assert.equal(gw.calls.length, calls + 3);
    assert.equal(cacheOf(await gw.json(body)), 'hit');
    assert.equal(gw.calls.length, calls + 3);
    const bad = await gw.json(body, { headers: { 'x-gateway-cache': 'always' } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /x-gateway-cache must be one of use, bypass, refresh/);
  });
});

describe('response cache: response_format on the OpenAI and Responses doors', () => {
  const gw = shareGateway({ file: { responseCache: { enabled: true } } });

  for (const stream of [false, true]) {
    it(`json_schema${stream ? ', streamed' : ''}: a miss then a hit with the same JSON at cost 0`, async () => {
      const body = completion(`A city for the OpenAI door ${stream ? 'streamed' : 'whole'}.`, stream);
      const calls = gw.calls.length;
      const miss = await gw.post('/v1/chat/completions', body);
      assert.equal(miss.status, 200, miss.text);
      assert.equal(cacheOf(miss), 'miss');
      const hit = await gw.post('/v1/chat/completions', body);
      assert.equal(hit.status, 200, hit.text);
      assert.equal(cacheOf(hit), 'hit');
      assert.equal(gw.calls.length, calls + 1);
      const first = readCompletion(miss, stream);
      const second = readCompletion(hit, stream);
      assert.equal(typeof JSON.parse(first.text).city, 'string');
      assert.equal(second.text, first.text);
      const { cost_usd: firstCost, ...firstUsage } = first.usage;
      const { cost_usd: secondCost, ...secondUsage } = second.usage;
      assert.deepEqual(secondUsage, firstUsage);
      if (stream) {
        assert.ok(String(hit.headers['content-type']).startsWith('text/event-stream'));
        assert.ok((firstCost as number) > 0);
        assert.equal(secondCost, 0);
        assert.equal(Number(hit.headers['x-gateway-cache-saved-usd']), firstCost);
      } else {
        assert.ok(Number(miss.headers['x-gateway-cost-usd']) > 0);
        assert.equal(hit.headers['x-gateway-cost-usd'], '0');
        assert.equal(hit.headers['x-gateway-cache-saved-usd'], miss.headers['x-gateway-cost-usd']);
      }
    });
  }

  it('a whole answer kept is replayed as a stream; another schema name is a miss', async () => {
    const prompt = 'A city kept whole, read streamed.';
    const calls = gw.calls.length;
    const whole = await gw.post('/v1/chat/completions', completion(prompt, false));
    const streamed = await gw.post('/v1/chat/completions', completion(prompt, true));
    assert.equal(cacheOf(streamed), 'hit');
    assert.equal(readCompletion(streamed, true).text, readCompletion(whole, false).text);
    assert.equal(gw.calls.length, calls + 1);
    assert.equal(cacheOf(await gw.post('/v1/chat/completions', completion(prompt, false, 'town'))), 'miss');
  });

  it('a plain chat with the same messages is not the structured entry', async () => {
    const prompt = 'Plain or structured, the same words.';
    const structured = await gw.post('/v1/chat/completions', completion(prompt, false));
    assert.equal(cacheOf(structured), 'miss');
    const { response_format: _format, ...plain } = completion(prompt, false);
    assert.equal(cacheOf(await gw.post('/v1/chat/completions', plain)), 'miss');
  });

  it('bypass and refresh', async () => {
    const body = completion('A city, bypassed then refreshed.', false);
    const calls = gw.calls.length;
    const headers = (value: string) => ({ headers: { 'x-gateway-cache': value } });
    assert.equal(cacheOf(await gw.post('/v1/chat/completions', body, headers('bypass'))), 'bypass');
    assert.equal(cacheOf(await gw.post('/v1/chat/completions', body, headers('refresh'))), 'miss');
    assert.equal(cacheOf(await gw.post('/v1/chat/completions', body)), 'hit');
    assert.equal(gw.calls.length, calls + 2);
  });

  it("the Responses door's text.format, whole and streamed", async () => {
    const body = {
      model: 'simulated-chat',
      input: 'A city for the Responses door.',
      text: { format: { type: 'json_schema', name: 'city', schema, strict: true } },
    };
    const calls = gw.calls.length;
    const miss = await gw.post('/v1/responses', body);
    assert.equal(miss.status, 200, miss.text);
    assert.equal(cacheOf(miss), 'miss');
    const hit = await gw.post('/v1/responses', body);
    assert.equal(cacheOf(hit), 'hit');
    const textOf = (reply: Reply) =>
      reply.body.output
        .flatMap((item: { content?: { text: string }[] }) => item.content ?? [])
        .map((part: { text: string }) => part.text)
        .join('');
    assert.equal(textOf(hit), textOf(miss));
    assert.equal(hit.headers['x-gateway-cost-usd'], '0');
    const streamed = await gw.post('/v1/responses', { ...body, stream: true });
    assert.equal(cacheOf(streamed), 'hit');
    const text = parseSse(streamed.text)
      .filter((e) => e.event === 'response.output_text.delta')
      .map((e) => (e.data as { delta: string }).delta)
      .join('');
    assert.equal(text, textOf(miss));
    assert.equal(gw.calls.length, calls + 1);
  });
});

describe('response cache: structured output off, on per request, and coalesced', () => {
  const gw = shareGateway();

  it('says nothing where the cache is off; x-gateway-cache: use turns it on', async () => {
    const body = ask('Not cached unless asked.');
    assert.equal(cacheOf(await gw.json(body)), undefined);
    const use = { headers: { 'x-gateway-cache': 'use' } };
    assert.equal(cacheOf(await gw.json(body, use)), 'miss');
    assert.equal(cacheOf(await gw.json(body, use)), 'hit');
    assert.equal(cacheOf(await gw.json(body)), undefined, 'not read without the header');
  });

  it('with coalescing, identical requests in flight make one upstream call', async (t) => {
    const coalescing = await startGateway(t, { file: { responseCache: { enabled: true, coalesce: true } } });
    const body = ask('Together.', { metadata: { simulated: { latencyMs: 300 } } });
    const replies = await Promise.all([coalescing.json(body), coalescing.json(body), coalescing.json(body)]);
    assert.equal(coalescing.calls.length, 1);
    assert.deepEqual(replies.map(cacheOf).sort(), ['hit', 'hit', 'miss']);
    assert.equal(new Set(replies.map((r) => JSON.stringify(r.body.data))).size, 1);
  });
});

describe('response cache in Redis: structured output', () => {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  let direct: Redis;
  let first: Harness;
  let second: Harness;

  before(async () => {
    direct = new Redis(REDIS_URL);
    const options = {
      env: { REDIS_URL, REDIS_KEY_PREFIX: prefix },
      file: { responseCache: { enabled: true, ttlSeconds: 120 } },
    };
    first = await createGateway(options);
    second = await createGateway(options);
  });

  after(async () => {
    await first.close();
    await second.close();
    const keys = await direct.keys(`${prefix}*`);
    if (keys.length > 0) await direct.del(...keys);
    await direct.quit();
  });

  it("one instance's structured answer is the other's hit", async () => {
    const body = ask('Shared between instances, as JSON.');
    const miss = await first.json(body);
    assert.equal(miss.status, 200, miss.text);
    assert.equal(cacheOf(miss), 'miss');
    const until = performance.now() + 3_000;
    while ((await direct.keys(`${prefix}cache:*`)).length === 0) {
      assert.ok(performance.now() < until, 'the entry was written');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const calls = second.calls.length;
    const hit = await second.json(body);
    assert.equal(cacheOf(hit), 'hit');
    assert.deepEqual(hit.body.data, miss.body.data);
    assert.equal(hit.body.usage.estimatedCost, 0);
    assert.equal(second.calls.length, calls);
  });
});
