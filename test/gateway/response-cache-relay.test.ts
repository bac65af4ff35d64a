import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { postMessages } from '../helpers/anthropic-door-client.ts';
import { APP, createGateway, type Harness, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { onlyLedgerRow } from '../helpers/ledger-row.ts';
import {
  type MockAnthropicServer,
  sseMessages,
  startMockAnthropic,
} from '../helpers/mock-anthropic-server.ts';
import { scriptedEventStream } from '../helpers/mock-anthropic-tools.ts';

/**
 * The response cache on the Anthropic door's same-vendor lane (decision 0021, amended): with the
 * cache on, a request on an anthropic slot still goes upstream as the client wrote it (only
 * `model` replaced, its betas forwarded); the upstream's answer is kept when it ended normally and
 * replayed, whole or streamed, with no upstream call, cost 0 and the cost it saved.
 */

const OTHER_SECRET = 'other-secret-0123456789';
const BETAS = 'interleaved-thinking-2025-05-14,context-management-2025-06-27';
const MODEL = 'claude-sonnet-4-5-20250929';
const USAGE = {
  input_tokens: 42,
  cache_creation_input_tokens: 1500,
  cache_read_input_tokens: 24000,
  cache_creation: { ephemeral_5m_input_tokens: 1200, ephemeral_1h_input_tokens: 300 },
  output_tokens: 77,
};

/**
 * A Claude Code turn as it writes it, with what a translation would lose (cache_control on the
 * system and top level, a thinking block with its signature, a redacted one), spaced as no
 * serialiser of ours would write it.
 */
function claudeCodeBody(prompt: string, stream: boolean, user = 'u1'): string {
  return `{"model" : "claude-sonnet-4-5", "max_tokens":2048,"stream":${stream},
 "system":[{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral","ttl":"1h"}}],
 "thinking":{"type":"enabled","budget_tokens":1024}, "cache_control":{"type":"ephemeral"},
 "metadata":{"user_id":${JSON.stringify(user)}},
 "messages":[{"role":"user","content":"Before."},
  {"role":"assistant","content":[{"type":"thinking","thinking":"Hm.","signature":"c2lnLW9uZQ=="},{"type":"redacted_thinking","data":"RW5j"},{"type":"text","text":"Yes."}]},
  {"role":"user","content":[{"type":"text","text":${JSON.stringify(prompt)},"cache_control":{"type":"ephemeral"}}]}]}`;
}

function wholeAnswer(text: string, stopReason = 'end_turn'): string {
  return `{"id":"msg_up_${text.length}","type":"message","role":"assistant","model":"${MODEL}",
"content":[{"type":"thinking","thinking":"Red.","signature":"c2lnLWFuc3dlcg=="},{"type":"text","text":${JSON.stringify(text)},"citations":null},{"type":"tool_use","id":"toolu_9","name":"Read","input":{"file_path":"/a"}}],
"stop_reason":${JSON.stringify(stopReason)},"stop_sequence":null,"usage":${JSON.stringify(USAGE)}}`;
}

const SCRIPT = {
  thinking: [{ text: 'Looking at the pixel.', signature: 'c2lnbmF0dXJlLXR3bw==' }],
  text: 'A red square, streamed.',
  toolCalls: [{ name: 'Read', arguments: { file_path: '/tmp/a.png' } }],
  usage: {
    inputTokens: 42,
    cacheReadTokens: 24000,
    cacheWrite5mTokens: 1200,
    cacheWrite1hTokens: 300,
    outputTokens: 77,
  },
};

const streamed = (body: string) => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, body });

const post = (gw: Harness, body: string, headers: Record<string, string> = {}) =>
  postMessages(gw, body, BETAS, headers);

