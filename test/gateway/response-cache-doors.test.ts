import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Harness, shareGateway } from '../helpers/gateway-harness.ts';
import type { Reply } from '../helpers/inject-reply.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { parseSse, type SseEvent } from '../helpers/parse-sse.ts';
import { scriptedCacheUsage } from '../helpers/scripted-reply.ts';

/**
 * The response cache through every door (CONTRACT 5.5): a second identical request is a hit with
 * no upstream call, the same text and token counts (byte for byte), cost 0 and the cost it saved,
 * whole or streamed; a stream hit is the same event sequence (several deltas become one).
 */

/** What a door's answer says: its text and usage as the door's fields write them, and its event names. */
interface Read {
  text: string;
  usage: unknown;
  cost: number;
  events: string[];
}

interface Door {
  name: string;
  path: string;
  body(prompt: string, stream: boolean): Record<string, unknown>;
  read(reply: Reply, stream: boolean): Read;
}

const costHeader = (reply: Reply) => Number(reply.headers['x-gateway-cost-usd']);

/** Event names with runs of one name taken as one: a hit's single delta stands for a miss's several. */
function names(events: SseEvent[], nameOf: (event: SseEvent) => string): string[] {
  const out: string[] = [];
  for (const event of events) {
    const name = nameOf(event);
    if (out.at(-1) !== name) out.push(name);
  }
  return out;
}

const DOORS: Door[] = [
  {
    name: 'native /v1/chat',
    path: '/v1/chat',
    body: (prompt, stream) => ({ messages: [{ role: 'user', content: prompt }], stream }),
    read(reply, stream) {
      if (!stream) {
        const { estimatedCost, ...usage } = reply.body.usage;
        return { text: reply.body.message.content, usage, cost: estimatedCost, events: [] };
      }
      const events = parseSse(reply.text);
      const done = events.at(-1)?.data as { usage: { estimatedCost: number }; message: { content: string } };
      const { estimatedCost, ...usage } = done.usage;
      const text = events
        .filter((e) => e.event === 'delta')
        .map((e) => (e.data as { content: string }).content)
        .join('');
      assert.equal(text, done.message.content);
      return { text, usage, cost: estimatedCost, events: names(events, (e) => e.event) };
    },
  },
  {
    name: 'OpenAI /v1/chat/completions',
    path: '/v1/chat/completions',
    body: (prompt, stream) => ({
      model: 'simulated-chat',
      messages: [{ role: 'user', content: prompt }],
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    }),
    read(reply, stream) {
      if (!stream) {
        return {
          text: reply.body.choices[0].message.content,
          usage: reply.body.usage,
          cost: costHeader(reply),
          events: [],
        };
      }
      const chunks = reply.text
        .split('\n\n')
        .filter((block) => block.startsWith('data: ') && block !== 'data: [DONE]')
        .map((block) => JSON.parse(block.slice(6)));
      const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
      const { cost_usd, ...usage } = chunks.at(-1).usage;
      const shape = chunks.map((c) =>
        c.usage
          ? 'usage'
          : c.choices[0]?.finish_reason
            ? 'finish'
            : c.choices[0]?.delta?.role
              ? 'role'
              : 'delta',
      );
      return {
        text,
        usage,
        cost: cost_usd,
        events: names(
          shape.map((event) => ({ event, data: null })),
          (e) => e.event,
        ),
      };
    },
  },
  {
    name: 'Anthropic /v1/messages',
    path: '/v1/messages',
    body: (prompt, stream) => ({
      model: 'simulated-chat',
      max_tokens: 200,
      messages: [{ role: 'user', content: prompt }],
      stream,
    }),
    read(reply, stream) {
      if (!stream) {
        return {
          text: reply.body.content.map((b: { text: string }) => b.text).join(''),
          usage: reply.body.usage,
          cost: costHeader(reply),
          events: [],
        };
      }
      const events = parseSse(reply.text);
      const text = events
        .filter((e) => e.event === 'content_block_delta')
        .map((e) => (e.data as { delta: { text: string } }).delta.text)
        .join('');
      const delta = events.find((e) => e.event === 'message_delta')?.data as { usage: { cost_usd: number } };
      const { cost_usd, ...usage } = delta.usage;
      return { text, usage, cost: cost_usd, events: names(events, (e) => e.event) };
    },
  },
  {
    name: 'Responses /v1/responses',
    path: '/v1/responses',
    body: (prompt, stream) => ({ model: 'simulated-chat', input: prompt, stream }),
    read(reply, stream) {
      if (!stream) {
        const text = reply.body.output
          .flatMap((item: { content?: { text: string }[] }) => item.content ?? [])
          .map((part: { text: string }) => part.text)
          .join('');
        return { text, usage: reply.body.usage, cost: costHeader(reply), events: [] };
      }
      const events = parseSse(reply.text);
      const text = events
        .filter((e) => e.event === 'response.output_text.delta')
        .map((e) => (e.data as { delta: string }).delta)
        .join('');
      const done = events.at(-1)?.data as { response: { usage: { cost_usd: number } } };
      const { cost_usd, ...usage } = done.response.usage;
      return { text, usage, cost: cost_usd, events: names(events, (e) => e.event) };
    },
  },
];

