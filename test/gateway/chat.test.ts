import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shareGateway } from '../helpers/gateway-harness.ts';

const messages = [{ role: 'user', content: 'Tell me about the gateway.' }];

function assertUsage(usage: Record<string, unknown>): void {
  assert.ok(Number.isInteger(usage.tokensIn) && (usage.tokensIn as number) > 0);
  assert.ok(Number.isInteger(usage.tokensOut) && (usage.tokensOut as number) >= 0);
  assert.equal(typeof usage.estimatedCost, 'number');
  assert.ok((usage.estimatedCost as number) >= 0);
  assert.equal(typeof usage.estimated, 'boolean');
}

describe('POST /v1/chat', () => {
  const gw = shareGateway();

  it('answers a ChatResponse with id, provider, model, message, usage and latency', async () => {
    const res = await gw.chat({ messages });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.body;
    assert.match(body.id, /^chat_[0-9a-f]{32}$/);
    assert.equal(body.provider, 'provider-a');
    assert.equal(body.model, 'simulated-chat');
    assert.equal(body.message.role, 'assistant');
    assert.ok(body.message.content.length > 0);
    assertUsage(body.usage);
    assert.equal(body.usage.estimated, false);
    assert.ok(body.latencyMs >= 0);
    // Sample price of simulated-chat: $0.15 in, $0.60 out per million tokens.
    const expected = (body.usage.tokensIn * 0.15 + body.usage.tokensOut * 0.6) / 1e6;
    assert.ok(
      Math.abs(body.usage.estimatedCost - expected) < 1e-9,
      `${body.usage.estimatedCost} vs ${expected}`,
    );
  });

  it('is deterministic and gives every answer a fresh id', async () => {
    const [a, b] = await Promise.all([gw.chat({ messages }), gw.chat({ messages })]);
    assert.equal(a.body.message.content, b.body.message.content);
    assert.notEqual(a.body.id, b.body.id);
  });

  it('honours maxTokens: the answer is cut to that many tokens', async () => {
    const res = await gw.chat({ messages, maxTokens: 3 });
    assert.equal(res.body.usage.tokensOut, 3);
  });

  it('counts the text of a special token (<|endoftext|>) as text, in the prompt and in the answer', async () => {
    const plain = await gw.chat({ messages: [{ role: 'user', content: 'hi  there' }] });
    const special = await gw.chat({
      messages: [{ role: 'user', content: 'hi <|endoftext|> there' }],
      metadata: { simulated: { reply: 'the end <|im_end|>' } },
    });
    assert.equal(special.status, 200, special.text);
    // The tokens of its text (' <', '|', 'end', 'of', 'text', '|', '>', where 'hi  there' has ' '),
    // not the one special token it names.
    assert.equal(special.body.usage.tokensIn, plain.body.usage.tokensIn + 6);
    assert.equal(special.body.message.content, 'the end <|im_end|>');
  });

  it('honours an explicit provider and model; a simulated model is labelled as such', async () => {
    const { body } = await gw.chat({ messages, provider: 'provider-c', model: 'gpt-4o' });
    assert.equal(body.provider, 'provider-c');
    assert.equal(body.model, 'simulated-gpt-4o');
    assert.equal(gw.callsTo('provider-c'), 1);
  });

  it('echoes a safe x-request-id and mints one otherwise', async () => {
    const given = await gw.chat({ messages }, { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(given.headers['x-request-id'], 'trace-123');
    const hostile = await gw.chat({ messages }, { headers: { 'x-request-id': 'bad id\twith spaces' } });
    assert.match(String(hostile.headers['x-request-id']), /^req_[0-9a-f]{32}$/);
  });
});

describe('POST /v1/chat with stream: true', () => {
  const gw = shareGateway();

  it('sends start, one delta per chunk, then done carrying exactly a ChatResponse', async () => {
    const { status, headers, events } = await gw.stream({ messages });
    assert.equal(status, 200);
    assert.match(String(headers['content-type']), /^text\/event-stream/);
    assert.ok(headers['x-request-id']);
    assert.equal(events[0]?.event, 'start');
    assert.equal(events.at(-1)?.event, 'done');
    const deltas = events.slice(1, -1);
    assert.ok(deltas.length > 1, 'several deltas');
    assert.ok(deltas.every((e) => e.event === 'delta'));
    const start = events[0]?.data as { id: string; provider: string; model: string };
    const done = events.at(-1)?.data as Record<string, any>;
    assert.deepEqual(Object.keys(done).sort(), [
      'finishReason',
      'id',
      'latencyMs',
      'message',
      'model',
      'provider',
      'usage',
    ]);
    assert.equal(done.finishReason, 'stop');
    assert.equal(done.id, start.id);
    assert.equal(done.provider, start.provider);
    assert.equal(done.model, start.model);
    const text = deltas.map((e) => (e.data as { content: string }).content).join('');
    assert.equal(done.message.content, text);
    assert.equal(done.message.role, 'assistant');
    assertUsage(done.usage);
    // The same conversation without streaming gives the same text and usage.
    const plain = (await gw.chat({ messages })).body;
    assert.equal(plain.message.content, text);
    assert.equal(plain.usage.tokensOut, done.usage.tokensOut);
  });

  it('ends with an error event (the envelope) when the upstream breaks mid-stream, without switching providers', async () => {
    const { events } = await gw.stream({ messages, metadata: { simulated: { fault: 'stream_cut' } } });
    assert.equal(events[0]?.event, 'start');
    const last = events.at(-1) as { event: string; data: any };
    assert.equal(last.event, 'error');
    assert.equal(last.data.error.code, 'upstream_error');
    assert.match(last.data.error.message, /provider-a/);
    assert.equal(events.filter((e) => e.event === 'done').length, 0);
    assert.equal(gw.calls.filter((c) => c.operation === 'stream' && c.slot !== 'provider-a').length, 0);
  });

  it('falls over before the first byte: a failing first candidate is invisible to the client', async () => {
    const before = gw.calls.length;
    const { events } = await gw.stream({
      messages,
      metadata: { simulated: { fault: 'server_error', slots: ['provider-a'] } },
    });
    assert.equal((events[0]?.data as { provider?: string } | undefined)?.provider, 'provider-b');
    assert.equal(events.at(-1)?.event, 'done');
    const made = gw.calls.slice(before);
    assert.deepEqual(
      made.map((c) => c.slot),
      ['provider-a', 'provider-a', 'provider-a', 'provider-b'],
    );
  });

  it('answers a plain JSON error when no candidate starts a stream', async () => {
    const res = await gw.stream({
      messages,
      provider: 'provider-b',
      metadata: { simulated: { fault: 'bad_request' } },
    });
    assert.equal(res.status, 502);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.body.error.code, 'upstream_error');
  });
});