/** What a client makes of a stream: the message it rebuilds, the event names (runs of one taken as one), cost_usd. */
function readStream(text: string): {
  message: Record<string, any>;
  events: string[];
  costUsd: unknown;
  said: { start: unknown; delta: unknown };
} {
  const events: string[] = [];
  const said: { start: unknown; delta: unknown } = { start: undefined, delta: undefined };
  let message: Record<string, any> = {};
  let costUsd: unknown;
  const inputs = new Map<number, string>();
  for (const { event, data } of sseMessages(text)) {
    if (event !== undefined && events.at(-1) !== event) events.push(event);
    const payload = JSON.parse(data);
    if (event === 'message_start') {
      message = { ...payload.message, content: [] };
      said.start = payload.message.usage;
    }
    if (event === 'content_block_start') message.content[payload.index] = { ...payload.content_block };
    if (event === 'content_block_delta') {
      const block = message.content[payload.index];
      const delta = payload.delta;
      if (delta.type === 'text_delta') block.text += delta.text;
      if (delta.type === 'thinking_delta') block.thinking += delta.thinking;
      if (delta.type === 'signature_delta') block.signature = delta.signature;
      if (delta.type === 'input_json_delta')
        inputs.set(payload.index, (inputs.get(payload.index) ?? '') + delta.partial_json);
    }
    if (event === 'content_block_stop' && inputs.has(payload.index))
      message.content[payload.index].input = JSON.parse(inputs.get(payload.index) || '{}');
    if (event === 'message_delta') {
      const { cost_usd, ...usage } = payload.usage;
      costUsd = cost_usd;
      said.delta = usage;
      Object.assign(message, payload.delta);
      message.usage = { ...message.usage, ...usage };
    }
  }
  return { message, events, costUsd, said };
}