async function send(
  gw: Harness,
  door: Door,
  prompt: string,
  stream: boolean,
  headers: Record<string, string> = {},
) {
  return gw.post(door.path, door.body(prompt, stream), { headers });
}

describe('response cache: a hit through each door, whole and streamed', () => {
  const gw = shareGateway({ file: { responseCache: { enabled: true } } });

  for (const door of DOORS) {
    for (const stream of [false, true]) {
      it(`${door.name}${stream ? ', streamed' : ''}: the second answer is a hit, the same text and usage at cost 0`, async () => {
        const prompt = `cache me through ${door.name} ${stream ? 'streamed' : 'whole'}: tell me about lighthouses`;
        const calls = gw.calls.length;
        const miss = await send(gw, door, prompt, stream);
        assert.equal(miss.status, 200, miss.text);
        assert.equal(miss.headers['x-gateway-cache'], 'miss');
        assert.equal(gw.calls.length, calls + 1);
        const hit = await send(gw, door, prompt, stream);
        assert.equal(hit.status, 200, hit.text);
        assert.equal(hit.headers['x-gateway-cache'], 'hit');
        assert.equal(gw.calls.length, calls + 1, 'no upstream call for the hit');
        const first = door.read(miss, stream);
        const second = door.read(hit, stream);
        assert.ok(first.text.length > 0);
        assert.equal(second.text, first.text);
        assert.equal(JSON.stringify(second.usage), JSON.stringify(first.usage));
        assert.ok(first.cost > 0);
        assert.equal(second.cost, 0);
        assert.deepEqual(second.events, first.events);
        assert.equal(Number(hit.headers['x-gateway-cache-saved-usd']), first.cost);
        // The vendor doors' whole answers carry the cost in a header (a stream: in its usage).
        if (door.name !== 'native /v1/chat' && !stream) assert.equal(hit.headers['x-gateway-cost-usd'], '0');
      });
    }
  }

  it('a whole answer kept is replayed as a stream, and a stream kept as a whole answer', async () => {
    const door = DOORS[0] as Door;
    const calls = gw.calls.length;
    const whole = await send(gw, door, 'kept whole, read streamed', false);
    const streamed = await send(gw, door, 'kept whole, read streamed', true);
    assert.equal(streamed.headers['x-gateway-cache'], 'hit');
    assert.equal(door.read(streamed, true).text, door.read(whole, false).text);
    const first = await send(gw, door, 'kept streamed, read whole', true);
    const second = await send(gw, door, 'kept streamed, read whole', false);
    assert.equal(second.headers['x-gateway-cache'], 'hit');
    assert.equal(door.read(second, false).text, door.read(first, true).text);
    assert.equal(gw.calls.length, calls + 2);
  });

  it('x-gateway-cache: bypass neither reads nor writes; refresh writes without reading and answers miss', async () => {
    const door = DOORS[1] as Door;
    const prompt = 'bypass and refresh';
    const calls = gw.calls.length;
    const bypass = await send(gw, door, prompt, false, { 'x-gateway-cache': 'bypass' });
    assert.equal(bypass.headers['x-gateway-cache'], 'bypass');
    const miss = await send(gw, door, prompt, false);
    assert.equal(miss.headers['x-gateway-cache'], 'miss', 'bypass wrote nothing');
    const refresh = await send(gw, door, prompt, false, { 'x-gateway-cache': 'Refresh' });
    assert.equal(refresh.headers['x-gateway-cache'], 'miss');
    assert.equal(gw.calls.length, calls + 3);
    const hit = await send(gw, door, prompt, false);
    assert.equal(hit.headers['x-gateway-cache'], 'hit');
    assert.equal(gw.calls.length, calls + 3);
  });

  it("another value of x-gateway-cache is a 400 in the door's shape", async () => {
    const openai = await send(gw, DOORS[1] as Door, 'bad header', false, { 'x-gateway-cache': 'always' });
    assert.equal(openai.status, 400);
    assert.match(openai.body.error.message, /x-gateway-cache must be one of use, bypass, refresh/);
    const anthropic = await send(gw, DOORS[2] as Door, 'bad header', false, { 'x-gateway-cache': 'always' });
    assert.equal(anthropic.status, 400);
    assert.equal(anthropic.body.type, 'error');
  });

  it('what changes the answer changes the key: temperature, max tokens, tools, the model; metadata does not', async () => {
    const base = { messages: [{ role: 'user', content: 'which fields key the cache' }] };
    const calls = gw.calls.length;
    await gw.chat(base);
    assert.equal((await gw.chat({ ...base, metadata: { run: 7 } })).headers['x-gateway-cache'], 'hit');
    assert.equal((await gw.chat({ ...base, temperature: 0.3 })).headers['x-gateway-cache'], 'miss');
    assert.equal((await gw.chat({ ...base, maxTokens: 50 })).headers['x-gateway-cache'], 'miss');
    assert.equal((await gw.chat({ ...base, model: 'other-model' })).headers['x-gateway-cache'], 'miss');
    const tools = [{ name: 'lookup', parameters: { type: 'object', properties: {} } }];
    assert.equal((await gw.chat({ ...base, tools })).headers['x-gateway-cache'], 'miss');
    assert.equal((await gw.chat({ ...base, tools, stream: true })).headers['x-gateway-cache'], 'hit');
    assert.equal(gw.calls.length, calls + 5);
  });
});

