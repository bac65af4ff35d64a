import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockAnthropicServer, startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';

/**
 * Contract 5.2 and 5.9: an upstream's own 400 or 404 reaches the client at once, never retried
 * nor fallen over, with the upstream's message (keys removed): with its status on the vendor doors,
 * so that the vendors' SDKs (their default retries on) give up at once, and as 502 upstream_error
 * on the native API. A 401 from an upstream stays a 502.
 */
const ANTHROPIC_KEY = 'sk-ant-api03-configured-key-for-the-slot';
const OPENAI_KEY = 'configured-openai-key-7f3a';
const echoedKey = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
const notFound = (model: string) => ({
  type: 'error',
  error: { type: 'not_found_error', message: `model: ${model} (key ${ANTHROPIC_KEY} has no access)` },
});

describe('an upstream 404 or 400 through every door', () => {
  let anthropic: MockAnthropicServer;
  let openai: MockOpenAIServer;
  before(async () => {
    anthropic = await startMockAnthropic();
    openai = await startMockOpenAI();
  });
  // provider-a serves Claude names, provider-b GPT names; provider-c (simulated) is the route's fallback.
  const gw = shareGateway(() => ({
    env: {
      PROVIDER_A_KIND: 'anthropic',
      PROVIDER_A_BASE_URL: anthropic.origin,
      PROVIDER_A_API_KEY: ANTHROPIC_KEY,
      PROVIDER_B_KIND: 'openai',
      PROVIDER_B_BASE_URL: openai.baseUrl,
      PROVIDER_B_API_KEY: OPENAI_KEY,
    },
    file: { routing: { chat: [{ provider: 'provider-a' }, { provider: 'provider-c' }] } },
  }));
  after(async () => {
    await anthropic.close();
    await openai.close();
  });
  let origin: string;
  before(async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}`;
  });
  const messages = [{ role: 'user' as const, content: 'hello' }];

  it('the Anthropic SDK, with its default retries, gets NotFoundError at once from one upstream call', async (t) => {
    const client = new Anthropic({ baseURL: origin, apiKey: `${APP}:${SECRET}` });
    for (const stream of [false, true]) {
      anthropic.failNext(1, { status: 404, body: notFound('claude-nope-9') });
      const calls = anthropic.requests.length;
      const started = performance.now();
      const error = await client.messages
        .create({ model: 'claude-nope-9', max_tokens: 16, messages, stream } as never)
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      const elapsed = performance.now() - started;
      t.diagnostic(
        `Anthropic SDK, stream ${stream}: ${String(error)} after ${elapsed.toFixed(0)} ms, ${anthropic.requests.length - calls} upstream calls`,
      );
      assert.ok(error instanceof Anthropic.NotFoundError, `stream ${stream}: ${String(error)}`);
      assert.equal((error.error as { error: { type: string } }).error.type, 'not_found_error');
      const message = (error.error as { error: { message: string } }).error.message;
      assert.match(message, /model: claude-nope-9/);
      assert.ok(!message.includes(ANTHROPIC_KEY), message);
      assert.equal(anthropic.requests.length - calls, 1, 'one upstream call, no retry, no fallback');
      // One upstream call already shows neither the gateway nor the SDK retried (a retry would call
      // again); the time only guards against a hang, with room for a loaded machine.
      assert.ok(elapsed < 5_000, `gave up after ${elapsed.toFixed(0)} ms`);
    }
  });

  it('the OpenAI SDK, with its default retries, gets NotFoundError and BadRequestError at once', async (t) => {
    const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey: `${APP}:${SECRET}` });
    for (const [status, ErrorType] of [
      [404, OpenAI.NotFoundError],
      [400, OpenAI.BadRequestError],
    ] as const) {
      openai.reset();
      openai.failNext(1, {
        status,
        body: {
          error: {
            message: `The model 'gpt-nope' does not exist (you sent ${echoedKey} and ${OPENAI_KEY})`,
            type: 'invalid_request_error',
            param: null,
            code: 'model_not_found',
          },
        },
      });
      const started = performance.now();
      const error = await client.chat.completions.create({ model: 'gpt-nope', messages }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      const elapsed = performance.now() - started;
      t.diagnostic(
        `OpenAI SDK, upstream ${status}: ${String(error)} after ${elapsed.toFixed(0)} ms, ${openai.requests.length} upstream calls`,
      );
      assert.ok(error instanceof ErrorType, `${status}: ${String(error)}`);
      assert.match(error.message, /The model 'gpt-nope' does not exist/);
      assert.ok(!error.message.includes(echoedKey) && !error.message.includes(OPENAI_KEY), error.message);
      assert.equal(openai.requests.length, 1, 'one upstream call, no retry, no fallback');
      // One upstream call already shows neither the gateway nor the SDK retried (a retry would call
      // again); the time only guards against a hang, with room for a loaded machine.
      assert.ok(elapsed < 5_000, `gave up after ${elapsed.toFixed(0)} ms`);
    }
  });

  it('the native API answers 502 upstream_error naming provider and status, with the message', async (t) => {
    anthropic.failNext(1, { status: 404, body: notFound('claude-nope-9') });
    const calls = anthropic.requests.length;
    const started = performance.now();
    const res = await gw.chat({ messages, provider: 'provider-a', model: 'claude-nope-9' });
    t.diagnostic(
      `native: ${res.status} ${res.body.error?.message} after ${(performance.now() - started).toFixed(0)} ms, ${anthropic.requests.length - calls} upstream calls`,
    );
    assert.equal(res.status, 502);
    assert.equal(res.body.error.code, 'upstream_error');
    assert.match(
      res.body.error.message,
      /^provider-a rejected the request \(HTTP 404\): model: claude-nope-9/,
    );
    assert.ok(!res.text.includes(ANTHROPIC_KEY));
    assert.equal(res.body.error.details.status, 404);
    assert.equal(anthropic.requests.length - calls, 1);
    // Through the default route too: no fallback to provider-c.
    anthropic.failNext(1, { status: 404, body: notFound('claude-nope-9') });
    const routed = await gw.chat({ messages, model: 'claude-nope-9' });
    assert.equal(routed.status, 502);
    assert.equal(routed.body.error.details.provider, 'provider-a');
  });

  it('a 401 from an upstream stays a 502 on the doors, its message not passed on', async () => {
    anthropic.failNext(1, {
      status: 401,
      body: {
        type: 'error',
        error: { type: 'authentication_error', message: `invalid x-api-key ${ANTHROPIC_KEY}` },
      },
    });
    const res = await gw.post(
      '/v1/messages',
      { model: 'claude-sonnet-4-5', max_tokens: 16, messages },
      { headers: { 'anthropic-version': '2023-06-01' } },
    );
    assert.equal(res.status, 502);
    assert.equal(res.body.error.type, 'api_error');
    assert.ok(!res.text.includes(ANTHROPIC_KEY));
  });
});