describe('response cache on the same-vendor lane', () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    env: {
      PROVIDER_A_KIND: 'anthropic',
      PROVIDER_A_BASE_URL: mock.origin,
      PROVIDER_A_API_KEY: 'sk-ant-upstream',
      GATEWAY_APPS: `${APP}:${SECRET},other:${OTHER_SECRET}`,
    },
    file: { retry: { maxRetries: 0 }, responseCache: { enabled: true } },
  }));
  after(() => mock.close());

  it('a miss reaches the upstream byte for byte; the same request again is a hit with no upstream call', async () => {
    const body = claudeCodeBody('Describe the picture.', false);
    mock.failNext(1, { status: 200, body: wholeAnswer('A red square.') });
    const before = mock.requests.length;
    const miss = await post(gw, body);
    assert.equal(miss.statusCode, 200, miss.body);
    assert.equal(miss.headers['x-gateway-cache'], 'miss');
    assert.equal(mock.requests.length, before + 1);
    const received = mock.requests.at(-1);
    assert.equal(received?.raw.toString('utf8'), body);
    assert.equal(received?.headers['anthropic-beta'], BETAS);
    assert.equal(
      miss.body,
      wholeAnswer('A red square.'),
      'the upstream’s bytes, as on the lane without the cache',
    );
    const missCost = Number(miss.headers['x-gateway-cost-usd']);
    assert.ok(missCost > 0);

    // Another `metadata.user_id` and another field order of the same JSON: the same request.
    const hit = await post(
      gw,
      body.replace('"u1"', '"u2"').replace('"max_tokens":2048,', '').replace('{', '{"max_tokens":2048,'),
    );
    assert.equal(hit.statusCode, 200, hit.body);
    assert.equal(mock.requests.length, before + 1, 'no upstream call');
    assert.equal(hit.headers['x-gateway-cache'], 'hit');
    assert.equal(hit.body, miss.body, 'the same answer: text, thinking with its signature, tool call, usage');
    assert.equal(hit.headers['x-gateway-cost-usd'], '0');
    assert.equal(Number(hit.headers['x-gateway-cache-saved-usd']), missCost);

    const missRow = await onlyLedgerRow(gw, String(miss.headers['x-request-id']));
    const hitRow = await onlyLedgerRow(gw, String(hit.headers['x-request-id']));
    assert.deepEqual([missRow.cacheHit, missRow.costUsd, missRow.costSavedUsd], [false, missCost, 0]);
    assert.deepEqual(
      [hitRow.cacheHit, hitRow.costUsd, hitRow.costSavedUsd, hitRow.tokensIn, hitRow.tokensOut],
      [true, 0, missCost, 0, 0],
    );
    assert.deepEqual(
      [hitRow.frontDoor, hitRow.provider, hitRow.model, hitRow.status],
      ['anthropic', 'provider-a', MODEL, 200],
    );

    // The whole answer, asked for as a stream: replayed as the events a miss gives.
    const asStream = await post(gw, claudeCodeBody('Describe the picture.', true));
    assert.equal(asStream.headers['x-gateway-cache'], 'hit');
    assert.equal(mock.requests.length, before + 1);
    const replay = readStream(asStream.body);
    assert.deepEqual(replay.message, JSON.parse(miss.body));
    assert.equal(replay.costUsd, 0);
  });

  it('streamed: a miss relayed and kept, a hit replayed with the same events, text and usage, and kept for a whole request', async () => {
    const sent = scriptedEventStream(SCRIPT);
    const body = claudeCodeBody('Stream it.', true);
    mock.failNext(1, streamed(sent));
    const before = mock.requests.length;
    const miss = await post(gw, body);
    assert.equal(miss.statusCode, 200, miss.body);
    assert.equal(miss.headers['x-gateway-cache'], 'miss');
    assert.equal(mock.requests.at(-1)?.raw.toString('utf8'), body);
    assert.equal(miss.body.replace(/,"cost_usd":[0-9.e-]+/, ''), sent, 'relayed as the upstream wrote it');
    const first = readStream(miss.body);
    assert.ok(typeof first.costUsd === 'number' && first.costUsd > 0);

    const hit = await post(gw, body);
    assert.equal(hit.statusCode, 200, hit.body);
    assert.equal(mock.requests.length, before + 1, 'no upstream call');
    assert.equal(hit.headers['x-gateway-cache'], 'hit');
    assert.match(String(hit.headers['content-type']), /^text\/event-stream/);
    assert.equal(Number(hit.headers['x-gateway-cache-saved-usd']), first.costUsd);
    const again = readStream(hit.body);
    assert.deepEqual(again.events, first.events);
    assert.deepEqual(again.message, first.message, 'text, thinking and signature, tool input, usage');
    assert.equal(again.costUsd, 0);
    assert.deepEqual(again.said, first.said, 'each count in the event that said it');
    assert.deepEqual(
      again.message.content.map((block: { type: string }) => block.type),
      ['thinking', 'text', 'tool_use'],
    );
    assert.equal(again.message.content[0].signature, 'c2lnbmF0dXJlLXR3bw==');

    const whole = await post(gw, claudeCodeBody('Stream it.', false));
    assert.equal(whole.headers['x-gateway-cache'], 'hit');
    assert.equal(whole.headers['x-gateway-cost-usd'], '0');
    assert.deepEqual(JSON.parse(whole.body), first.message);
    assert.equal(mock.requests.length, before + 1);

    const missRow = await onlyLedgerRow(gw, String(miss.headers['x-request-id']));
    const hitRow = await onlyLedgerRow(gw, String(hit.headers['x-request-id']));
    assert.deepEqual([hitRow.cacheHit, hitRow.costUsd, hitRow.costSavedUsd], [true, 0, missRow.costUsd]);
    assert.equal(hitRow.operation, 'chat_stream');
  });

  it('another anthropic-beta is another request; another app never reads the entry', async () => {
    const body = claudeCodeBody('Betas matter.', false);
    mock.failNext(1, { status: 200, body: wholeAnswer('One.') });
    await post(gw, body);
    const before = mock.requests.length;
    mock.failNext(1, { status: 200, body: wholeAnswer('Two.') });
    const otherBeta = await post(gw, body, { 'anthropic-beta': 'interleaved-thinking-2025-05-14' });
    assert.equal(otherBeta.headers['x-gateway-cache'], 'miss');
    assert.equal(mock.requests.length, before + 1);
    assert.equal(mock.requests.at(-1)?.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14');

    mock.failNext(1, { status: 200, body: wholeAnswer('Three.') });
    const otherApp = await post(gw, body, { 'x-api-key': `other:${OTHER_SECRET}` });
    assert.equal(otherApp.headers['x-gateway-cache'], 'miss');
    assert.equal(otherApp.body, wholeAnswer('Three.'));
    assert.equal(mock.requests.length, before + 2);
    assert.equal((await post(gw, body)).body, wholeAnswer('One.'), 'the first app’s own entry');
    assert.equal(mock.requests.length, before + 2);
  });

  it('not kept: a stream cut before its end, an error event, an upstream error, a paused turn', async () => {
    const sent = scriptedEventStream({ text: 'Cut short.' });
    const cut = sent.slice(0, sent.indexOf('event: message_delta'));
    const withError = `${cut}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`;
    const cases = [
      { name: 'cut', stream: true, canned: streamed(cut) },
      { name: 'error event', stream: true, canned: streamed(withError) },
      {
        name: '529',
        stream: false,
        canned: {
          status: 529,
          body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        },
      },
      {
        name: 'pause_turn',
        stream: false,
        canned: { status: 200, body: wholeAnswer('Paused.', 'pause_turn') },
      },
    ];
    for (const { name, stream, canned } of cases) {
      const body = claudeCodeBody(`Not kept: ${name}.`, stream);
      mock.failNext(1, canned);
      await post(gw, body);
      const before = mock.requests.length;
      mock.failNext(1, { status: 200, body: wholeAnswer('Now whole.') });
      const next = await post(gw, claudeCodeBody(`Not kept: ${name}.`, false));
      assert.equal(next.headers['x-gateway-cache'], 'miss', name);
      assert.equal(mock.requests.length, before + 1, name);
      assert.equal(next.body, wholeAnswer('Now whole.'));
    }
  });

  it('`bypass` neither reads nor keeps, and the lane stays', async () => {
    const body = claudeCodeBody('Bypassed.', false);
    mock.failNext(1, { status: 200, body: wholeAnswer('Kept.') });
    await post(gw, body);
    const before = mock.requests.length;
    mock.failNext(1, { status: 200, body: wholeAnswer('Fresh.') });
    const bypassed = await post(gw, body, { 'x-gateway-cache': 'bypass' });
    assert.equal(bypassed.headers['x-gateway-cache'], 'bypass');
    assert.equal(bypassed.body, wholeAnswer('Fresh.'));
    assert.equal(mock.requests.at(-1)?.raw.toString('utf8'), body);
    assert.equal(mock.requests.length, before + 1);
    const refreshed = await post(gw, body, { 'x-gateway-cache': 'refresh' });
    assert.equal(refreshed.headers['x-gateway-cache'], 'miss');
    assert.equal(mock.requests.length, before + 2);
  });
});