describe('response cache: off by default, on per app, route and request', () => {
  const gw = shareGateway();

  it('says nothing and keeps nothing where it is off', async () => {
    const calls = gw.calls.length;
    const first = await gw.chat({ messages: [{ role: 'user', content: 'not cached' }] });
    const second = await gw.chat({ messages: [{ role: 'user', content: 'not cached' }] });
    assert.equal(first.headers['x-gateway-cache'], undefined);
    assert.equal(second.headers['x-gateway-cache'], undefined);
    assert.equal(gw.calls.length, calls + 2);
  });

  it('x-gateway-cache: use turns it on for the request', async () => {
    const use = { headers: { 'x-gateway-cache': 'use' } };
    const body = { messages: [{ role: 'user', content: 'cached on request' }] };
    assert.equal((await gw.chat(body, use)).headers['x-gateway-cache'], 'miss');
    assert.equal((await gw.chat(body, use)).headers['x-gateway-cache'], 'hit');
    assert.equal((await gw.chat(body)).headers['x-gateway-cache'], undefined, 'not read without the header');
  });
});

describe('response cache: a stream hit behind an Anthropic upstream carries the same usage events', () => {
  let mock: MockAnthropicServer;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
  });
  const gw = shareGateway(() => ({
    env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'k' },
    file: { responseCache: { enabled: true } },
  }));
  after(() => mock.close());

  it("message_start's prompt counts and message_delta's totals are the miss's, at cost 0", async () => {
    const body = {
      model: 'provider-a/claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'What does this repository do?' }],
      stream: true,
    };
    const cache = { read: 24_000, write5m: 1_200, write1h: 300 };
    mock.replyNext({ text: 'It routes requests.', usage: scriptedCacheUsage('anthropic', cache) });
    const miss = await gw.post('/v1/messages', body);
    const hit = await gw.post('/v1/messages', body);
    assert.equal(miss.headers['x-gateway-cache'], 'miss');
    assert.equal(hit.headers['x-gateway-cache'], 'hit');
    const usageOf = (text: string) => {
      const events = parseSse(text);
      const start = events.find((e) => e.event === 'message_start')?.data as { message: { usage: unknown } };
      const delta = events.find((e) => e.event === 'message_delta')?.data as {
        usage: { cost_usd: number };
      };
      const { cost_usd, ...totals } = delta.usage;
      return { start: start.message.usage, totals, cost: cost_usd };
    };
    const missed = usageOf(miss.text);
    const replayed = usageOf(hit.text);
    assert.deepEqual(replayed.start, missed.start);
    assert.equal((missed.start as { cache_read_input_tokens: number }).cache_read_input_tokens, 24_000);
    assert.deepEqual(replayed.totals, missed.totals);
    assert.ok(missed.cost > 0);
    assert.equal(replayed.cost, 0);
    assert.equal(Number(hit.headers['x-gateway-cache-saved-usd']), missed.cost);
  });
});
