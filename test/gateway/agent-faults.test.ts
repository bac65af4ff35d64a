import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { shareVendorSlots } from '../helpers/vendor-slots.ts';

/**
 * Contract 6.1: a rate limit that outlasts the gateway's retries and a prompt past the context
 * window reach every door in the form its vendor's clients act on, whatever vendor the slot is,
 * as the official SDKs raise them: RateLimitError with the wait in its headers (and, on the OpenAI
 * doors, `rate_limit_exceeded` with "Please try again in …" in the message), BadRequestError with
 * `context_length_exceeded` or Anthropic's "prompt is too long: N tokens > M maximum". The native
 * API keeps section 2's 502 `upstream_error`.
 */
const TIGHT = { name: 'tight', secret: 'tight-secret-0123456789' };

type Kind = 'openai' | 'gemini' | 'anthropic';

interface SlotCase {
  kind: Kind;
  chatModel: string;
  embedModel: string | undefined;
  /** The upstream's 429, with the wait it asks for, and the wait the client must be told. */
  rateLimit: { status: number; headers?: Record<string, string>; body: unknown };
  wait: RegExp;
  retryAfter: string;
  /** The upstream's overflow, and the figures it gives. */
  overflow: { status: number; body: unknown };
  figures: [number, number];
}

const SLOTS: SlotCase[] = [
  {
    kind: 'openai',
    chatModel: 'provider-a/gpt-4o-mini',
    embedModel: 'provider-a/text-embedding-3-small',
    rateLimit: {
      status: 429,
      headers: { 'retry-after-ms': '1500', 'retry-after': '2' },
      body: {
        error: {
          message: 'Rate limit reached for gpt-4o-mini on tokens per min (TPM). Please try again in 1.5s.',
          type: 'tokens',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
    },
    wait: /Please try again in 1\.5s\.$/,
    retryAfter: '2',
    overflow: {
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130012 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      },
    },
    figures: [130012, 128000],
  },
  {
    kind: 'gemini',
    chatModel: 'provider-b/gemini-2.0-flash',
    embedModel: 'provider-b/text-embedding-004',
    rateLimit: {
      status: 429,
      body: {
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.85s' }],
        },
      },
    },
    wait: /Please try again in 850ms\.$/,
    retryAfter: '1',
    overflow: {
      status: 400,
      body: {
        error: {
          code: 400,
          message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
          status: 'INVALID_ARGUMENT',
        },
      },
    },
    figures: [1200000, 1048576],
  },
  {
    kind: 'anthropic',
    chatModel: 'provider-c/claude-sonnet-4-5',
    embedModel: undefined,
    rateLimit: {
      status: 429,
      headers: { 'retry-after': '3' },
      body: {
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: 'Number of request tokens has exceeded your per-minute rate limit',
        },
      },
    },
    wait: /Please try again in 3s\.$/,
    retryAfter: '3',
    overflow: {
      status: 400,
      body: {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'prompt is too long: 208310 tokens > 200000 maximum',
        },
      },
    },
    figures: [208310, 200000],
  },
];

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('rate limits and context overflows through every door, on every slot kind', () => {
  const slots = shareVendorSlots({
    // One retry, so that each failing request costs the mock two answers; the circuit stays shut.
    retry: { maxRetries: 1 },
    circuit: { failureThreshold: 1000 },
    apps: [TIGHT],
    limits: { apps: { tight: { requestsPerMinute: 1 } } },
  });
  let origin: string;
  before(async () => {
    await slots.gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(slots.gw.gateway.server.address() as AddressInfo).port}`;
  });
  const openai = () => new OpenAI({ baseURL: `${origin}/v1`, apiKey: `${APP}:${SECRET}`, maxRetries: 0 });
  const anthropic = () => new Anthropic({ baseURL: origin, apiKey: `${APP}:${SECRET}`, maxRetries: 0 });
  const mockOf = (kind: Kind) => slots[kind];
  const failNext = (
    kind: Kind,
    count: number,
    answer: { status: number; headers?: Record<string, string>; body: unknown },
  ) => mockOf(kind).failNext(count, answer as never);

  /** The OpenAI doors' calls for a slot: Chat Completions, Responses and (where the vendor has them) Embeddings. */
  function openAICalls(slot: SlotCase): [string, () => Promise<unknown>][] {
    const calls: [string, () => Promise<unknown>][] = [
      [
        'chat completions',
        () =>
          openai().chat.completions.create({
            model: slot.chatModel,
            messages: [{ role: 'user', content: 'hi' }],
          }),
      ],
      ['responses', () => openai().responses.create({ model: slot.chatModel, input: 'hi' })],
    ];
    const embedModel = slot.embedModel;
    if (embedModel !== undefined)
      calls.push(['embeddings', () => openai().embeddings.create({ model: embedModel, input: 'hi' })]);
    return calls;
  }

  for (const slot of SLOTS) {
    it(`${slot.kind} slot, upstream 429 past the retries: RateLimitError on the OpenAI doors`, async (t) => {
      for (const [door, call] of openAICalls(slot)) {
        failNext(slot.kind, 2, slot.rateLimit);
        const error = await caught(call());
        t.diagnostic(`${door}: ${String(error)}`);
        assert.ok(error instanceof OpenAI.RateLimitError, `${door}: ${String(error)}`);
        assert.equal(error.status, 429);
        assert.equal(error.code, 'rate_limit_exceeded', door);
        assert.equal(error.type, 'rate_limit_error', door);
        assert.match(error.message, slot.wait, door);
        assert.equal(error.headers.get('retry-after'), slot.retryAfter, door);
        assert.ok(Number(error.headers.get('retry-after-ms')) > 0, door);
      }
    });

    it(`${slot.kind} slot, upstream 429 past the retries: RateLimitError on the Anthropic door`, async (t) => {
      for (const stream of [false, true]) {
        failNext(slot.kind, 2, slot.rateLimit);
        const model = slot.chatModel;
        const error = await caught(
          anthropic().messages.create({
            model,
            max_tokens: 16,
            messages: [{ role: 'user', content: 'hi' }],
            stream,
          } as never),
        );
        t.diagnostic(`stream ${stream}: ${String(error)}`);
        assert.ok(error instanceof Anthropic.RateLimitError, String(error));
        assert.equal((error.error as { error: { type: string } }).error.type, 'rate_limit_error');
        assert.equal(error.headers?.get('retry-after'), slot.retryAfter);
      }
    });

    it(`${slot.kind} slot, upstream overflow: context_length_exceeded on the OpenAI doors`, async (t) => {
      for (const [door, call] of openAICalls(slot)) {
        failNext(slot.kind, 1, slot.overflow);
        const error = await caught(call());
        t.diagnostic(`${door}: ${String(error)}`);
        assert.ok(error instanceof OpenAI.BadRequestError, `${door}: ${String(error)}`);
        assert.equal(error.code, 'context_length_exceeded', door);
        assert.equal(error.param, 'messages', door);
        const [prompt, window] = slot.figures;
        assert.match(error.message, new RegExp(`maximum context length is ${window} tokens`), door);
        assert.match(error.message, new RegExp(`resulted in ${prompt} tokens`), door);
      }
    });

    it(`${slot.kind} slot, upstream overflow: "prompt is too long" on the Anthropic door`, async (t) => {
      for (const stream of [false, true]) {
        failNext(slot.kind, 1, slot.overflow);
        const error = await caught(
          anthropic().messages.create({
            model: slot.chatModel,
            max_tokens: 16,
            messages: [{ role: 'user', content: 'hi' }],
            stream,
          } as never),
        );
        t.diagnostic(`stream ${stream}: ${String(error)}`);
        assert.ok(error instanceof Anthropic.BadRequestError, String(error));
        const body = (error.error as { error: { type: string; message: string } }).error;
        assert.equal(body.type, 'invalid_request_error');
        const [prompt, window] = slot.figures;
        assert.ok(
          body.message.startsWith(`prompt is too long: ${prompt} tokens > ${window} maximum`),
          body.message,
        );
      }
    });
  }

  it("an overflow without figures reads as Anthropic's with the gateway's count and the price data's window", async () => {
    failNext('openai', 1, {
      status: 400,
      body: {
        error: {
          message:
            'Your input exceeds the context window of this model. Please adjust your input and try again.',
          type: 'invalid_request_error',
          param: 'input',
          code: 'context_length_exceeded',
        },
      },
    });
    const text = 'word '.repeat(400);
    const error = await caught(
      anthropic().messages.create({
        model: 'provider-a/gpt-4o-mini',
        max_tokens: 16,
        messages: [{ role: 'user', content: text }],
      }),
    );
    assert.ok(error instanceof Anthropic.BadRequestError, String(error));
    const message = (error.error as { error: { message: string } }).error.message;
    const figures = /^prompt is too long: (\d+) tokens > (\d+) maximum$/.exec(message);
    assert.ok(figures !== null, message);
    // The gateway's guess of the prompt (four characters to a token), and gpt-4o-mini's window.
    assert.ok(Number(figures[1]) >= text.length / 4, message);
    assert.equal(Number(figures[2]), 128000);
  });

  it("the gateway's own limit is a RateLimitError naming the limit, on both vendors' doors", async () => {
    const key = `${TIGHT.name}:${TIGHT.secret}`;
    const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey: key, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    await client.chat.completions.create({ model: 'provider-a/gpt-4o-mini', messages });
    const error = await caught(client.chat.completions.create({ model: 'provider-a/gpt-4o-mini', messages }));
    assert.ok(error instanceof OpenAI.RateLimitError, String(error));
    assert.equal(error.code, 'rate_limit_exceeded');
    assert.equal(error.type, 'requests');
    assert.match(error.message, /requests per minute.*Please try again in \d+(\.\d+)?s\.$/);
    assert.ok(Number(error.headers.get('retry-after')) >= 1);
    const claude = new Anthropic({ baseURL: origin, apiKey: key, maxRetries: 0 });
    const refused = await caught(
      claude.messages.create({ model: 'provider-c/claude-sonnet-4-5', max_tokens: 8, messages }),
    );
    assert.ok(refused instanceof Anthropic.RateLimitError, String(refused));
    assert.ok(Number(refused.headers?.get('retry-after')) >= 1);
  });

  it('the native API keeps section 2: 502 upstream_error naming the provider and status 429', async () => {
    failNext('openai', 2, SLOTS[0]?.rateLimit as SlotCase['rateLimit']);
    const reply = await slots.gw.chat({
      provider: 'provider-a',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(reply.status, 502);
    assert.equal(reply.body.error.code, 'upstream_error');
    assert.match(reply.body.error.message, /provider-a failed \(HTTP 429\) after 2 attempts/);
  });
});

describe('the simulated provider asked for an overflow (the context_overflow fault directive)', () => {
  const gw = shareGateway();
  const bearer = { headers: { authorization: `Bearer ${APP}:${SECRET}`, 'anthropic-version': '2023-06-01' } };
  const metadata = { simulated: { fault: 'context_overflow' } };
  const messages = [{ role: 'user', content: 'x'.repeat(4_000) }];

  it('is context_length_exceeded on the OpenAI doors and "prompt is too long" on the Anthropic door', async () => {
    const chat = await gw.post('/v1/chat/completions', { model: 'chat', messages, metadata }, bearer);
    assert.equal(chat.status, 400);
    assert.equal(chat.body.error.code, 'context_length_exceeded');
    const responses = await gw.post('/v1/responses', { model: 'chat', input: 'hi', metadata }, bearer);
    assert.equal(responses.status, 400);
    assert.equal(responses.body.error.code, 'context_length_exceeded');
    const claude = await gw.post(
      '/v1/messages',
      { model: 'chat', max_tokens: 8, messages, metadata },
      bearer,
    );
    assert.equal(claude.status, 400);
    assert.equal(claude.body.error.type, 'invalid_request_error');
    assert.match(claude.body.error.message, /^prompt is too long: /);
    const native = await gw.chat({ messages, metadata });
    assert.equal(native.status, 502);
    assert.equal(native.body.error.code, 'upstream_error');
  });

  it('the rate_limited directive is a 429 that names its 10 ms wait, once the retries are spent', async () => {
    const limited = { simulated: { fault: 'rate_limited' } };
    const chat = await gw.post(
      '/v1/chat/completions',
      { model: 'chat', messages, metadata: limited },
      bearer,
    );
    assert.equal(chat.status, 429);
    assert.equal(chat.body.error.code, 'rate_limit_exceeded');
    assert.match(chat.body.error.message, /Please try again in 10ms\.$/);
    assert.equal(chat.headers['retry-after-ms'], '10');
    const claude = await gw.post(
      '/v1/messages',
      { model: 'chat', max_tokens: 8, messages, metadata: limited },
      bearer,
    );
    assert.equal(claude.status, 429);
    assert.equal(claude.body.error.type, 'rate_limit_error');
  });
});