describe('response cache on the same-vendor lane, coalescing', () => {
  let mock: MockAnthropicServer;
  before(async () => {
    // Slow events: the second request arrives while the first one's stream is still running.
    mock = await startMockAnthropic({ eventDelayMs: 40 });
  });
  const gw = shareGateway(() => ({
    env: {
      PROVIDER_A_KIND: 'anthropic',
      PROVIDER_A_BASE_URL: mock.origin,
      PROVIDER_A_API_KEY: 'sk-ant-upstream',
    },
    file: { retry: { maxRetries: 0 }, responseCache: { enabled: true, coalesce: true } },
  }));
  after(() => mock.close());

  it('an identical request in flight: the second waits for the first’s relayed answer, no second upstream call', async () => {
    const body = JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      stream: true,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'Say something slowly.' }],
    });
    mock.replyNext({ text: 'Slowly, in pieces.', fragmentSize: 3 });
    const before = mock.requests.length;
    const [first, second] = await Promise.all([post(gw, body), post(gw, body)]);
    assert.equal(mock.requests.length, before + 1);
    assert.deepEqual([first.headers['x-gateway-cache'], second.headers['x-gateway-cache']].sort(), [
      'hit',
      'miss',
    ]);
    const [a, b] = [readStream(first.body), readStream(second.body)];
    assert.equal(a.message.content[0].text, 'Slowly, in pieces.');
    assert.deepEqual(b.message, a.message);
  });
});

describe('response cache on the same-vendor lane, in Redis', () => {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  let mock: MockAnthropicServer;
  let direct: Redis;
  let first: Harness;
  let second: Harness;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
    direct = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    const options = {
      env: {
        PROVIDER_A_KIND: 'anthropic',
        PROVIDER_A_BASE_URL: mock.origin,
        PROVIDER_A_API_KEY: 'sk-ant-upstream',
        REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
        REDIS_KEY_PREFIX: prefix,
      },
      file: { retry: { maxRetries: 0 }, responseCache: { enabled: true } },
    };
    first = await createGateway(options);
    second = await createGateway(options);
  });
  after(async () => {
    await first.close();
    await second.close();
    await mock.close();
    const keys = await direct.keys(`${prefix}*`);
    if (keys.length > 0) await direct.del(...keys);
    await direct.quit();
  });

  it('one instance’s relayed stream is the other’s hit, whole', async () => {
    const sent = scriptedEventStream(SCRIPT);
    mock.failNext(1, streamed(sent));
    const miss = await post(first, claudeCodeBody('Shared in Redis.', true));
    assert.equal(miss.headers['x-gateway-cache'], 'miss');
    const before = mock.requests.length;
    // The entry's write is not awaited by the request: wait for it to land.
    const deadline = Date.now() + 5_000;
    while ((await direct.keys(`${prefix}cache:*`)).length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const hit = await post(second, claudeCodeBody('Shared in Redis.', false));
    assert.equal(hit.statusCode, 200, hit.body);
    assert.equal(hit.headers['x-gateway-cache'], 'hit');
    assert.equal(mock.requests.length, before);
    assert.deepEqual(JSON.parse(hit.body), readStream(miss.body).message);
  });
});
